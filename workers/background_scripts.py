"""The small POSIX sh scripts behind background commands, the same for SSH and local targets.

They are constants: every value reaches them as a positional argument ("$1"...), never pasted into
the script text, so a path or an argument cannot turn into shell code.

A background command <name> leaves in <run dir>:
  <name>.pid   "<process group id> <start time>" while it runs (removed when it ends or is stopped)
  <name>.out / <name>.err   its output
  <name>.rc    its exit status, once it ended on its own or after a signal it survived to report
"""

# Exit statuses of the scripts, chosen away from the ones sh and coreutils use.
STOP_NOTHING = 3  # nothing was running under that name
WAIT_GONE = 4  # the group is gone without reporting a status (killed)
WAIT_TIMED_OUT = 5

# A pid file outlives its group when the worker or the host died: by the time it is read, the number may be another
# process's, and the same user's (an sshd session, a cluster). So the file keeps the leader's start time, in clock
# ticks since boot (/proc/<pid>/stat, field 22): a leader that is there with another start time is not ours, and our
# group is gone (Linux reuses no number a group still holds). Sets $started, empty when the leader is not there.
_STARTED = r"""
start_time() {
  started=
  { read -r started < "/proc/$1/stat"; } 2>/dev/null || return 0
  started=${started##*) }
  set -- $started
  shift 19
  started=$1
}
"""

# "Alive" (group id, start time) means a process of the session that is not a zombie, led by the process that
# started it: on a target whose init does not reap orphans, `kill -0` alone would call a dead group alive forever.
# A file without a start time (written before it kept one) is taken on the number alone.
_ALIVE = (
    _STARTED
    + r"""
alive() {
  start_time "$1"
  if [ -n "$2" ] && [ -n "$started" ] && [ "$started" != "$2" ]; then return 1; fi
  if command -v ps >/dev/null 2>&1; then
    ps -o stat= --sid "$1" 2>/dev/null | grep -q '^ *[^Z ]'
  else
    kill -s 0 -- "-$1" 2>/dev/null
  fi
}
"""
)

# $1 run dir, $2 name, then the command. Runs as the session leader: its pid is the group id.
# The trap makes sh outlive a polite signal to the group, so it can still record the exit status.
WRAPPER = (
    _STARTED
    + r"""
run=$1 name=$2
shift 2
start_time $$
echo "$$ $started" > "$run/$name.pid.tmp" && mv -f "$run/$name.pid.tmp" "$run/$name.pid"
trap : INT TERM HUP
"$@"
status=$?
echo "$status" > "$run/$name.rc.tmp" && mv -f "$run/$name.rc.tmp" "$run/$name.rc"
rm -f "$run/$name.pid"
"""
)

# $1 wrapper script, $2 run dir, $3 name, $4 working directory or "", then the command.
LAUNCH = (
    _ALIVE
    + r"""
wrapper=$1 run=$2 name=$3 cwd=$4
shift 4
mkdir -p "$run" || exit 1
pgid= start=
{ read -r pgid start < "$run/$name.pid"; } 2>/dev/null
if [ -n "$pgid" ] && alive "$pgid" "$start"; then
  echo "background command $name is already running" >&2
  exit 1
fi
rm -f "$run/$name.pid" "$run/$name.rc" "$run/$name.out" "$run/$name.err"
if [ -n "$cwd" ]; then cd "$cwd" || exit 1; fi
setsid -f sh -c "$wrapper" sh "$run" "$name" "$@" </dev/null >"$run/$name.out" 2>"$run/$name.err"
i=0
while [ ! -s "$run/$name.pid" ] && [ ! -f "$run/$name.rc" ]; do
  i=$((i + 1))
  if [ "$i" -gt 1000 ]; then echo "background command $name did not start" >&2; exit 1; fi
  sleep 0.01
done
"""
)

# $1 run dir, $2 name, $3 signal name, $4 grace in tenths of a second.
STOP = (
    _ALIVE
    + r"""
run=$1 name=$2 sig=$3 ticks=$4
pidfile="$run/$name.pid"
[ -f "$pidfile" ] || exit 3
pgid= start=
read -r pgid start < "$pidfile"
case "$pgid$start" in ''|*[!0-9]*) rm -f "$pidfile"; exit 3 ;; esac
if ! alive "$pgid" "$start"; then rm -f "$pidfile"; exit 3; fi
kill -s "$sig" -- "-$pgid" 2>/dev/null
i=0
while alive "$pgid" "$start"; do
  if [ "$i" -ge "$ticks" ]; then
    kill -s KILL -- "-$pgid" 2>/dev/null
    [ "$i" -ge $((ticks + 50)) ] && break
  fi
  i=$((i + 1))
  sleep 0.1
done
rm -f "$pidfile"
exit 0
"""
)

# $1 run dir, $2 name: prints a line "<exit status, or - when there is none> <bytes of stdout>", then the command's
# stdout and its stderr. Two processes (wc and cat): the rest are the shell's own; a command that has ended no longer
# writes its outputs.
_OUTCOME = r"""
outcome() {
  rc=
  { read -r rc < "$1/$2.rc"; } 2>/dev/null
  : >> "$1/$2.out"; : >> "$1/$2.err"
  printf '%s %s\n' "${rc:--}" "$(($(wc -c < "$1/$2.out")))"
  cat -- "$1/$2.out" "$1/$2.err"
}
"""

