# Functions for deploy/setup.sh. Every one is idempotent.

PG_PORT="${BENCHDASH_PG_PORT:-54329}"
REDIS_PORT="${BENCHDASH_REDIS_PORT:-63799}"
# As root: the store's PostgreSQL and Redis run as RUN_USER, the benchmark clusters of the host `local` as
# CLUSTER_USER, an account that can read none of the app's secrets (docs/SECURITY.md).
RUN_USER="${BENCHDASH_STORE_USER:-benchdash}"
CLUSTER_USER="${BENCHDASH_LOCAL_USER:-benchdash-clusters}"
VAR="${BENCHDASH_VAR_DIR:-$ROOT/var}"
# The store's and Redis's generated passwords, 0600 files in a 0700 directory of RUN_USER's (git-ignored var/);
# benchdash/settings.py reads them into the default DATABASE_URL and REDIS_URL.
SECRETS="${BENCHDASH_SECRETS_DIR:-$VAR/secrets}"
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
  command -v sudo >/dev/null || missing+=(sudo)  # the app's account reaches the clusters' account (below)
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

# PostgreSQL refuses to run as root: when we are root, an ordinary account runs it, and another one the
# benchmark clusters of the host `local` (the worker reaches it with runuser, as root only).
ensure_run_user() {
  [ "$(id -u)" -ne 0 ] && return 0
  local user home
  for user in "$RUN_USER" "$CLUSTER_USER"; do
    if ! id "$user" >/dev/null 2>&1; then
      say "creating the unprivileged user $user"
      useradd --system --create-home --shell /bin/bash "$user"
    fi
    # The clusters' work dir is made in the home (register_local), which must be there.
    home="$(getent passwd "$user" | cut -d: -f6)"
    [ -d "$home" ] || install -d -m 700 -o "$user" -g "$(id -gn "$user")" "$home"
  done
}

# make run's worker runs as RUN_USER and reaches the clusters' account of the host `local` with `sudo -n -u`: this
# rule lets RUN_USER act as that one account, and as no other (docs/SECURITY.md).
SUDO_RULE=/etc/sudoers.d/benchdash
ensure_cluster_sudo_rule() {
  [ "$(id -u)" -eq 0 ] || return 0
  if ! command -v visudo >/dev/null; then
    say "WARNING: no sudo: a worker that is not root runs the clusters of local as its own account"
    return 0
  fi
  local rule="$RUN_USER ALL=($CLUSTER_USER) NOPASSWD: ALL"
  [ "$(cat "$SUDO_RULE" 2>/dev/null)" = "$rule" ] && return 0
  (umask 337 && printf '%s\n' "$rule" >"$SUDO_RULE.new")
  visudo -cqf "$SUDO_RULE.new" || die "the sudo rule for $CLUSTER_USER does not parse"
  mv "$SUDO_RULE.new" "$SUDO_RULE"
}

as_run_user() {
  if [ "$(id -u)" -eq 0 ]; then runuser -u "$RUN_USER" -- "$@"; else "$@"; fi
}

# As root, a .venv made from a Python under /root (pyenv) could not be run by the run user, and web, worker and beat
# would stay root (deploy/as-run-user.sh): take the system's Python when it is recent enough.
venv_python() {
  if [ "$(id -u)" -eq 0 ] && /usr/bin/python3 -c 'import sys, venv, ensurepip; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
    echo /usr/bin/python3
  else
    echo python3
  fi
}

