# Functions for deploy/setup.sh. Every one is idempotent.

PG_PORT="${BENCHDASH_PG_PORT:-54329}"
REDIS_PORT="${BENCHDASH_REDIS_PORT:-63799}"
# As root: the store's PostgreSQL and Redis run as RUN_USER, the benchmark clusters of the host `local` as
# CLUSTER_USER, an account that can read none of the app's secrets (docs/SECURITY.md).
RUN_USER="${BENCHDASH_STORE_USER:-benchdash}"
CLUSTER_USER="${BENCHDASH_LOCAL_USER:-benchdash-clusters}"
VAR="${BENCHDASH_VAR_DIR:-$ROOT/var}"
# The generated passwords, 0600 files in a 0700 directory of var/'s owner (git-ignored var/): store-password the app's
# role's, admin-password the store's superuser's (set-up's alone), redis-password Redis's; benchdash/settings.py reads
# store-password and redis-password into the default DATABASE_URL and REDIS_URL.
SECRETS="${BENCHDASH_SECRETS_DIR:-$VAR/secrets}"
MEDIA="${BENCHDASH_MEDIA_ROOT:-$VAR/media}"
# The store's roles: the app's owns the app's databases and is no superuser (settings.py's default DATABASE_URL
# names it); the superuser (initdb's) serves set-up alone.
APP_ROLE=benchdash_app
ADMIN_ROLE=benchdash
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
  # the report PDF embeds a Japanese font (benchdash/reports/pdf.py); the browser draws Japanese pages with it too
  [ -f /usr/share/fonts/opentype/ipaexfont-gothic/ipaexg.ttf ] || missing+=(fonts-ipaexfont-gothic)
  command -v pdftoppm >/dev/null || missing+=(poppler-utils)  # tests/reports/ turn the report's PDF pages into PNG
  { command -v runuser && command -v setpriv; } >/dev/null || missing+=(util-linux)  # setpriv: a root worker on local
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
  wait_for_apt_locks "${APT_LOCKS[@]}"
  apt-get update -qq -o DPkg::Lock::Timeout="$APT_LOCK_WAIT_S"
  wait_for_apt_locks "${APT_LOCKS[@]}"
  # shellcheck disable=SC2086
  apt-get install -y -qq --no-install-recommends -o DPkg::Lock::Timeout="$APT_LOCK_WAIT_S" $missing >/dev/null
  # Debian starts a cluster and sshd on install; benchdash runs its own, on its own ports.
}

# apt's and dpkg's locks, which another program (unattended-upgrades, apt in another shell) may hold for minutes: set-up
# waits for them, saying who holds them, rather than fail at once. apt's own timeout covers the moment after the wait.
APT_LOCKS=(/var/lib/dpkg/lock-frontend /var/lib/dpkg/lock /var/lib/apt/lists/lock /var/cache/apt/archives/lock)
APT_LOCK_WAIT_S=600

wait_for_apt_locks() {
  local holder shown="" waited=0
  while holder="$(lock_holder "$@")" && [ -n "$holder" ]; do
    [ "$waited" -ge "$APT_LOCK_WAIT_S" ] &&
      die "the apt/dpkg lock is still held by PID $holder after $APT_LOCK_WAIT_S s: let it finish, then run set-up again"
    [ "$holder" = "$shown" ] ||
      say "waiting for the apt/dpkg lock held by PID $holder ($(cat "/proc/$holder/comm" 2>/dev/null || echo gone))"
    shown="$holder"
    sleep 1
    waited=$((waited + 1))
  done
}

