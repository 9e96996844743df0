"""A PostgreSQL cluster on a target: initdb, the study's settings, start and stop, pgbench -i, prewarm, snapshots.

Layout of <work_dir>/clusters/<build>-<scenario>-s<scale>-f<fillfactor>[<initdb options' tag>]/:
  data/        the data directory
  socket/      the server's unix socket, mode 0700: only the target's account can reach it (peer auth)
  password     the cluster superuser's password (0600), generated at initdb, for TCP clients (scram-sha-256)
  snapshot/    a copy of data/ taken right after pgbench -i with the server stopped (fast data reset)
  server.log   the server's log
  data.json    marker: which study, build, scenario, scale and fillfactor the data belongs to

Every command is an argument list run through the Transport; settings travel as file contents,
never through a shell. PostgreSQL runs as the target's user (LocalTransport: the unprivileged one).
No pg_hba.conf rule trusts anyone: the target's account connects over the private socket by peer
authentication, every TCP client (pgbench on a separate client host) with the cluster's password.
"""

import itertools
import json
import posixpath
import random
import secrets
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from workers.builds import InstalledBuild, find_client_tool
from workers.cpu_quota import CpuQuotaError, ServerCgroup
from workers.cpu_set import AFFINITY_SCRIPT, CpuSetError, cpu_list_text, escaped_processes, taskset_prefix
from workers.initdb_options import InitdbOptions, initdb_arguments, known_options
from workers.pg_conf import (
    ClusterError,
    RefusedSetting,
    ServerCannotStart,
    UnknownSetting,
    conf_lines,
    hba_lines,
    ident_lines,
    listening_ports,
    passfile_line,
    unknown_settings,
)
from workers.postmaster import pg_ctl_stop, postmaster_port, socket_dir_for
from workers.repeating_failure import REPEATS, repeating_cause
from workers.settings_catalog import PG_SETTINGS_SQL, SettingsCatalog, catalog_from_pg_settings
from workers.settings_rules import study_settings_refusals
from workers.transport import Transport
from workers.wal_dir import check_wal_dir, cluster_wal_dir

SUPERUSER = "postgres"
DBNAME = "postgres"
SETTINGS_FILE = "benchdash.conf"  # the study's postgresql.conf settings
SERVER_FILE = "benchdash-server.conf"  # port, addresses, socket, file locations: ours, read last so they win
MARKER_FILE = "data.json"
PASSWORD_FILE = "password"  # noqa: S105 (the file's name, not a password)
IDENT_MAP = "benchdash"
# The engine's own file last, and required: without it the server does not start on the study's say.
INCLUDE_BLOCK = f"\n# added by benchdash\ninclude_if_exists = '{SETTINGS_FILE}'\ninclude = '{SERVER_FILE}'\n"
PORT_RANGE = (20000, 60000)
# What the server writes to pg_ctl's log as it hands its output to the logging collector, and where the collector
# writes: the settings' rules hold log_directory to log/ or below it in the data directory (workers/settings_rules.py).
COLLECTOR_HAND_OVER = b"redirecting log output to logging collector process"
COLLECTOR_DIR = "log"
# $1: the collector's directory, $2: lines. The newest file below it, by modification time.
_COLLECTED_TAIL = (
    "newest=$(find \"$1\" -type f -printf '%T@ %p\\n' 2>/dev/null | sort -n | tail -n 1 | cut -d' ' -f2-)\n"
    '[ -z "$newest" ] || tail -n "$2" -- "$newest"'
)
START_ATTEMPTS = 3
# Before a start, in one command. $1 the socket directory: made, mode 0700, and ours (exit 3 when someone else made it
# or it is a link). $2 the data directory, $3 the include block, then pairs of a file's name there and its text: each
# file written 0600. Then the target's TCP tables, for the ports that listen; exit 4 when postgresql.conf no longer
# ends with the block.
_SERVER_FILES_SCRIPT = r"""
umask 077
socket=$1 data=$2 block=$3
shift 3
mkdir -p -- "$socket" && [ ! -L "$socket" ] && [ -O "$socket" ] && chmod 700 -- "$socket" || exit 3
while [ $# -ge 2 ]; do
  : > "$data/$1" && chmod 600 -- "$data/$1" && printf '%s' "$2" > "$data/$1" || exit
  shift 2
done
cat /proc/net/tcp /proc/net/tcp6 2>/dev/null
size=$(printf '%s' "$block" | wc -c)
[ "$(tail -c "$((size))" -- "$data/postgresql.conf")" = "$(printf '%s' "$block")" ] || exit 4
exit 0
"""
# $1 marker file, $2 data directory, $3 snapshot directory: the marker (nothing when there is none), NUL, then a line
# "data" and one "snapshot" for each of the two that holds a cluster.
_DATA_STATE_SCRIPT = r"""
cat -- "$1" 2>/dev/null
printf '\000'
[ -e "$2/PG_VERSION" ] && echo data
[ -e "$3/PG_VERSION" ] && echo snapshot
exit 0
"""
# $1 pg_ctl, $2 data directory, then file names: each file of the running server, NUL-terminated.
_RUNNING_SERVER_SCRIPT = r"""
pg_ctl=$1 data=$2
shift 2
"$pg_ctl" -D "$data" status >/dev/null 2>&1 || exit 3
for file in "$@"; do cat -- "$data/$file" || exit 4; printf '\000'; done
"""


