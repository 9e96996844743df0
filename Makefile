# The two commands: `make run` and `make test`. Both set up what is missing first.
# `make check` is the fast lane: ruff, mypy, the import contracts and the tests that need no servers; it sets up
# nothing and starts nothing, so it needs the .venv that `make test` made, with the test tools. Its pytest reads the
# test modules rewritten ahead (tests/rewrite_ahead.py, which rewrites only what changed since), so that its
# collection rewrites none of them.
.PHONY: run test check setup lint imports need-venv stop bench certs lock plotly

# Settings may live in .env (see .env.example); every step below sees them.
ifneq (,$(wildcard .env))
include .env
export
endif

setup:
	@bash deploy/setup.sh

# Development: DEBUG on unless .env or the environment says otherwise (settings.py's default is off); the web
# server, the worker and beat run as the unprivileged run user when this runs as root (deploy/as-run-user.sh). The
# address printed is the one gunicorn will bind (GUNICORN_CMD_ARGS="--bind ..." moves it; deploy/served_address.py).
run:
	@bash deploy/setup.sh run
	@.venv/bin/python manage.py ensure_admin
	@served=$$(.venv/bin/python deploy/served_address.py) && \
	  echo "benchdash: $$served  (Ctrl-C stops the web server, worker and beat)"
	@DEBUG=$${DEBUG:-true} BENCHDASH_STATIC_FROM_SOURCE=$${BENCHDASH_STATIC_FROM_SOURCE:-false} \
	  .venv/bin/honcho --procfile deploy/Procfile --app-root . start

# A local CA and the store's and Redis's server certificate, for a multi-machine install (deploy/SCALE-OUT.md):
# make certs NAMES="dashboard.lab 10.0.0.5" (the names the workers connect to); into var/certs, the CA kept.
certs:
	@bash deploy/make-certs.sh $${BENCHDASH_VAR_DIR:-var}/certs $(NAMES)

# lint, imports and check need the development lock's tools, which `make run` does not install (deploy/lib.sh).
need-venv:
	@test -x .venv/bin/python || { echo "benchdash: no .venv here: run make test once first" >&2; exit 1; }
	@[ "$$(cat .venv/.requirements.sha256 2>/dev/null)" = "$$(sha256sum requirements-dev.txt)" ] || \
	  { echo "benchdash: .venv does not hold requirements-dev.txt as it stands: run make test once first" >&2; exit 1; }

lint: need-venv
	.venv/bin/ruff check .
	.venv/bin/ruff format --check .
	.venv/bin/mypy benchdash workers

# The layers in pyproject.toml ([tool.importlinter]); --no-cache leaves no cache directory in the tree.
imports: need-venv
	.venv/bin/lint-imports --no-logo --no-cache

# Its tests on two pytest-xdist workers: each collects the suite (about 9 s of CPU), and the two cores then share the
# tests, where one worker left a core idle: 39 s of CPU in all against 30 s, 40 s wall against 50 s on a shared
# 2-core machine (docs/TESTS.md). None needs a server: nothing keeps the workers apart but what keeps make test's.
check: lint imports
	@.venv/bin/python tests/rewrite_ahead.py
	.venv/bin/pytest -m "not servers" -q -n 2 --dist worksteal

# Five pytest-xdist workers: most of the slow tests wait on real processes (workers, pgbench, timeouts), so five run
# side by side even on two cores; with four, the cores stood idle 15% of a run whenever all four waited at once
# (the figures: docs/TESTS.md); each worker has its own test database and Redis db (tests/queue/conftest.py).
# worksteal: a worker that runs out takes tests queued behind a long one on another (docs/TESTS.md).
# lint and imports run beside the suite (mypy most of their CPU), at the lowest priority: in a session of their own
# whose autogroup is niced to 19 (Linux shares the CPU among sessions first, tests/conftest.py), they take only what
# the suite leaves idle, and no longer slow the workers' collection at the start; their output comes after the
# suite's, and either failing fails `make test`.
# The checkout's own modules are compiled first: where PYTHONDONTWRITEBYTECODE is set, no process writes them, and
# each of the run's Python processes (Celery workers and beat, gunicorn, manage.py) would compile them again at
# its start. A stale file is never read: Python compares it with its source. Likewise the tests'
# modules as pytest rewrites their asserts (tests/rewrite_ahead.py): each worker's collection then reads them, where
# it would rewrite them all itself (docs/BENCHMARKS.md, "A pytest worker's collection").
test:
	@bash deploy/setup.sh test
	@.venv/bin/python tests/rewrite_ahead.py & rewrite=$$!; \
	  .venv/bin/python -m compileall -q benchdash workers > /dev/null && wait $$rewrite
	@lint_log=$$(mktemp); \
	  setsid -w sh -c '{ echo 19 > /proc/self/autogroup; } 2>/dev/null; exec nice -n 19 "$$@"' sh \
	    $(MAKE) --no-print-directory lint imports > "$$lint_log" 2>&1 & lint=$$!; \
	  .venv/bin/pytest -n 5 --dist worksteal; suite=$$?; \
	  wait $$lint; linted=$$?; cat "$$lint_log"; rm -f "$$lint_log"; \
	  [ $$linted -eq 0 ] || echo "make test: lint or the import contracts failed (above)" >&2; \
	  [ $$suite -eq 0 ] && [ $$linted -eq 0 ]

stop:
	@bash deploy/setup.sh stop

# The locks from requirements.in and requirements-dev.in, every package pinned with its hashes (CONTRIBUTING.md,
# "Dependencies"). uv keeps each version a lock already holds unless an .in file asks for another;
# UPGRADE="--upgrade-package NAME" moves one that no .in file names.
LOCK = .venv/bin/uv pip compile -q --generate-hashes --python-version 3.11 --excludes requirements-excluded.txt \
  --custom-compile-command "make lock" $(UPGRADE)
lock:
	@test -x .venv/bin/uv || { echo "benchdash: no .venv/bin/uv here: run make test or make run once first" >&2; exit 1; }
	$(LOCK) requirements.in -o requirements.txt
	$(LOCK) requirements-dev.in -o requirements-dev.txt

# The plotly.js bundles of deploy/plotly-bundles.txt, built from the npm registry into static/vendor/ (committed:
# set-up needs no Node.js). Needs node and npm.
plotly:
	@bash deploy/plotly-bundles.sh
