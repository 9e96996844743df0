"""What a host is: CPU, memory, kernel, OS, virtualization (a physical server, a guest, a container), the
filesystem under the work directory and its free space, tuning knobs, locales, when it booted, tools.

One round trip: a constant script prints each source under a `@@ name` line, and Python parses the
sections. A source the host lacks (no lscpu, no cpufreq, no perf) gives None, never an error:
virtual machines and containers hide much of /sys.
"""

import json
import re

from workers.transport import Transport

TOOLS = {"pgbench": "--version", "sar": "-V", "perf": "--version"}

# $1 is the work directory; it may not exist yet, so its nearest existing parent is measured.
_FACTS_SCRIPT = r"""
section() { printf '\n@@ %s\n' "$1"; }
dir=$1
while [ ! -e "$dir" ] && [ "$dir" != / ] && [ "$dir" != . ]; do dir=$(dirname -- "$dir"); done
section lscpu; lscpu -J 2>/dev/null
section nproc; nproc --all 2>/dev/null
section meminfo; cat /proc/meminfo 2>/dev/null
section kernel; uname -r
section hostname; uname -n
section os_release; cat /etc/os-release 2>/dev/null
section df; df -Pk -- "$dir" 2>/dev/null
section findmnt; findmnt -J -T "$dir" -o SOURCE,FSTYPE,TARGET,OPTIONS 2>/dev/null
section lsblk
source=$(findmnt -n -T "$dir" -o SOURCE 2>/dev/null)
case "$source" in /dev/*) lsblk -J -s -o NAME,TYPE,MODEL,ROTA,SIZE "$source" 2>/dev/null ;; esac
section governor; cat /sys/devices/system/cpu/cpu0/cpufreq/scaling_governor 2>/dev/null
section no_turbo; cat /sys/devices/system/cpu/intel_pstate/no_turbo 2>/dev/null
section boost; cat /sys/devices/system/cpu/cpufreq/boost 2>/dev/null
section thp; cat /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null
section microcode; grep -m 1 '^microcode' /proc/cpuinfo 2>/dev/null
section loadavg; cat /proc/loadavg 2>/dev/null
section locales; locale -a 2>/dev/null
section stat; grep '^btime ' /proc/stat 2>/dev/null
section virtualization; virt=$(systemd-detect-virt 2>/dev/null)
if [ -z "$virt" ] && [ -e /.dockerenv ]; then virt=docker; fi
printf '%s\n' "$virt"
for pair in pgbench:--version sar:-V perf:--version; do
  tool=${pair%%:*} flag=${pair#*:}
  path=$(command -v "$tool" 2>/dev/null)
  if [ -z "$path" ] && [ "$tool" = pgbench ]; then
    path=$(ls -d /usr/lib/postgresql/*/bin/pgbench /usr/pgsql-*/bin/pgbench 2>/dev/null | sort -V | tail -n 1)
  fi
  section "path_$tool"; printf '%s\n' "$path"
  section "version_$tool"
  if [ -n "$path" ] && out=$("$path" "$flag" 2>&1); then printf '%s\n' "$out" | head -n 1; fi
done
"""


# Facts that differ between any two readings by nature (free space, load, when the host booted): a comparison of two
# runs' environments leaves them out, as it would name them every time.
MOMENTARY_FACTS = frozenset({"disk_free_bytes", "load_average", "boot_time"})


def collect_host_facts(transport: Transport, work_dir: str) -> dict[str, object]:
    """The host's facts as a flat JSON-able dict (see the module docstring for what is in it)."""
    output = transport.run(["sh", "-c", _FACTS_SCRIPT, "sh", work_dir], timeout=60, check=False)
    sections = split_sections(output.text)
    facts: dict[str, object] = {}
    facts.update(cpu_facts(sections.get("lscpu", ""), sections.get("nproc", "")))
    facts["memory_bytes"] = memory_bytes(sections.get("meminfo", ""))
    facts["kernel"] = sections.get("kernel") or None
    facts["hostname"] = sections.get("hostname") or None
    facts["os_release"] = os_release_name(sections.get("os_release", ""))
    facts["work_dir"] = work_dir
    facts.update(filesystem_facts(sections.get("findmnt", ""), sections.get("lsblk", "")))
    facts.update(disk_space(sections.get("df", "")))
    facts["cpu_governor"] = sections.get("governor") or None
    facts["turbo"] = turbo(sections.get("no_turbo", ""), sections.get("boost", ""))
    facts["transparent_hugepages"] = bracketed_choice(sections.get("thp", ""))
    facts["microcode"] = sections.get("microcode", "").partition(":")[2].strip() or None
    facts["load_average"] = load_average(sections.get("loadavg", ""))
    facts["locales"] = sections.get("locales", "").split() or None
    facts["boot_time"] = boot_time(sections.get("stat", ""))
    # systemd-detect-virt's name: none (a physical server), kvm, docker...: what a host comparison compares.
    facts["virtualization"] = sections.get("virtualization") or None
    for tool in TOOLS:
        facts[tool] = sections.get(f"version_{tool}") or None
        facts[f"{tool}_path"] = sections.get(f"path_{tool}") or None
    return facts