def draw_port(busy: set[int]) -> int:
    """A port of PORT_RANGE not among busy, drawn at random."""
    rng = random.SystemRandom()
    while True:
        port = rng.randint(*PORT_RANGE)
        if port not in busy:
            return port


@dataclass(frozen=True)
class DataState:
    """What a cluster's directory holds: the marker of the data in it ({} when there is none or it cannot be read),
    and whether its data directory and its snapshot hold a cluster."""

    marker: dict
    has_data: bool
    has_snapshot: bool


class Cluster:
    """One data directory on a target and the server that runs on it."""

    def __init__(
        self,
        transport: Transport,
        installed: InstalledBuild,
        data_dir: str,
        port: int | None = None,
        *,
        listen_addresses: Iterable[str] = ("127.0.0.1",),
        client_addresses: Iterable[str] = (),
        initdb_options: InitdbOptions | None = None,
        cpus: Iterable[int] = (),
        cgroup: ServerCgroup | None = None,
    ) -> None:
        self.transport = transport
        self.installed = installed
        self.data_dir = data_dir.rstrip("/")
        self.port = port
        self.listen_addresses = list(dict.fromkeys(listen_addresses))
        self.client_addresses = list(client_addresses)
        self.initdb_options = initdb_options or InitdbOptions()
        # The CPU set the server runs in (workers/cpu_set.py); empty: every CPU of the host.
        self.cpus = list(cpus)
        # The cgroup the server starts in (workers/cpu_quota.py); None: the account's own.
        self.cgroup = cgroup
        self.cluster_dir = posixpath.dirname(self.data_dir)
        self.snapshot_dir = posixpath.join(self.cluster_dir, "snapshot")
        self.log_path = posixpath.join(self.cluster_dir, "server.log")
        self.socket_dir = socket_dir_for(self.cluster_dir)
        self.password_path = posixpath.join(self.cluster_dir, PASSWORD_FILE)
        self.user = SUPERUSER
        self.dbname = DBNAME
        self._setting_names: set[str] | None = None
        self._settings_text: str | None = None  # the study's settings, checked by configure, written at start
        self._tools: dict[str, str] = {}

    def __repr__(self) -> str:
        return f"Cluster({self.data_dir!r}, PostgreSQL {self.installed.version}, port={self.port})"

    # -- commands ---------------------------------------------------------------------------
    def _run(
        self, argv: list[str], *, timeout: float = 600, what: str, input_text: str | None = None, long: str = ""
    ) -> str:
        """long names a command that may take minutes: it runs so that a cancel can stop it (Transport.run_long)."""
        if long:
            result = self.transport.run_long(argv, name=long, timeout=timeout, check=False)
        else:
            data = input_text.encode() if input_text is not None else None
            result = self.transport.run(argv, timeout=timeout, check=False, input=data)
        if not result.ok:
            detail = (result.stderr or result.stdout).decode("utf-8", "replace").strip()[-2000:]
            raise ClusterError(f"{what} failed on {self.transport.host.name} ({self.data_dir}): {detail}")
        return result.text

    def _client_tool(self, name: str) -> str:
        if name not in self._tools:
            self._tools[name] = find_client_tool(self.transport, name, self.installed)
        return self._tools[name]

    def _connection_args(self) -> list[str]:
        if self.port is None:
            raise ClusterError(f"{self.data_dir}: the server has not been started")
        return ["-h", self.socket_dir, "-p", str(self.port), "-U", self.user]

    # -- lifecycle --------------------------------------------------------------------------
    def initdb(self) -> None:
        """A new, empty data directory (whatever was there is removed)."""
        self.stop()
        wal_args = self._wal_dir_args()
        self.transport.run_long(["rm", "-rf", self.data_dir, *wal_args[1:]], name="remove-data", timeout=3600)
        self.transport.run(["sh", "-c", 'umask 077 && mkdir -p -- "$1"', "sh", self.cluster_dir])
        # A new password for every new data directory; initdb reads it from the file, never from argv.
        self.transport.put_bytes(f"{secrets.token_urlsafe(24)}\n".encode(), self.password_path, mode=0o600)
        argv = [self.installed.tool("initdb"), "-D", self.data_dir, "-U", self.user, f"--pwfile={self.password_path}"]
        argv += ["--auth-local=peer", "--auth-host=scram-sha-256", *self._initdb_option_args(), *wal_args, "--no-sync"]
        self._run(argv, timeout=600, what="initdb", long="initdb")
        self.transport.put_bytes(b"", posixpath.join(self.data_dir, SETTINGS_FILE), mode=0o600)
        self._put_last("postgresql.conf", INCLUDE_BLOCK)
        os_user = self.transport.run(["id", "-un"], timeout=60).text.strip()
        ident = ident_lines(IDENT_MAP, os_user, self.user).encode()
        self.transport.put_bytes(ident, self._file("pg_ident.conf"), 0o600)

    def _wal_dir_args(self) -> list[str]:
        """initdb -X and the cluster's own WAL directory under the variant's, checked first (workers/wal_dir.py);
        none without one."""
        if not self.initdb_options.wal_dir:
            return []
        check_wal_dir(self.transport, self.initdb_options.wal_dir, self.data_dir)
        return ["-X", cluster_wal_dir(self.initdb_options.wal_dir, self.cluster_dir)]

    def _initdb_option_args(self) -> list[str]:
        """The variant's options as initdb arguments, checked against this build's `initdb --help` when it has any."""
        known: set[str] = set()
        if self.initdb_options != InitdbOptions():
            known = known_options(self._run([self.installed.tool("initdb"), "--help"], what="initdb --help"))
        return initdb_arguments(self.initdb_options, known)

    def _file(self, filename: str) -> str:
        return posixpath.join(self.data_dir, filename)

    def _put_last(self, filename: str, block: str) -> None:
        """The block as the file's last lines, moved there if anything was appended after it: in postgresql.conf
        a later line wins, so lines added at its end (a log written into it) would beat the engine's own."""
        path = self._file(filename)
        current = self.transport.get_bytes(path).decode("utf-8", "replace")
        wanted = current.replace(block, "").rstrip("\n") + "\n" + block
        if wanted != current:
            self.transport.put_bytes(wanted.encode(), path, mode=0o600)

    def setting_names(self) -> set[str]:
        """Every setting this server knows, from its own `postgres --describe-config`."""
        if self._setting_names is None:
            text = self._run([self.installed.tool("postgres"), "--describe-config"], what="postgres --describe-config")
            self._setting_names = {line.split("\t", 1)[0].lower() for line in text.splitlines() if line.strip()}
        return self._setting_names

    def configure(self, settings: Mapping[str, str]) -> None:
        """Take the study's settings for benchdash.conf (included from postgresql.conf), written as the server starts.

        The web side checked them before the study was queued; they are checked again here, whatever the
        store says: the never-allowed classes, this major's settings catalog, this build's describe-config.
        """
        refusals = study_settings_refusals(self.installed.major, settings)
        if refusals:
            raise RefusedSetting(
                f"benchdash refuses these settings for PostgreSQL {self.installed.version}: "
                + " ".join(str(refusal) for refusal in refusals)
            )
        unknown = unknown_settings(settings, self.setting_names()) if settings else []
        if unknown:
            raise UnknownSetting(
                f"PostgreSQL {self.installed.version} has no setting named {', '.join(map(repr, unknown))}; "
                f"check the spelling (postgres --describe-config lists them all)"
            )
        self._settings_text = conf_lines(settings)

    def _server_conf(self, port: int | None) -> str:
        """The settings that are the engine's alone: where the server listens and which files it reads.
        Included after the study's file, so they win over anything a study's file could say."""
        server = {
            "port": str(port),
            "listen_addresses": ",".join(self.listen_addresses),
            "unix_socket_directories": self.socket_dir,
            "data_directory": self.data_dir,
            "hba_file": posixpath.join(self.data_dir, "pg_hba.conf"),
            "ident_file": posixpath.join(self.data_dir, "pg_ident.conf"),
            "external_pid_file": "",
        }
        # The CPU set is part of what a kept server must match to be taken over (take_over compares this file).
        cpu_set = f"# CPU set: {cpu_list_text(self.cpus)}\n" if self.cpus else ""
        cgroup = f"# cgroup: {self.cgroup.dirs.quota_dir}\n" if self.cgroup else ""
        return conf_lines(server) + cpu_set + cgroup

    def _write_server_files(self, avoid: set[int]) -> int:
        """The server's files written for a start on self.port, or on a port no server listens on when it has none
        (set, and returned); one command, a second only when the port drawn turned out to be taken."""
        if self.port is not None:
            self._put_server_files()
            return self.port
        port = self.port = draw_port(avoid)
        listening = self._put_server_files()
        if port in listening:
            port = self.port = draw_port(avoid | listening)
            self._put_server_files()
        return port

    def _put_server_files(self) -> set[int]:
        """The socket directory made private; the study's settings (once configured), the engine's file and
        pg_hba.conf written, with the include block kept last in postgresql.conf; the ports that listen there."""
        files = {
            SERVER_FILE: self._server_conf(self.port),
            "pg_hba.conf": hba_lines(self.user, self.client_addresses, IDENT_MAP),
        }
        if self._settings_text is not None:
            files[SETTINGS_FILE] = self._settings_text
        argv = ["sh", "-c", _SERVER_FILES_SCRIPT, "sh", self.socket_dir, self.data_dir, INCLUDE_BLOCK]
        result = self.transport.run([*argv, *itertools.chain(*files.items())], check=False, timeout=60)
        if result.exit_status == 3:
            raise ClusterError(
                f"{self.socket_dir} on {self.transport.host.name} is not a private directory of the target's "
                f"account (another account made it, or it is a link): refusing to put the server's socket there"
            )
        if result.exit_status == 4:  # lines appended after the block: the block moved last again
            self._put_last("postgresql.conf", INCLUDE_BLOCK)
        elif not result.ok:
            detail = result.stderr.decode("utf-8", "replace").strip()[-2000:]
            raise ClusterError(f"the server's files could not be written in {self.data_dir}: {detail}")
        return listening_ports(result.text)

    def password(self) -> str:
        """The superuser's password, for a TCP client; read from the target, where initdb set it."""
        return self.transport.get_bytes(self.password_path).decode().strip()

    def passfile_text(self) -> str:
        """A .pgpass file's text for a client of this server (written 0600 on the client; libpq reads it)."""
        if self.port is None:
            raise ClusterError(f"{self.data_dir}: the server has not been started")
        return passfile_line(self.port, self.user, self.password())

    def start(self) -> None:
        """Start on a free port (chosen on the target) and wait until it accepts connections."""
        tried: set[int] = set()
        for attempt in range(START_ATTEMPTS):
            if attempt > 0:
                self.port = None
            tried.add(self._write_server_files(tried))
            try:
                prefix = [*taskset_prefix(self.cpus), *(self.cgroup.dirs.join_prefix() if self.cgroup else [])]
                argv = [*prefix, self.installed.tool("pg_ctl"), "-D", self.data_dir, "-l"]
                self._run([*argv, self.log_path, "-w", "-t", "300", "start"], timeout=360, what="pg_ctl start")
                self.check_cpu_set()
                return
            except ClusterError as error:
                log = self.server_log_tail(20).decode("utf-8", "replace")
                cause = repeating_cause(f"{log}\n{error}")
                if cause is not None:
                    message = f"the server cannot start ({REPEATS}):\n{cause}\n\n{error}\n--- server log ---\n{log}"
                    raise ServerCannotStart(message) from error
                port_taken = "could not bind" in log or "in use" in log
                if not port_taken or attempt == START_ATTEMPTS - 1:
                    raise ClusterError(f"{error}\n--- server log ---\n{log}") from error

    def check_cpu_set(self) -> list[str]:
        """With a CPU set: each server process's allowed CPUs, read from /proc ('pid<TAB>list' lines); CpuSetError
        when one is outside the set or none could be read."""
        if not self.cpus:
            return []
        postmaster = self.postmaster_pid()
        lines = self.transport.run(["sh", "-c", AFFINITY_SCRIPT, "sh", postmaster], check=False, timeout=60).text
        escaped = escaped_processes(lines, self.cpus)
        if escaped or not lines.strip():
            found = ", ".join(escaped) or "no server process could be read"
            raise CpuSetError(f"the server's processes are not all inside CPUs {cpu_list_text(self.cpus)}: {found}")
        return lines.splitlines()

    def postmaster_pid(self) -> str:
        pid_file = self.transport.get_bytes(self._file("postmaster.pid")).decode("utf-8", "replace")
        return pid_file.split("\n", 1)[0].strip()

    def check_cgroup(self) -> None:
        """With a cgroup: CpuQuotaError when the postmaster or one of its processes is outside it."""
        if self.cgroup is None:
            return
        missing = self.cgroup.missing(self.postmaster_pid())
        if missing:
            raise CpuQuotaError(f"server processes outside their cgroup: {', '.join(missing)}")

    def stop(self, mode: str = "fast") -> None:
        """Stop the server if it runs; "immediate" skips the shutdown checkpoint (for data about to be discarded)."""
        result = pg_ctl_stop(self.transport, self.installed, self.data_dir, mode)
        # Asking `pg_ctl status` first would cost a round trip on every stop; a failed stop is checked instead.
        if not result.ok and self.is_running():
            detail = (result.stderr or result.stdout).decode("utf-8", "replace").strip()[-2000:]
            raise ClusterError(f"pg_ctl stop failed on {self.transport.host.name} ({self.data_dir}): {detail}")

    def is_running(self) -> bool:
        argv = [self.installed.tool("pg_ctl"), "-D", self.data_dir, "status"]
        return self.transport.run(argv, check=False, timeout=60).ok

    def take_over(self, settings: Mapping[str, str]) -> bool:
        """Adopt the server already running on this data directory, if it runs with exactly these study
        settings and listens where this cluster would: sets the port and returns True. One round trip."""
        argv = ["sh", "-c", _RUNNING_SERVER_SCRIPT, "sh", self.installed.tool("pg_ctl"), self.data_dir]
        result = self.transport.run([*argv, "postmaster.pid", SETTINGS_FILE, SERVER_FILE], check=False, timeout=60)
        if not result.ok:
            return False
        pid_file, settings_text, server_text = (result.stdout.decode("utf-8", "replace").split("\0") + ["", ""])[:3]
        port = postmaster_port(pid_file)
        if port is None or settings_text != conf_lines(settings) or server_text != self._server_conf(port):
            return False
        self.port = port
        return True

    # -- SQL and data -----------------------------------------------------------------------
    def psql(self, sql: str, *, timeout: float = 600) -> str:
        """Run SQL (read from stdin, stopping at the first error); returns unaligned, tuples-only output."""
        argv = [self._client_tool("psql"), "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", *self._connection_args()]
        return self._run([*argv, "-d", self.dbname, "-f", "-"], timeout=timeout, what="psql", input_text=sql)

    def psql_long(self, *statements: str, name: str, timeout: float = 3600) -> str:
        """Statements that may take minutes (VACUUM, prewarm), each in its own -c, so that a cancel can stop them."""
        argv = [self._client_tool("psql"), "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", *self._connection_args()]
        commands = [part for statement in statements for part in ("-c", statement)]
        return self._run([*argv, "-d", self.dbname, *commands], timeout=timeout, what="psql", long=name)

    def pgbench_init(self, scale: int, fillfactor: int | None = None) -> str:
        """`pgbench -i -s SCALE [-F FILLFACTOR]` with the client's pgbench; returns its output."""
        argv = [self._client_tool("pgbench"), "-i", "-s", str(int(scale))]
        if fillfactor:
            argv += ["-F", str(int(fillfactor))]
        argv += [*self._connection_args(), self.dbname]
        result = self.transport.run_long(argv, name="pgbench-init", timeout=600 + 30 * int(scale), check=False)
        if not result.ok:
            raise ClusterError(f"pgbench -i failed: {result.stderr.decode('utf-8', 'replace').strip()[-2000:]}")
        return result.stderr.decode("utf-8", "replace") + result.text

    def prewarm(self) -> int:
        """Load pgbench_accounts into shared buffers (as the seeds do); returns the number of blocks read."""
        out = self.psql_long(
            "CREATE EXTENSION IF NOT EXISTS pg_prewarm", "SELECT pg_prewarm('pgbench_accounts')", name="prewarm"
        )
        return int(out.strip().splitlines()[-1])

    def checkpoint_vacuum(self) -> None:
        """After a run, in the seed's order: 「1回測定するたびにcheck pointとvacuumを実施する」 (seed 001)."""
        self.psql_long("CHECKPOINT;", "VACUUM;", name="vacuum", timeout=7200)

    def rebuild_maintenance(self) -> None:
        """After the data is rebuilt, in the seed's order: 「検証データの再作成と vacuum full, check point,
        ANALYZEを実施」 (seed 001, Windows 更新系, at the end of each round)."""
        self.psql_long("VACUUM FULL;", "CHECKPOINT;", "ANALYZE;", name="maintenance", timeout=7200)

    def snapshot(self) -> None:
        """Copy the data directory aside with the server stopped; restarts it if it was running."""
        was_running = self.is_running()
        self.stop()
        part = f"{self.snapshot_dir}.part"
        self.transport.run(["rm", "-rf", part])
        self.transport.run_long(["cp", "-a", self.data_dir, part], name="snapshot-data", timeout=7200)
        self.transport.run(["rm", "-rf", self.snapshot_dir])
        self.transport.run(["mv", "-T", part, self.snapshot_dir])
        if was_running:
            self.start()

    def has_snapshot(self) -> bool:
        return self.data_state().has_snapshot

    def restore_snapshot(self) -> None:
        """Put the snapshot back as the data directory: stop, replace, start (if it was running)."""
        if not self.has_snapshot():
            raise ClusterError(f"{self.data_dir}: no snapshot to restore")
        was_running = self.is_running()
        if was_running:
            # The data is thrown away: writing it out in a shutdown checkpoint would only cost time.
            self.stop(mode="immediate")
        self.replace_data_with_snapshot()
        if was_running:
            self.start()

    def replace_data_with_snapshot(self) -> None:
        """The snapshot copied over the data directory; the server must be stopped."""
        self.transport.run_long(["rm", "-rf", self.data_dir], name="remove-data", timeout=3600)
        self.transport.run_long(["cp", "-a", self.snapshot_dir, self.data_dir], name="restore-data", timeout=7200)

    # -- what it looks like -----------------------------------------------------------------
    def settings_catalog(self) -> SettingsCatalog:
        """The catalog of this running server, from its pg_settings."""
        rows_json = self.psql(PG_SETTINGS_SQL)
        return catalog_from_pg_settings(rows_json, major=int(self.installed.major), version=self.installed.version)

    def show_all(self) -> dict[str, str]:
        """Every setting as SHOW prints it (units included: '64MB', not '8192')."""
        argv = [self._client_tool("psql"), "-X", "-q", "-A", "-t", "-F", "\x1f", "-R", "\x1e"]
        sql = "SELECT name, current_setting(name) FROM pg_settings ORDER BY name"
        text = self._run([*argv, *self._connection_args(), "-d", self.dbname, "-c", sql], what="show_all")
        rows = (record.split("\x1f", 1) for record in text.strip("\n").split("\x1e") if "\x1f" in record)
        return {name.strip("\n"): value for name, value in rows}

    def server_log_tail(self, lines: int = 200) -> bytes:
        """The end of pg_ctl's log file; where the server handed its output to the logging collector (a study's
        logging_collector = on), the end of the newest file the collector wrote too: what the server said after the
        hand-over (a port already taken, why it stopped) is only there."""
        tail = self.transport.run(["tail", "-n", str(int(lines)), self.log_path], check=False, timeout=60).stdout
        if COLLECTOR_HAND_OVER not in tail:
            return tail
        argv = ["sh", "-c", _COLLECTED_TAIL, "sh", posixpath.join(self.data_dir, COLLECTOR_DIR), str(int(lines))]
        return tail + self.transport.run(argv, check=False, timeout=60).stdout

    def data_state(self) -> DataState:
        """What the cluster's directory holds, in one round trip."""
        marker_file = posixpath.join(self.cluster_dir, MARKER_FILE)
        argv = ["sh", "-c", _DATA_STATE_SCRIPT, "sh", marker_file, self.data_dir, self.snapshot_dir]
        marker_text, _, present = self.transport.run(argv, timeout=60).stdout.partition(b"\0")
        try:
            marker = json.loads(marker_text) if marker_text else {}
        except ValueError:
            marker = {}
        found = present.decode("ascii", "replace").split()
        return DataState(marker if isinstance(marker, dict) else {}, "data" in found, "snapshot" in found)

    def read_marker(self) -> dict:
        return self.data_state().marker

    def write_marker(self, marker: dict) -> None:
        self.transport.put_bytes(
            json.dumps(marker, sort_keys=True).encode(), posixpath.join(self.cluster_dir, MARKER_FILE)
        )

    def clear_marker(self) -> None:
        self.transport.run(["rm", "-f", posixpath.join(self.cluster_dir, MARKER_FILE)])