# $1 run dir, $2 name, $3 limit in tenths of a second. Once the command has ended (exit 0) or its group is gone
# without a status (exit 4), prints its outcome (_OUTCOME): one command on the host, where the wait and the reading
# were two. Counts in fiftieths of a second: the first tenth looks every fiftieth, as most background commands are
# short (a server's start, a copy of small data) and each waited past its end delays its trial; then every tenth, so
# that a long wait (beside pgbench, on the host it measures) starts few processes.
WAIT = (
    _ALIVE
    + _OUTCOME
    + r"""
run=$1 name=$2 limit=$(($3 * 5))
waited=0 ended=0
while [ ! -f "$run/$name.rc" ]; do
  pgid= start=
  { read -r pgid start < "$run/$name.pid"; } 2>/dev/null
  # Every look one that starts no process (kill -0); alive's, which starts ps to tell zombies, on the first look and
  # every second.
  if [ -z "$pgid" ] || ! kill -s 0 -- "-$pgid" 2>/dev/null \
    || { [ $((waited % 50)) -eq 0 ] && ! alive "$pgid" "$start"; }; then
    [ -f "$run/$name.rc" ] || ended=4
    break
  fi
  [ "$waited" -ge "$limit" ] && exit 5
  if [ "$waited" -lt 5 ]; then waited=$((waited + 1)); sleep 0.02; else waited=$((waited + 5)); sleep 0.1; fi
done
outcome "$run" "$name"
exit "$ended"
"""
)

# $1 path, $2 octal mode; the content comes on stdin. The mode is set before the content arrives,
# so a secret (a cluster's password) is never readable by others, not even for a moment.
# The shell's own tests and expansions where they do: the local target runs this for every file it writes.
WRITE_FILE = r"""
umask 077
case $1 in */*) dir=${1%/*} ;; *) dir=. ;; esac
[ -d "${dir:-/}" ] || mkdir -p -- "$dir" || exit
: > "$1" && chmod "$2" "$1" && cat > "$1"
"""


# -- the fence: which attempt a host works for (transport_base.Fence) -------------------------------
FENCED = 86  # the exit status of a command refused by the fence
FENCED_MARK = b"benchdash-fenced:"

# $1 fence file, $2 token "<store>.<attempt id>". Takes the fence unless it names a later attempt of the
# same store (a token from another store, say a store made anew, cannot be compared: it is replaced).
# flock, where the host has it, keeps two takers from passing the check together.
FENCE_TAKE = r"""
fence=$1 token=$2
mkdir -p -- "$(dirname -- "$fence")" || exit 1
exec 9>>"$fence.lock" || exit 1
if command -v flock >/dev/null 2>&1; then flock 9 || exit 1; fi
held=
{ IFS= read -r held < "$fence"; } 2>/dev/null
if [ "${held%%.*}" = "${token%%.*}" ] && [ "${held#*.}" -gt "${token#*.}" ] 2>/dev/null; then
  echo "benchdash-fenced: $fence names attempt $held, later than $token" >&2
  exit 86
fi
printf '%s\n' "$token" > "$fence.tmp" && mv -f -- "$fence.tmp" "$fence"
"""

# $1 fence file, $2 token, then the command: run it only while the fence names this attempt. `read` is a
# shell builtin: the check costs no process, and `exec` leaves the command in sh's place.
FENCE_GUARD = r"""
held=
{ IFS= read -r held < "$1"; } 2>/dev/null
if [ "$held" != "$2" ]; then
  echo "benchdash-fenced: $1 names attempt ${held:-none}, not $2" >&2
  exit 86
fi
shift 2
exec "$@"
"""


# -- the host-wide lock: one installation's trial at a time on a shared target (workers/host_lock.py) -------------
# $1 lock file, $2 the installation's id, $3 seconds to wait for a holder to let go (0: none). Prints one line: "held"
# (the lock is this command's until its stdin ends: it then exits, and the lock goes with it, as with any end of the
# process), "busy <holder's id>" (another command holds it; the holder wrote its id in the file), or "unlocked" (no
# flock on the host: nothing is kept apart).
# The id is written through a second open: the lock belongs to fd 9's open file, which that does not touch.
HOST_LOCK = r"""
lock=$1 installation=$2 wait=$3
umask 077
mkdir -p -- "${lock%/*}" || exit 1
if ! command -v flock >/dev/null 2>&1; then echo unlocked; exit 0; fi
exec 9>>"$lock" || exit 1
if [ "$wait" -gt 0 ]; then set -- -w "$wait"; else set -- -n; fi
if ! flock "$@" 9; then
  holder= pid=
  { IFS=' ' read -r holder pid < "$lock"; } 2>/dev/null
  # Named only while the holder named there lives: a new holder has the lock a moment before it writes its name,
  # and what it finds there till then is the last holder's.
  case $pid in ''|*[!0-9]*) holder= ;; *) kill -0 "$pid" 2>/dev/null || holder= ;; esac
  echo "busy ${holder:-unknown}"
  exit 0
fi
printf '%s %s\n' "$installation" "$$" > "$lock"
echo held
exec cat > /dev/null
"""