ensure_venv() {
  local stamp=".venv/.requirements.sha256" want
  want="$(sha256sum requirements.txt | cut -d' ' -f1)"
  [ -x "$PY" ] || { say "creating .venv"; "$(venv_python)" -m venv .venv; }
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

# A 0600 file in SECRETS holding a generated password, made once; prints its path.
ensure_secret() {
  local file="$SECRETS/$1"
  if [ ! -s "$file" ]; then
    (umask 077 && mkdir -p "$SECRETS" && tr -dc 'A-Za-z0-9' </dev/urandom | head -c 32 >"$file")
  fi
  chmod 700 "$SECRETS" && chmod 600 "$file"
  [ "$(id -u)" -eq 0 ] && chown -R "$RUN_USER" "$SECRETS"
  echo "$file"
}

# The store's pg_hba.conf: the password for every connection (it has no unix socket), nothing trusted.
STORE_HBA='# written by benchdash (deploy/lib.sh): every connection gives the password
host all benchdash 127.0.0.1/32 scram-sha-256
host all benchdash ::1/128 scram-sha-256'

store_psql() {
  PGPASSFILE=/dev/null PGPASSWORD="$(cat "$SECRETS/store-password")" \
    "$1/psql" -X -h 127.0.0.1 -p "$PG_PORT" -U benchdash -d postgres "${@:2}"
}

ensure_store() {
  if [ -n "${DATABASE_URL:-}" ]; then
    say "using the store at DATABASE_URL"
    return 0
  fi
  local bindir data password
  bindir="$(pg_bindir)" || die "no PostgreSQL server found (apt-get install postgresql)"
  password="$(ensure_secret store-password)"
  data="$(pg_data_dir)"
  mkdir -p "$(dirname "$data")" "$VAR"
  [ "$(id -u)" -eq 0 ] && chown "$RUN_USER" "$(dirname "$data")"
  if [ ! -f "$data/PG_VERSION" ] && ! "$bindir/pg_isready" -q -h 127.0.0.1 -p "$PG_PORT"; then
    say "creating the store's PostgreSQL cluster in $data"
    as_run_user "$bindir/initdb" -D "$data" -U benchdash --auth-local=peer --auth-host=scram-sha-256 \
      --pwfile="$password" -E UTF8 --locale=C.UTF-8 >/dev/null
    as_run_user sh -c 'cat >"$1"' sh "$data/pg_hba.conf" <<<"$STORE_HBA"
  fi
  local started=0
  if [ -f "$data/PG_VERSION" ] && ! as_run_user "$bindir/pg_ctl" -D "$data" status >/dev/null 2>&1; then
    say "starting PostgreSQL on 127.0.0.1:$PG_PORT"
    as_run_user "$bindir/pg_ctl" -D "$data" -l "$data/../postgresql.log" -w -t 60 \
      -o "-p $PG_PORT -c listen_addresses=127.0.0.1 -c unix_socket_directories='' -c max_connections=200" \
      start >/dev/null
    started=1
  fi
  secure_trusting_store "$bindir" "$data" "$started"
  ensure_store_database "$bindir"
}

# A store that an earlier set-up made with `initdb -A trust`: give benchdash the password, then make
# pg_hba.conf ask for it. Done when this set-up started the store, or when asked (`deploy/setup.sh secure`):
# a store that was already running may serve clients that know no password yet.
secure_trusting_store() {
  local bindir="$1" data="$2" started="$3"
  [ -f "$data/pg_hba.conf" ] && as_run_user grep -Eq '^[^#]*[[:space:]]trust([[:space:]]|$)' "$data/pg_hba.conf" ||
    return 0
  if [ "$started" != 1 ] && [ "${SECURE_NOW:-}" != 1 ]; then
    say "WARNING: the store in $data trusts every local account; \`deploy/setup.sh secure\` gives it a password"
    return 0
  fi
  say "the store in $data trusted every local account: setting its password and asking for it"
  # The statement goes on stdin, never on a command line that ps shows.
  printf "SET password_encryption = 'scram-sha-256';\nALTER ROLE benchdash PASSWORD '%s';\n" \
    "$(cat "$SECRETS/store-password")" |
    store_psql "$bindir" -q -v ON_ERROR_STOP=1 -f - ||
    die "could not set the store's password"
  as_run_user sh -c 'cat >"$1"' sh "$data/pg_hba.conf" <<<"$STORE_HBA"
  as_run_user "$bindir/pg_ctl" -D "$data" reload >/dev/null
}

ensure_store_database() {
  store_psql "$1" -tAc "SELECT 1 FROM pg_database WHERE datname = 'benchdash'" | grep -q 1 ||
    store_psql "$1" -qc "CREATE DATABASE benchdash"
}

# redis-cli with the broker's password from the environment (REDISCLI_AUTH), never on its command line.
broker_cli() {
  REDISCLI_AUTH="$(cat "$SECRETS/redis-password" 2>/dev/null)" redis-cli -p "$REDIS_PORT" "$@"
}

ensure_broker() {
  if [ -n "${REDIS_URL:-}" ]; then
    say "using the broker at REDIS_URL"
    return 0
  fi
  mkdir -p "$VAR/redis"
  [ "$(id -u)" -eq 0 ] && chown -R "$RUN_USER" "$VAR/redis"
  if [ "$(redis-cli -p "$REDIS_PORT" ping 2>/dev/null)" = PONG ]; then
    secure_open_broker
  elif [ "$(broker_cli ping 2>/dev/null)" != PONG ]; then
    say "starting Redis on 127.0.0.1:$REDIS_PORT"
    as_run_user redis-server "$(write_broker_conf)" --port "$REDIS_PORT" --bind 127.0.0.1 --daemonize yes \
      --dir "$VAR/redis" --pidfile "$VAR/redis/redis.pid" --logfile "$VAR/redis/redis.log" \
      --appendonly yes --save "" >/dev/null
    for _ in $(seq 50); do [ "$(broker_cli ping 2>/dev/null)" = PONG ] && break; sleep 0.1; done
  fi
}

# The password reaches redis-server in a 0600 config file, not on its command line; prints the file's path.
write_broker_conf() {
  local password conf="$SECRETS/redis.conf"
  password="$(ensure_secret redis-password)"
  (umask 077 && printf 'requirepass %s\n' "$(cat "$password")" >"$conf")
  [ "$(id -u)" -eq 0 ] && chown "$RUN_USER" "$conf"
  echo "$conf"
}

# A Redis an earlier set-up started without a password is given one when asked (`deploy/setup.sh secure`): it
# may serve clients that know no password yet. Until then no password file is written either, since settings.py
# would put it in REDIS_URL and such a Redis refuses a client that gives one.
secure_open_broker() {
  if [ "${SECURE_NOW:-}" != 1 ]; then
    say "WARNING: Redis on port $REDIS_PORT answers every local account; \`deploy/setup.sh secure\` closes it"
    return 0
  fi
  say "Redis on port $REDIS_PORT answered without a password: it asks for one now"
  write_broker_conf >/dev/null
  printf 'CONFIG SET requirepass %s\n' "$(cat "$SECRETS/redis-password")" | redis-cli -p "$REDIS_PORT" >/dev/null
}

# Under `make run` the web server, the worker and beat run as RUN_USER (deploy/as-run-user.sh): they write var/
# (beat's schedule), var/media (raw trial files) and read var/secrets (settings.py's generated SECRET_KEY) and
# var/ssh (the keys the worker reaches targets with). What root made there before is handed over.
ensure_var_for_run_user() {
  [ "$(id -u)" -eq 0 ] || return 0
  mkdir -p "$VAR/secrets" "$VAR/media" "$VAR/ssh"
  chmod 700 "$VAR/secrets" "$VAR/ssh"
  chown "$RUN_USER" "$VAR"
  chown -R "$RUN_USER" "$VAR/secrets" "$VAR/media" "$VAR/ssh" "$VAR"/celerybeat-schedule* 2>/dev/null || true
}

prepare_app() {
  ensure_var_for_run_user
  say "migrating and loading presets"
  "$PY" manage.py migrate --noinput -v 0
  "$PY" manage.py load_presets
  "$PY" manage.py register_local
  # what whitenoise serves when DEBUG is off (var/staticfiles); only changed files are copied again
  "$PY" manage.py collectstatic --noinput -v 0
}

stop_services() {
  local bindir data
  bindir="$(pg_bindir)" && data="$(pg_data_dir)" && [ -f "$data/PG_VERSION" ] &&
    as_run_user "$bindir/pg_ctl" -D "$data" -m fast stop >/dev/null 2>&1 && say "PostgreSQL stopped"
  broker_cli shutdown nosave >/dev/null 2>&1 && say "Redis stopped"
  return 0
}
