"""A trial's server in a cgroup of its own, with a CPU quota: the injected slowdown of a calibration.

The server starts inside the cgroup (a fixed script writes its own pid to cgroup.procs, then execs pg_ctl), so the
postmaster and every process it forks are in it. The run account cannot make cgroups under the root: root delegates
one directory to it once (`delegation_command`), and the engine makes one cgroup per work dir beneath it.

Two layouts, found in /proc/self/mountinfo:
- cgroup v2 (one hierarchy): the quota in cpu.max ("<quota> <period>" or "max <period>"), the use in cpu.stat's
  usage_usec, one directory.
- cgroup v1: the quota in the cpu controller's cpu.cfs_quota_us and cpu.cfs_period_us (-1: none), the use in the
  cpuacct controller's cpuacct.usage (nanoseconds); the two controllers may be mounted together or apart, so the
  server joins a directory in each.
Every value written is a number the engine formats itself; every path comes from the mount table and the account's
name, both checked against a narrow pattern before they reach a command line.
"""

import hashlib
import re
import shlex
from dataclasses import dataclass

from workers.transport import Transport

DELEGATED_PREFIX = "benchdash-"
PERIOD_US = 100_000
# The kernel refuses a quota under 1 ms a period.
MIN_QUOTA_US = 1_000
MAX_SLOWDOWN_PCT = 90
_SAFE_PATH = re.compile(r"^/[A-Za-z0-9_.,/-]+$")
_SAFE_ACCOUNT = re.compile(r"^[a-z_][a-z0-9_-]{0,31}$")

# $1 and $2: the cgroup.procs files to join (the same file twice on v2); then the command to run inside.
JOIN_SCRIPT = r"""
echo $$ > "$1" && echo $$ > "$2" || exit 97
shift 2
exec "$@"
"""
# $1 a cgroup file, $2 the numbers it gets (made by the engine, never a user's text).
WRITE_SCRIPT = r"""printf '%s\n' "$2" > "$1"
"""
# $1 the postmaster's pid, then cgroup.procs files: each server process (it and its children) missing from one,
# "pid<TAB>file" a line. A child that ended after ps listed it (a backend closing) is gone from the file and from
# /proc: it is not outside.
MEMBERSHIP_SCRIPT = r"""
postmaster=$1
shift
for procs in "$@"; do
  for pid in "$postmaster" $(ps -o pid= --ppid "$postmaster"); do
    grep -qx "$pid" "$procs" || ! [ -e "/proc/$pid" ] || printf '%s\t%s\n' "$pid" "$procs"
  done
done
"""
# $1 the usage file: its text, then the target's uptime in seconds, one line each.
USAGE_SCRIPT = r"""
cat "$1" && cut -d' ' -f1 /proc/uptime
"""


class CpuQuotaError(RuntimeError):
    """The host has no cgroup the run account may use, or the server is not inside its cgroup."""


@dataclass(frozen=True)
class CgroupLayout:
    """Where the cgroups of one host are: version "v1" or "v2", and the mount points of the controllers."""

    version: str
    quota_root: str
    usage_root: str

    def delegated(self, account: str) -> "CgroupDirs":
        """The directories root delegates to the account (delegation_command)."""
        if not _SAFE_ACCOUNT.match(account):
            raise CpuQuotaError(f"the run account's name {account!r} is not one benchdash puts in a cgroup path")
        return CgroupDirs(self.version, self.quota_root, self.usage_root).below(DELEGATED_PREFIX + account)

    def delegation_script(self, account: str) -> str:
        """What root runs once so that the run account may make cgroups under its own directory."""
        dirs = " ".join(self.delegated(account).directories())
        enable = f"echo +cpu > {self.quota_root}/cgroup.subtree_control && " if self.version == "v2" else ""
        return f"{enable}mkdir -p {dirs} && chown -R {account} {dirs}"

    def delegation_command(self, account: str) -> str:
        """The one root command that delegates a cgroup to the run account on this host."""
        return f"sudo sh -c {shlex.quote(self.delegation_script(account))}"


@dataclass(frozen=True)
class CgroupDirs:
    """A cgroup directory in the quota hierarchy and in the usage one (the same directory on v2)."""

    version: str
    quota_dir: str
    usage_dir: str

    def child(self, work_dir: str) -> "CgroupDirs":
        """The cgroup of the servers of one work dir: installations and test runs sharing a host never share one."""
        return self.below("server-" + hashlib.sha256(work_dir.encode()).hexdigest()[:12])

    def below(self, name: str) -> "CgroupDirs":
        """The cgroup `name` under this one, in both hierarchies."""
        return CgroupDirs(self.version, f"{self.quota_dir}/{name}", f"{self.usage_dir}/{name}")

    def procs_files(self) -> list[str]:
        return [f"{self.quota_dir}/cgroup.procs", f"{self.usage_dir}/cgroup.procs"]

    def directories(self) -> list[str]:
        return list(dict.fromkeys([self.quota_dir, self.usage_dir]))

    def quota_writes(self, quota_us: int | None) -> dict[str, str]:
        """File -> text that sets the quota (None: no limit)."""
        if self.version == "v2":
            return {f"{self.quota_dir}/cpu.max": f"{'max' if quota_us is None else int(quota_us)} {PERIOD_US}"}
        return {
            f"{self.quota_dir}/cpu.cfs_period_us": str(PERIOD_US),
            f"{self.quota_dir}/cpu.cfs_quota_us": str(-1 if quota_us is None else int(quota_us)),
        }

    def quota_file(self) -> str:
        return f"{self.quota_dir}/cpu.max" if self.version == "v2" else f"{self.quota_dir}/cpu.cfs_quota_us"

    def usage_file(self) -> str:
        return f"{self.usage_dir}/cpu.stat" if self.version == "v2" else f"{self.usage_dir}/cpuacct.usage"

    def join_prefix(self) -> list[str]:
        """What goes before pg_ctl so that the server starts inside this cgroup."""
        return ["sh", "-c", JOIN_SCRIPT, "sh", *self.procs_files()]


