"""What waiting on a background command costs the host it runs on: the CPU time of the background scripts (and
every process they start) per second waited, for this checkout's script and a baseline commit's, taking turns.

Usage:  .venv/bin/python bench/wait_footprint.py [--baseline HEAD~1] [--rounds 5] [--seconds 3]

The engine waits this way on every long command, pgbench's measured run included, so the wait's own CPU lands on
the host being measured. Each round starts `sleep SECONDS` as a background command on the local target and waits for
it with run_long (a look every LONG_POLL_S); the CPU is what the wait's children used (getrusage), in ms per second.
"""

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.timing import children_cpu_s  # noqa: E402
from workers import background_scripts  # noqa: E402
from workers.local_transport import LocalTransport  # noqa: E402
from workers.spec import HostSpec  # noqa: E402

SCRIPTS = ("WRAPPER", "LAUNCH", "STOP", "WAIT", "STATUS")  # they agree on the pid file's form: swapped together


def scripts_at(revision: str) -> dict[str, str]:
    argv = ["git", "show", f"{revision}:workers/background_scripts.py"]
    source = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, check=True).stdout
    namespace: dict[str, object] = {}
    exec(compile(source, "baseline background_scripts.py", "exec"), namespace)  # noqa: S102 (our own file at a commit)
    return {name: str(namespace[name]) for name in SCRIPTS}


def one_wait(transport: LocalTransport, seconds: int) -> float:
    """ms of CPU per second waited, the start and the reading of the outputs included."""
    before, started = children_cpu_s(), time.monotonic()
    transport.run_long(["sleep", str(seconds)], name="sleeper", timeout=seconds + 60)
    return 1000 * (children_cpu_s() - before) / (time.monotonic() - started)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--baseline", default="HEAD~1")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seconds", type=int, default=3)
    options = parser.parse_args()
    this_checkout = {name: getattr(background_scripts, name) for name in SCRIPTS}
    scripts = {"baseline": scripts_at(options.baseline), "this checkout": this_checkout}
    results: dict[str, list[float]] = {name: [] for name in scripts}
    with tempfile.TemporaryDirectory(prefix="benchdash-wait-") as work_dir:
        transport = LocalTransport(HostSpec(name="local", work_dir=work_dir), run_as="")
        transport.should_stop = lambda: False  # run_long then waits in the background, as during a trial
        for _ in range(options.rounds):
            for name, script_set in scripts.items():
                for script_name, script in script_set.items():
                    setattr(background_scripts, script_name, script)
                results[name].append(one_wait(transport, options.seconds))
    print(f"\n| wait script | CPU ms per second waited (median of {options.rounds}) | min..max |\n| --- | ---: | --- |")
    for name, values in results.items():
        print(f"| {name} | {statistics.median(values):.1f} | {min(values):.1f}..{max(values):.1f} |")


if __name__ == "__main__":
    main()
