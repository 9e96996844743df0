# Functions for deploy/setup.sh. Every one is idempotent.

PG_PORT="${BENCHDASH_PG_PORT:-54329}"
REDIS_PORT="${BENCHDASH_REDIS_PORT:-63799}"
RUN_USER="${BENCHDASH_LOCAL_USER:-benchdash}"
VAR="$ROOT/var"
PY="$ROOT/.venv/bin/python"

say() { printf '\033[1m==> %s\033[0m\n' "$*"; }
die() { printf 'benchdash setup: %s\n' "$*" >&2; exit 1; }

pg_bindir() {
  local dir
  for dir in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
    [ -x "$dir/pg_ctl" ] && { echo "$dir"; return 0; }
  done
  return 1
}

# command -> Debian package that provides it
missing_packages() {
  local missing=()
  pg_bindir >/dev/null || missing+=(postgresql)
  command -v psql >/dev/null || missing+=(postgresql-client)
  command -v pgbench >/dev/null || missing+=(postgresql-contrib)
  command -v redis-server >/dev/null || missing+=(redis-server)
  command -v ssh >/dev/null || missing+=(openssh-client)
  [ -x /usr/sbin/sshd ] || missing+=(openssh-server)
  command -v sar >/dev/null || missing+=(sysstat)
  command -v perf >/dev/null || missing+=(linux-perf)
  command -v msgfmt >/dev/null || missing+=(gettext)
  # the browser tests (tests/browser/): Debian's chromium, driven through Debian's chromedriver
  [ -x /usr/bin/chromium ] || missing+=(chromium)
  [ -x /usr/bin/chromedriver ] || missing+=(chromium-driver)
  command -v runuser >/dev/null || missing+=(util-linux)
  python3 -c 'import venv, ensurepip' 2>/dev/null || missing+=(python3-venv)
  echo "${missing[@]:-}"
}

ensure_packages() {
  local missing
  missing="$(missing_packages)"
  [ -z "$missing" ] && return 0
  if [ "$(id -u)" -ne 0 ]; then
    die "these packages are missing; install them as root, then run this again:
  apt-get install -y $missing"
  fi
  say "installing $missing"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  # shellcheck disable=SC2086
  apt-get install -y -qq --no-install-recommends $missing >/dev/null
  # Debian starts a cluster and sshd on install; benchdash runs its own, on its own ports.
}

# PostgreSQL refuses to run as root: when we are root, an ordinary account runs it.
ensure_run_user() {
  [ "$(id -u)" -ne 0 ] && return 0
  id "$RUN_USER" >/dev/null 2>&1 && return 0
  say "creating the unprivileged user $RUN_USER"
  useradd --system --create-home --shell /bin/bash "$RUN_USER"
}

as_run_user() {
  if [ "$(id -u)" -eq 0 ]; then runuser -u "$RUN_USER" -- "$@"; else "$@"; fi
}

ensure_venv() {
  local stamp=".venv/.requirements.sha256" want
  want="$(sha256sum requirements.txt | cut -d' ' -f1)"
  [ -x "$PY" ] || { say "creating .venv"; python3 -m venv .venv; }
  if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
    say "installing requirements.txt into .venv"
    .venv/bin/pip install -q --disable-pip-version-check -r requirements.txt
    echo "$want" > "$stamp"
  fi
}

# The store's data directory must be reachable by the run user; a clone under /root is not.
pg_data_dir() {
  if as_run_user test -x "$ROOT" 2>/dev/null; then
    echo "$VAR/pg"
  else
    echo "/var/lib/benchdash/$(echo -n "$ROOT" | sha256sum | cut -c1-12)/pg"
  fi
}

ensure_store() {
  if [ -n "${DATABASE_URL:-}" ]; then
    say "using the store at DATABASE_URL"
    return 0
  fi
  local bindir data
  bindir="$(pg_bindir)" || die "no PostgreSQL server found (apt-get install postgresql)"
  if "$bindir/pg_isready" -q -h 127.0.0.1 -p "$PG_PORT"; then
    ensure_store_database "$bindir"
    return 0
  fi
  data="$(pg_data_dir)"
  mkdir -p "$(dirname "$data")" "$VAR"
  [ "$(id -u)" -eq 0 ] && chown "$RUN_USER" "$(dirname "$data")"
  if [ ! -f "$data/PG_VERSION" ]; then
    say "creating the store's PostgreSQL cluster in $data"
    as_run_user "$bindir/initdb" -D "$data" -U benchdash -A trust -E UTF8 --locale=C.UTF-8 >/dev/null
  fi
  if ! as_run_user "$bindir/pg_ctl" -D "$data" status >/dev/null 2>&1; then
    say "starting PostgreSQL on 127.0.0.1:$PG_PORT"
    as_run_user "$bindir/pg_ctl" -D "$data" -l "$data/../postgresql.log" -w -t 60 \
      -o "-p $PG_PORT -c listen_addresses=127.0.0.1 -c unix_socket_directories='' -c max_connections=200" \
      start >/dev/null
  fi
  ensure_store_database "$bindir"
}

ensure_store_database() {
  local psql=("$1/psql" -h 127.0.0.1 -p "$PG_PORT" -U benchdash -d postgres)
  "${psql[@]}" -tAc "SELECT 1 FROM pg_database WHERE datname = 'benchdash'" | grep -q 1 ||
    "${psql[@]}" -qc "CREATE DATABASE benchdash"
}

ensure_broker() {
  if [ -n "${REDIS_URL:-}" ]; then
    say "using the broker at REDIS_URL"
    return 0
  fi
  mkdir -p "$VAR/redis"
  if ! redis-cli -p "$REDIS_PORT" ping >/dev/null 2>&1; then
    say "starting Redis on 127.0.0.1:$REDIS_PORT"
    redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --daemonize yes --dir "$VAR/redis" \
      --pidfile "$VAR/redis/redis.pid" --logfile "$VAR/redis/redis.log" \
      --appendonly yes --save "" >/dev/null
    for _ in $(seq 50); do redis-cli -p "$REDIS_PORT" ping >/dev/null 2>&1 && break; sleep 0.1; done
  fi
}

prepare_app() {
  say "migrating and loading presets"
  "$PY" manage.py migrate --noinput -v 0
  "$PY" manage.py load_presets
  "$PY" manage.py register_local
}

stop_services() {
  local bindir data
  bindir="$(pg_bindir)" && data="$(pg_data_dir)" && [ -f "$data/PG_VERSION" ] &&
    as_run_user "$bindir/pg_ctl" -D "$data" -m fast stop >/dev/null 2>&1 && say "PostgreSQL stopped"
  redis-cli -p "$REDIS_PORT" shutdown nosave >/dev/null 2>&1 && say "Redis stopped"
  return 0
}