def cgroup_layout(mountinfo: str) -> CgroupLayout | None:
    """The layout the mount table shows: v1 where a cgroup v1 hierarchy holds the cpu controller (the controller is
    then not in v2's), else v2 where cgroup2 is mounted; None without either."""
    v1: dict[str, str] = {}
    v2 = ""
    for line in mountinfo.splitlines():
        fields, _sep, after = line.partition(" - ")
        parts, tail = fields.split(), after.split()
        if len(parts) < 5 or len(tail) < 3 or not _SAFE_PATH.match(parts[4]):
            continue
        if tail[0] == "cgroup2":
            v2 = v2 or parts[4]
        elif tail[0] == "cgroup":
            for controller in ("cpu", "cpuacct"):
                if controller in tail[2].split(","):
                    v1.setdefault(controller, parts[4])
    if "cpu" in v1 and "cpuacct" in v1:
        return CgroupLayout("v1", v1["cpu"], v1["cpuacct"])
    return CgroupLayout("v2", v2, v2) if v2 else None


def quota_us(cores_used: float, slowdown_pct: float) -> int:
    """The quota a period that leaves the server slowdown_pct % less CPU than the cores it used unthrottled."""
    if not 0 < slowdown_pct <= MAX_SLOWDOWN_PCT:
        raise CpuQuotaError(f"a slowdown of {slowdown_pct}%: from more than 0 to {MAX_SLOWDOWN_PCT}%")
    if not cores_used > 0:
        raise CpuQuotaError(f"the server used {cores_used} cores unthrottled: nothing to lower")
    return max(MIN_QUOTA_US, round(cores_used * (1 - slowdown_pct / 100) * PERIOD_US))


def parse_usage_seconds(version: str, text: str) -> float:
    """CPU seconds a cgroup used, from cpu.stat's usage_usec (v2) or cpuacct.usage's nanoseconds (v1)."""
    if version == "v2":
        for line in text.splitlines():
            name, _sep, value = line.partition(" ")
            if name == "usage_usec":
                return int(value) / 1e6
        raise CpuQuotaError("cpu.stat has no usage_usec line")
    return int(text.split()[0]) / 1e9


def parse_quota_us(version: str, text: str) -> int | None:
    """The quota a period a quota file holds; None for no limit."""
    value = text.split()[0]
    if value in ("max", "-1"):
        return None
    return int(value)


class ServerCgroup:
    """The cgroup of one work dir's servers on one host, found and made on first use."""

    def __init__(self, transport: Transport, work_dir: str) -> None:
        self.transport = transport
        self.work_dir = work_dir
        self._dirs: CgroupDirs | None = None

    @property
    def dirs(self) -> CgroupDirs:
        if self._dirs is None:
            self._dirs = self._made()
        return self._dirs

    def _made(self) -> CgroupDirs:
        mountinfo = self.transport.get_bytes("/proc/self/mountinfo").decode("utf-8", "replace")
        layout = cgroup_layout(mountinfo)
        if layout is None:
            raise CpuQuotaError(f"{self.transport.host.name} has no cgroup file system mounted")
        account = self.transport.run(["id", "-un"], timeout=60).text.strip()
        delegated = layout.delegated(account)
        writable = ["test", "-w", delegated.quota_dir, "-a", "-w", delegated.usage_dir]
        if not self.transport.run(writable, check=False, timeout=60).ok:
            raise CpuQuotaError(
                f"{self.transport.host.name} has delegated no cgroup ({layout.version}) to {account}: "
                f"as root there, run: {layout.delegation_command(account)}"
            )
        child = delegated.child(self.work_dir)
        self.transport.run(["mkdir", "-p", *child.directories()], timeout=60)
        return child

    def set_quota(self, quota: int | None) -> None:
        """The server's CPU quota a period, in microseconds (None: no limit); read back to be sure it holds."""
        for path, text in self.dirs.quota_writes(quota).items():
            self.transport.run(["sh", "-c", WRITE_SCRIPT, "sh", path, text], timeout=60)
        held = parse_quota_us(self.dirs.version, self.transport.get_bytes(self.dirs.quota_file()).decode())
        if held != quota:
            raise CpuQuotaError(f"{self.dirs.quota_file()} holds {held}, not the quota {quota} written to it")

    def usage(self) -> tuple[float, float]:
        """(CPU seconds the cgroup used, the target's uptime in seconds), read together."""
        text = self.transport.run(["sh", "-c", USAGE_SCRIPT, "sh", self.dirs.usage_file()], timeout=60).text
        *usage_lines, uptime = text.strip().splitlines()
        return parse_usage_seconds(self.dirs.version, "\n".join(usage_lines)), float(uptime)

    def missing(self, postmaster_pid: str) -> list[str]:
        """'pid<TAB>cgroup.procs' of each server process outside the cgroup."""
        if not postmaster_pid.isdigit():
            raise CpuQuotaError(f"postmaster.pid names no pid ({postmaster_pid!r})")
        argv = ["sh", "-c", MEMBERSHIP_SCRIPT, "sh", postmaster_pid, *dict.fromkeys(self.dirs.procs_files())]
        return self.transport.run(argv, check=False, timeout=60).text.splitlines()