# The pid of a process holding a POSIX lock (apt's and dpkg's kind) on one of the files, from /proc/locks; nothing when
# none is held.
lock_holder() {
  local file dev inode holder
  for file in "$@"; do
    read -r dev inode < <(stat -c '%D %i' "$file" 2>/dev/null) || continue
    # /proc/locks names a file major:minor:inode, in hex but the inode; "->" marks a waiter, not a holder.
    holder="$(awk -v id="$(printf '%02x:%02x:%s' $((16#$dev >> 8)) $((16#$dev & 255)) "$inode")" \
      '$2 != "->" && $6 == id && $5 > 0 { print $5; exit }' /proc/locks)"
    [ -n "$holder" ] && { echo "$holder"; return 0; }
  done
  return 0
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
# rule lets RUN_USER act as that one account, and as no other (docs/SECURITY.md). One file per pair of accounts, so
# that checkouts with other accounts on this machine keep theirs; sudo skips names with '.' or '~'.
OLD_SUDO_RULE=/etc/sudoers.d/benchdash
sudo_rule_file() {
  echo "/etc/sudoers.d/benchdash-$(printf '%s-%s' "$RUN_USER" "$CLUSTER_USER" | tr -c 'A-Za-z0-9_-' '_')"
}

ensure_cluster_sudo_rule() {
  [ "$(id -u)" -eq 0 ] || return 0
  if ! command -v visudo >/dev/null; then
    say "WARNING: no sudo: a worker that is not root runs the clusters of local as its own account"
    return 0
  fi
  local rule="$RUN_USER ALL=($CLUSTER_USER) NOPASSWD: ALL" file
  file="$(sudo_rule_file)"
  if [ "$(cat "$file" 2>/dev/null)" != "$rule" ]; then
    (umask 337 && printf '%s\n' "$rule" >"$file.new")
    visudo -cqf "$file.new" || { rm -f "$file.new"; die "the sudo rule for $CLUSTER_USER does not parse"; }
    mv "$file.new" "$file"
  fi
  # The one file that older set-ups shared: gone once it holds this rule alone (now in its own file).
  if [ "$(cat "$OLD_SUDO_RULE" 2>/dev/null)" = "$rule" ]; then rm -f "$OLD_SUDO_RULE"; fi
}

# A calibration slows the server of `local` with a CPU quota (workers/cpu_quota.py): the clusters' account needs a
# cgroup of its own, which only root can delegate. The engine's own layout check writes the command, so this step and
# the one docs/SETUP.md gives for other targets are the same.
ensure_cluster_cgroup() {
  [ "$(id -u)" -eq 0 ] || return 0
  local script
  script="$(.venv/bin/python -c 'import sys; from pathlib import Path; from workers.cpu_quota import cgroup_layout
layout = cgroup_layout(Path("/proc/self/mountinfo").read_text())
print(layout.delegation_script(sys.argv[1]) if layout else "")' "$CLUSTER_USER")"
  if [ -z "$script" ]; then
    say "WARNING: no cgroup file system: calibration cannot slow the server of local"
    return 0
  fi
  sh -c "$script" || say "WARNING: could not delegate a cgroup to $CLUSTER_USER: calibration on local will refuse"
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

# The lock a set-up installs (CONTRIBUTING.md, "Dependencies"): `make test`'s is the development lock, production's
# packages at the versions of its lock plus the test and lint tools; `make run` and a deployment get production's alone.
venv_lock() {
  if [ "$1" = test ]; then echo requirements-dev.txt; else echo requirements.txt; fi
}

# The stamp is sha256sum's line for the lock that .venv holds, naming it: a .venv made from the development lock
# serves `make run` as it is (it holds all of production's lock), one made from production's lock gets the tools the
# first time `make test` asks for them, and a lock that changed since is installed again.
venv_holds() {
  local lock
  for lock in "$@"; do
    [ "$(cat .venv/.requirements.sha256 2>/dev/null)" = "$(sha256sum "$lock")" ] && return 0
  done
  return 1
}

# uv's entry in a lock, its hashes with it: what pip installs, hash-checked, into a .venv that has no uv yet.
lock_entry_of_uv() {
  awk '/^[^ #]/ { on = /^uv==/ } on && !/#/' "$1"
}

ensure_venv() {
  local lock="$1"
  [ -x "$PY" ] || { say "creating .venv"; "$(venv_python)" -m venv .venv; }
  venv_holds "$lock" requirements-dev.txt && return 0
  say "installing $lock into .venv"
  # pip brings uv (pinned in the lock), which installs the rest in a fraction of pip's time (docs/TESTS.md), its
  # wheels unpacked and compiled on every core. Every file either installs must match one of the lock's hashes. sync
  # leaves .venv holding the lock and nothing else (but pip: uv keeps the seed packages of a venv it did not make).
  [ -x .venv/bin/uv ] ||
    .venv/bin/pip install -q --disable-pip-version-check --require-hashes -r <(lock_entry_of_uv "$lock")
  .venv/bin/uv pip sync -q --python .venv/bin/python --compile-bytecode --require-hashes "$lock"
  sha256sum "$lock" > .venv/.requirements.sha256
}

# --- Who keeps var/ ---------------------------------------------------------------------------------------------
# As root, var/ is RUN_USER's when RUN_USER can enter the directory that holds it. Root then acts in it only as
# RUN_USER (as_var_owner), so that a link RUN_USER planted there leads root nowhere. In a checkout RUN_USER cannot
# enter (a clone under /root, a `mktemp -d`), nobody else reaches var/: root keeps it, and the store's and Redis's
# files go to /var/lib/benchdash/<checkout id>/, where RUN_USER (their account) reaches them.
var_is_run_users() {
  if [ -z "${VAR_OWNER_CHECKED:-}" ]; then
    VAR_OWNER_CHECKED=root
    if [ "$(id -u)" -ne 0 ] || runuser -u "$RUN_USER" -- test -x "$(dirname "$VAR")" 2>/dev/null; then
      VAR_OWNER_CHECKED=run-user
    fi
  fi
  [ "$VAR_OWNER_CHECKED" = run-user ]
}

as_var_owner() {
  if var_is_run_users; then as_run_user "$@"; else "$@"; fi
}

var_owner() {
  if [ "$(id -u)" -ne 0 ]; then id -un; elif var_is_run_users; then echo "$RUN_USER"; else echo root; fi
}

# Stops set-up (or $3, what made path), with what to do, when path is a link or belongs to another account than the
# one it was made for.
refuse_foreign() {
  local path="$1" owner="$2" maker="${3:-set-up}"
  [ -L "$path" ] && die "$path is a link, not what $maker made there: remove it, then run $maker again"
  [ -e "$path" ] && [ "$(stat -c %U "$path")" != "$owner" ] &&
    die "$path belongs to $(stat -c %U "$path"), not $owner as $maker made it: remove it, then run $maker again"
  return 0
}

# /var/lib/benchdash/<checkout id>: the store's and Redis's files when RUN_USER cannot enter the checkout.
outside_dir() {
  local key="$ROOT"
  [ -n "${BENCHDASH_VAR_DIR:-}" ] && key="$VAR"
  echo "/var/lib/benchdash/$(printf %s "$key" | sha256sum | cut -c1-12)"
}

# Where the store's data (pg/, postgresql.log) and Redis's files (redis/) live.
services_dir() {
  if var_is_run_users; then echo "$VAR"; else outside_dir; fi
}

pg_data_dir() {
  echo "$(services_dir)/pg"
}

# services_dir() made and RUN_USER's; as RUN_USER inside var/, as root (who owns the parent) outside it.
ensure_services_dir() {
  local dir
  dir="$(services_dir)"
  var_is_run_users && return 0
  refuse_foreign /var/lib/benchdash root
  mkdir -p -m 755 /var/lib/benchdash
  refuse_foreign "$dir" "$RUN_USER"
  [ -d "$dir" ] || install -d -m 700 -o "$RUN_USER" "$dir"
}

# var/ itself: made by root where only root may write (the checkout), never followed through a link, handed to
# its owner. What root made inside it before (older set-ups, a root run) is handed over too; only root-owned
# entries, never through a link (find -execdir, chown -h), and only while the kernel refuses hard links to others'
# files (fs.protected_hardlinks), which would make a root-owned file in RUN_USER's directory RUN_USER's to plant.
ensure_var() {
  local owner
  owner="$(var_owner)"
  [ -L "$VAR" ] && die "$VAR is a link, not the directory set-up made: remove it, then run set-up again"
  [ -d "$VAR" ] || install -d -m 700 "$VAR"
  [ "$(id -u)" -eq 0 ] || return 0
  if [ "$owner" = root ]; then
    # An earlier set-up handed this var/ to RUN_USER, who cannot reach it now: it is root's again.
    find "$VAR" -xdev ! -user root -execdir chown -h root {} +
    return 0
  fi
  case "$(stat -c %U "$VAR")" in
    root) chown -h "$owner" "$VAR" ;;
    "$owner") ;;
    *) die "$VAR belongs to $(stat -c %U "$VAR"), not $owner: remove it or set BENCHDASH_STORE_USER to its owner" ;;
  esac
  if [ "$(cat /proc/sys/fs/protected_hardlinks 2>/dev/null)" = 1 ]; then
    find "$VAR" -xdev -mindepth 1 -user root ! -type l -execdir chown -h "$owner" {} +
  fi
}

# Under `make run` the web server, the worker and beat run as RUN_USER (deploy/as-run-user.sh): they write var/
# (beat's schedule), MEDIA (raw trial files, var/media unless BENCHDASH_MEDIA_ROOT says) and read var/secrets
# (settings.py's SECRET_KEY, the passwords) and var/ssh (the keys the worker reaches targets with).
ensure_var_dirs() {
  local dir
  for dir in "$SECRETS" "$VAR/ssh" "$MEDIA"; do refuse_foreign "$dir" "$(var_owner)"; done
  as_var_owner sh -c 'umask 077 && mkdir -p "$1" "$2" && chmod 700 "$1" "$2" && mkdir -p "$3"' sh \
    "$SECRETS" "$VAR/ssh" "$MEDIA" || die "could not make $SECRETS, $VAR/ssh and $MEDIA as $(var_owner)"
}

# --- Secrets ------------------------------------------------------------------------------------------------------
# A 0600 file in SECRETS holding a generated password (of length $2, 32 by default), made once by the owner of var/,
# written to a new file and renamed into place.
ensure_secret() {
  local file="$SECRETS/$1"
  refuse_foreign "$file" "$(var_owner)"
  as_var_owner sh -c 'umask 077
    [ -s "$1" ] || { tr -dc A-Za-z0-9 </dev/urandom | head -c "$2" >"$1.new" && mv -f "$1.new" "$1"; }
    chmod 600 "$1"' sh "$file" "${2:-32}" || die "could not write $file as $(var_owner)"
}

# The secret in SECRETS/name, read as the owner of var/: root reads nothing that a link there points at.
read_secret() {
  refuse_foreign "$SECRETS/$1" "$(var_owner)"
  as_var_owner cat -- "$SECRETS/$1"
}

# --- The store ----------------------------------------------------------------------------------------------------
# The store's pg_hba.conf: the password for every connection (it has no unix socket), nothing trusted.
STORE_HBA="# written by benchdash (deploy/lib.sh): every connection gives the password
host all $ADMIN_ROLE,$APP_ROLE 127.0.0.1/32 scram-sha-256
host all $ADMIN_ROLE,$APP_ROLE ::1/128 scram-sha-256"

# psql as the store's superuser, set-up's own way in (bindir, then psql's arguments).
store_psql() {
  PGPASSFILE=/dev/null PGPASSWORD="$(read_secret admin-password)" \
    "$1/psql" -X -h 127.0.0.1 -p "$PG_PORT" -U "$ADMIN_ROLE" -d postgres "${@:2}"
}

ensure_store() {
  if [ -n "${DATABASE_URL:-}" ]; then
    say "using the store at DATABASE_URL"
    return 0
  fi
  local bindir data
  bindir="$(pg_bindir)" || die "no PostgreSQL server found (apt-get install postgresql)"
  data="$(pg_data_dir)"
  ensure_services_dir
  keep_old_superuser_password "$data"
  ensure_secret admin-password
  ensure_secret store-password
  if [ ! -f "$data/PG_VERSION" ] && ! "$bindir/pg_isready" -q -h 127.0.0.1 -p "$PG_PORT"; then
    say "creating the store's PostgreSQL cluster in $data"
    # The password reaches initdb through a pipe of the store's account (one of root's it could not open).
    read_secret admin-password | as_run_user sh -c 'cat | "$0" "$@"' "$bindir/initdb" -D "$data" \
      -U "$ADMIN_ROLE" --auth-local=peer --auth-host=scram-sha-256 --pwfile=/dev/stdin -E UTF8 --locale=C.UTF-8 \
      >/dev/null
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
  secure_trusting_store "$bindir" "$data" "$started" || ensure_store_hba "$bindir" "$data"
  ensure_app_role "$bindir"
  ensure_store_database "$bindir"
}

# An earlier set-up's store has one role, the superuser, opened by store-password: that file becomes admin-password
# (renamed by its owner), and store-password is generated again, for the app's role.
keep_old_superuser_password() {
  local data="$1"
  [ -f "$data/PG_VERSION" ] && [ ! -e "$SECRETS/admin-password" ] && [ -s "$SECRETS/store-password" ] || return 0
  say "the store's superuser keeps its password in admin-password; the app gets a role of its own ($APP_ROLE)"
  refuse_foreign "$SECRETS/store-password" "$(var_owner)"
  as_var_owner mv -n -- "$SECRETS/store-password" "$SECRETS/admin-password"
}

# A store that an earlier set-up made with `initdb -A trust`: give the superuser its password, then make
# pg_hba.conf ask for it. Done when this set-up started the store, or when asked (`deploy/setup.sh secure`):
# a store that was already running may serve clients that know no password yet. Fails when the store trusts nobody.
secure_trusting_store() {
  local bindir="$1" data="$2" started="$3"
  [ -f "$data/pg_hba.conf" ] && as_run_user grep -Eq '^[^#]*[[:space:]]trust([[:space:]]|$)' "$data/pg_hba.conf" ||
    return 1
  if [ "$started" != 1 ] && [ "${SECURE_NOW:-}" != 1 ]; then
    say "WARNING: the store in $data trusts every local account; \`deploy/setup.sh secure\` gives it a password"
    return 0
  fi
  say "the store in $data trusted every local account: setting its password and asking for it"
  # The statement goes on stdin, never on a command line that ps shows.
  printf "SET password_encryption = 'scram-sha-256';\nALTER ROLE %s PASSWORD '%s';\n" \
    "$ADMIN_ROLE" "$(read_secret admin-password)" |
    store_psql "$bindir" -q -v ON_ERROR_STOP=1 -f - ||
    die "could not set the store's password"
  write_store_hba "$bindir" "$data"
}

# pg_hba.conf as STORE_HBA says, written again when an earlier set-up's names only the superuser.
ensure_store_hba() {
  [ -f "$2/pg_hba.conf" ] && [ "$(as_run_user cat "$2/pg_hba.conf")" != "$STORE_HBA" ] || return 0
  write_store_hba "$@"
}

write_store_hba() {
  local bindir="$1" data="$2"
  as_run_user sh -c 'cat >"$1.new" && mv -f "$1.new" "$1"' sh "$data/pg_hba.conf" <<<"$STORE_HBA"
  as_run_user "$bindir/pg_ctl" -D "$data" reload >/dev/null
  for _ in $(seq 50); do store_psql "$bindir" -qtAc 'SELECT 1' >/dev/null 2>&1 && return 0; sleep 0.1; done
}

# The app's role: it logs in with store-password and may create databases (pytest-django's test_benchdash*), no more:
# no superuser, so no COPY ... TO PROGRAM, no pg_read_server_files, no extensions but trusted ones.
ensure_app_role() {
  store_psql "$1" -tAc "SELECT 1 FROM pg_roles WHERE rolname = '$APP_ROLE'" | grep -q 1 ||
    store_psql "$1" -qc "CREATE ROLE $APP_ROLE LOGIN CREATEDB NOSUPERUSER NOCREATEROLE NOREPLICATION" ||
    die "could not create the store's role $APP_ROLE"
  # The password goes on stdin, never on a command line that ps shows.
  printf "SET password_encryption = 'scram-sha-256';\nALTER ROLE %s LOGIN CREATEDB NOSUPERUSER PASSWORD '%s';\n" \
    "$APP_ROLE" "$(read_secret store-password)" |
    store_psql "$1" -q -v ON_ERROR_STOP=1 -f - || die "could not give $APP_ROLE its password"
}

# Hands what the superuser owns in one database (schemas, tables, views, sequences that no column owns,
# functions, enum and range types) to the app's role: REASSIGN OWNED fails for initdb's role, which owns the system's objects.
HAND_OVER_SQL="DO \$\$
DECLARE item record;
BEGIN
  FOR item IN SELECT format('ALTER SCHEMA %I OWNER TO $APP_ROLE', nspname) AS sql FROM pg_namespace
      WHERE nspowner = '$ADMIN_ROLE'::regrole AND nspname NOT LIKE 'pg\\_%' AND nspname <> 'information_schema'
    UNION ALL SELECT format('ALTER TABLE %s OWNER TO $APP_ROLE', c.oid::regclass) FROM pg_class c
      JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE c.relowner = '$ADMIN_ROLE'::regrole AND n.nspname NOT LIKE 'pg\\_%' AND n.nspname <> 'information_schema'
        AND (c.relkind IN ('r', 'p', 'v') OR c.relkind = 'S' AND NOT EXISTS (
          SELECT 1 FROM pg_depend d WHERE d.objid = c.oid AND d.classid = 'pg_class'::regclass
            AND d.refclassid = 'pg_class'::regclass AND d.deptype IN ('a', 'i')))
    UNION ALL SELECT format('ALTER ROUTINE %s OWNER TO $APP_ROLE', p.oid::regprocedure) FROM pg_proc p
      JOIN pg_namespace n ON n.oid = p.pronamespace
      WHERE p.proowner = '$ADMIN_ROLE'::regrole AND n.nspname NOT LIKE 'pg\\_%' AND n.nspname <> 'information_schema'
    UNION ALL SELECT format('ALTER TYPE %s OWNER TO $APP_ROLE', t.oid::regtype) FROM pg_type t
      JOIN pg_namespace n ON n.oid = t.typnamespace
      WHERE t.typowner = '$ADMIN_ROLE'::regrole AND t.typtype IN ('e', 'r')
        AND n.nspname NOT LIKE 'pg\\_%' AND n.nspname <> 'information_schema'
  LOOP
    EXECUTE item.sql;
  END LOOP;
END \$\$;"

# The database benchdash, the app role's. An earlier set-up's databases (the superuser's) are handed over whole.
ensure_store_database() {
  local bindir="$1" name
  store_psql "$bindir" -tAc "SELECT 1 FROM pg_database WHERE datname = 'benchdash'" | grep -q 1 ||
    store_psql "$bindir" -qc "CREATE DATABASE benchdash OWNER $APP_ROLE" || die "could not create the database"
  for name in $(store_psql "$bindir" -tAc "SELECT datname FROM pg_database WHERE NOT datistemplate
      AND datname <> 'postgres' AND datdba = '$ADMIN_ROLE'::regrole AND datname ~ '^[A-Za-z0-9_]+\$'"); do
    say "handing the database $name and everything in it to $APP_ROLE"
    store_psql "$bindir" -d "$name" -q -v ON_ERROR_STOP=1 -c "$HAND_OVER_SQL" \
      -c "ALTER DATABASE $name OWNER TO $APP_ROLE" || die "could not hand the database $name to $APP_ROLE"
  done
}

# --- The broker ---------------------------------------------------------------------------------------------------
# redis-cli with the broker's password from the environment (REDISCLI_AUTH), never on its command line.
broker_cli() {
  REDISCLI_AUTH="$(read_secret redis-password 2>/dev/null)" redis-cli -p "$REDIS_PORT" "$@"
}

ensure_broker() {
  if [ -n "${REDIS_URL:-}" ]; then
    say "using the broker at REDIS_URL"
    return 0
  fi
  local dir
  dir="$(services_dir)/redis"
  ensure_services_dir
  refuse_foreign "$dir" "$RUN_USER"
  as_run_user mkdir -p "$dir"
  if [ "$(redis-cli -p "$REDIS_PORT" ping 2>/dev/null)" = PONG ]; then
    secure_open_broker
  elif [ "$(broker_cli ping 2>/dev/null)" != PONG ]; then
    say "starting Redis on 127.0.0.1:$REDIS_PORT"
    ensure_secret redis-password
    # The password reaches redis-server on stdin (its configuration), not on its command line.
    printf 'requirepass %s\n' "$(read_secret redis-password)" |
      as_run_user redis-server - --port "$REDIS_PORT" --bind 127.0.0.1 --daemonize yes --dir "$dir" \
        --pidfile "$dir/redis.pid" --logfile "$dir/redis.log" --appendonly yes --save "" >/dev/null
    for _ in $(seq 50); do [ "$(broker_cli ping 2>/dev/null)" = PONG ] && break; sleep 0.1; done
  fi
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
  ensure_secret redis-password
  printf 'CONFIG SET requirepass %s\n' "$(read_secret redis-password)" | redis-cli -p "$REDIS_PORT" >/dev/null
}

# --- The app ------------------------------------------------------------------------------------------------------
# make run serves as RUN_USER, which must read the code: say so before anything else is done.
check_run_user_reads_checkout() {
  [ "$(id -u)" -eq 0 ] || return 0
  id "$RUN_USER" >/dev/null 2>&1 && ! runuser -u "$RUN_USER" -- test -r "$ROOT/manage.py" 2>/dev/null &&
    die "make run serves as $RUN_USER, who cannot read $ROOT: clone benchdash where every account may enter (e.g. under /srv), or run make run as an ordinary user"
  return 0
}

prepare_app() {
  say "migrating and loading presets"
  "$PY" manage.py migrate --noinput -v 0
  "$PY" manage.py load_presets
  "$PY" manage.py register_local
  # what whitenoise serves when DEBUG is off (var/staticfiles), written by var/'s owner; only changed files are
  # copied again
  refuse_foreign "$VAR/staticfiles" "$(var_owner)"
  as_var_owner "$PY" manage.py collectstatic --noinput -v 0
}

stop_services() {
  local bindir data
  bindir="$(pg_bindir)" && data="$(pg_data_dir)" && [ -f "$data/PG_VERSION" ] &&
    as_run_user "$bindir/pg_ctl" -D "$data" -m fast stop >/dev/null 2>&1 && say "PostgreSQL stopped"
  broker_cli shutdown nosave >/dev/null 2>&1 && say "Redis stopped"
  return 0
}
