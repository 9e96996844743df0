"""The engine's own time per trial, over SSH: everything beyond pgbench's duration and the data reset.

Usage:  .venv/bin/python bench/engine_overhead.py [--trials 10] [--duration 3] [--clients 2]
        [--builtin select-only] [--scale 1] [--bin-dir /usr/lib/postgresql/15/bin]

Starts a real sshd on 127.0.0.1 (as the tests do, tests/sshd.py), runs `trials` trials through
run_trial over one SSH connection with the study defaults (sar and wait-event sampling on), and
prints per phase the median seconds, and the overhead = total - duration - reset (goal: median < 1 s).
"reset" is prepare_cluster: data reset, settings, server start and prewarm.
"""

import shutil
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine_fidelity import arguments, bench_spec  # noqa: E402

from tests import sshd  # noqa: E402
from workers.runner import run_trial  # noqa: E402
from workers.spec import HostSpec  # noqa: E402
from workers.transport import connect  # noqa: E402


@contextmanager
def ssh_host() -> Iterator[HostSpec]:
    """A throwaway sshd on a free port, with fresh host and client keys."""
    user = sshd.ensure_ssh_user()
    directory = Path(tempfile.mkdtemp(prefix="benchdash-bench-sshd-"))
    directory.chmod(0o755)
    host_key = sshd.generate_key(directory / "host_key")
    sshd.generate_key(directory / "client_key")
    shutil.copy(directory / "client_key.pub", directory / "authorized_keys")
    port = sshd.free_port()
    Path("/run/sshd").mkdir(mode=0o755, exist_ok=True)
    server = subprocess.Popen([sshd.SSHD, "-D", "-e", "-f", str(sshd.sshd_config(directory, port, user.pw_name))])
    work_dir = sshd.owned_temp_dir(user, "benchdash-bench-ssh-work-")
    try:
        sshd.wait_for_port(port, server)
        yield HostSpec(
            name="bench-ssh",
            address="127.0.0.1",
            port=port,
            username=user.pw_name,
            key_path=str(directory / "client_key"),
            host_key=host_key,
            work_dir=work_dir,
        )
    finally:
        server.terminate()
        server.wait(timeout=10)
        shutil.rmtree(directory, ignore_errors=True)
        shutil.rmtree(work_dir, ignore_errors=True)


def main() -> None:
    options = arguments(__doc__.split("\n\n")[0], duration_s=3)
    overheads, phases = [], {}
    with ssh_host() as host, connect(host) as transport:
        spec = bench_spec(host, options, sar=True, wait_events=True)
        first = run_trial(spec, transport)  # creates the data; not reported
        if not first.ok:
            raise SystemExit(f"first trial failed: {first.error}")
        for number in range(options.trials):
            outcome = run_trial(spec, transport)
            timings = outcome.timings
            overheads.append(timings["total"] - spec.duration_s - timings["reset"])
            for name, seconds in timings.items():
                phases.setdefault(name, []).append(seconds)
            print(f"  trial {number + 1}: overhead {overheads[-1]:.3f}s {timings}", file=sys.stderr)
    print("| phase | median s | min..max s |\n| --- | --- | --- |")
    for name, values in phases.items():
        print(f"| {name} | {statistics.median(values):.3f} | {min(values):.3f}..{max(values):.3f} |")
    print(f"\noverhead (total - duration - reset): median **{statistics.median(overheads):.3f} s**, ", end="")
    print(f"min {min(overheads):.3f}, max {max(overheads):.3f} over {len(overheads)} trials (goal: median < 1 s)")


if __name__ == "__main__":
    main()
