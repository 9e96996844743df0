# The two commands: `make run` and `make test`. Both set up what is missing first.
.PHONY: run test setup lint stop bench

# Settings may live in .env (see .env.example); every step below sees them.
ifneq (,$(wildcard .env))
include .env
export
endif

setup:
	@bash deploy/setup.sh

run: setup
	@.venv/bin/python manage.py ensure_admin
	@echo "benchdash: http://127.0.0.1:8000  (Ctrl-C stops the web server, worker and beat)"
	@.venv/bin/honcho --procfile deploy/Procfile --app-root . start

lint:
	.venv/bin/ruff check .
	.venv/bin/ruff format --check .
	.venv/bin/mypy benchdash workers

test: setup lint
	.venv/bin/pytest

stop:
	@bash deploy/setup.sh stop