def read_boot_time(transport: Transport) -> int | None:
    """When the host last booted (seconds since the epoch, the host's clock): one short command."""
    return boot_time(transport.run(["grep", "^btime ", "/proc/stat"], timeout=30, check=False).text)


def boot_time(stat: str) -> int | None:
    """The btime line of /proc/stat: 'btime 1764322345' -> 1764322345."""
    match = re.search(r"^btime\s+(\d+)", stat, re.MULTILINE)
    return int(match.group(1)) if match else None


def split_sections(text: str) -> dict[str, str]:
    sections = {}
    for chunk in text.split("\n@@ ")[1:]:
        name, _, body = chunk.partition("\n")
        sections[name.strip()] = body.strip()
    return sections


def _lscpu_fields(entries: list[dict]) -> dict[str, object]:
    """lscpu -J lists {field, data}; newer versions nest entries under `children`."""
    fields = {}
    for entry in entries:
        fields[str(entry.get("field", "")).rstrip(":")] = entry.get("data")
        fields.update(_lscpu_fields(entry.get("children", [])))
    return fields


def _as_int(value: object) -> int | None:
    return int(value) if isinstance(value, str) and value.strip().isdigit() else None


def cpu_facts(lscpu_json: str, nproc: str) -> dict[str, object]:
    try:
        fields = _lscpu_fields(json.loads(lscpu_json).get("lscpu", []))
    except (ValueError, AttributeError):
        fields = {}
    sockets = _as_int(fields.get("Socket(s)"))
    cores_per_socket = _as_int(fields.get("Core(s) per socket"))
    return {
        "cpu_model": fields.get("Model name"),
        "architecture": fields.get("Architecture"),
        "cpu_sockets": sockets,
        "cores_per_socket": cores_per_socket,
        "cpu_cores": sockets * cores_per_socket if sockets and cores_per_socket else None,
        "threads_per_core": _as_int(fields.get("Thread(s) per core")),
        "cpu_threads": _as_int(fields.get("CPU(s)")) or _as_int(nproc),
        "numa_nodes": _as_int(fields.get("NUMA node(s)")),
    }


def memory_bytes(meminfo: str) -> int | None:
    match = re.search(r"^MemTotal:\s+(\d+)\s*kB", meminfo, re.MULTILINE)
    return int(match.group(1)) * 1024 if match else None


def os_release_name(os_release: str) -> str | None:
    values = dict(re.findall(r'^([A-Z_]+)="?(.*?)"?$', os_release, re.MULTILINE))
    return values.get("PRETTY_NAME") or values.get("NAME")


def filesystem_facts(findmnt_json: str, lsblk_json: str) -> dict[str, object]:
    try:
        mount = json.loads(findmnt_json)["filesystems"][0]
    except (ValueError, KeyError, IndexError):
        mount = {}
    try:
        devices = json.loads(lsblk_json)["blockdevices"]
    except (ValueError, KeyError):
        devices = []
    disks = [device for device in _walk_devices(devices) if device.get("type") == "disk"]
    disk = disks[0] if disks else {}
    return {
        "fs_type": mount.get("fstype"),
        "device": mount.get("source"),
        "mount_point": mount.get("target"),
        "mount_options": mount.get("options"),
        "disk": " ".join(str(disk[key]) for key in ("name", "model", "size") if disk.get(key)) or None,
        "disk_rotational": disk.get("rota") if disk else None,
    }


def disk_space(df_output: str) -> dict[str, int | None]:
    """Free and total bytes of the filesystem under the work directory, from `df -Pk` (POSIX format:
    1024-byte blocks; the mount point may hold spaces, so the numbers are read before the capacity %)."""
    lines = df_output.strip().splitlines()
    match = re.search(r"\s(\d+)\s+(\d+)\s+(\d+)\s+\d+%\s", lines[-1] + " ") if len(lines) > 1 else None
    if match is None:
        return {"disk_free_bytes": None, "disk_size_bytes": None}
    return {"disk_free_bytes": int(match.group(3)) * 1024, "disk_size_bytes": int(match.group(1)) * 1024}


def _walk_devices(devices: list[dict]) -> list[dict]:
    found = []
    for device in devices:
        found.append(device)
        found.extend(_walk_devices(device.get("children", [])))
    return found


def turbo(no_turbo: str, boost: str) -> bool | None:
    """Turbo on or off: intel_pstate says it as no_turbo, acpi-cpufreq (and amd) as boost."""
    if no_turbo in ("0", "1"):
        return no_turbo == "0"
    if boost in ("0", "1"):
        return boost == "1"
    return None


def bracketed_choice(text: str) -> str | None:
    """'always [madvise] never' -> 'madvise'."""
    match = re.search(r"\[([^\]]+)\]", text)
    return match.group(1) if match else None


def load_average(loadavg: str) -> list[float] | None:
    parts = loadavg.split()
    try:
        return [float(part) for part in parts[:3]] if len(parts) >= 3 else None
    except ValueError:
        return None
