"""What a trial costs around its pgbench on the host `local`: the commands it runs there and the CPU they and the
engine take, here and at an earlier commit, taking turns.

Usage (as root, or as a worker's account with its sudoers rule):
    .venv/bin/python bench/trial_commands.py [--baseline REV] [--rounds 5] [--trials 5]

Each round runs, for each tree in turn, a fresh work dir's first trial (initdb, pgbench -i: not counted) and then
--trials trials like a study's next ones (the data restored, the server started and stopped, sar and the wait events
off, pgbench for 1 s at 2 clients), in a process of its own with that tree's engine. It counts their transport
commands and measures their wall time and CPU (user + system of the engine and of the commands it waited for; not the
server's nor pgbench's, which run detached). Prints the medians a trial in a Markdown table for docs/BENCHMARKS.md.
The baseline is checked out as a git worktree in a temporary directory, removed at the end.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.scratch import local_scratch_dir  # noqa: E402

# Run with the tree's engine first on the path; argv: work dir, trials. Prints the steady trials' figures as JSON.
DRIVER = r"""
import json, resource, sys, time
from dataclasses import replace
from workers.local_transport import LocalTransport
from workers.runner import run_trial
from workers.spec import BuildSpec, HostSpec, ScenarioSpec, TrialSpec

commands = 0
run = LocalTransport.run
def counted(self, argv, **options):
    global commands
    commands += 1
    return run(self, argv, **options)
LocalTransport.run = counted

def cpu():
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime

work_dir, trials = sys.argv[1], int(sys.argv[2])
host = HostSpec(name="local", work_dir=work_dir)
script = "\\set aid random(1, 100000 * :scale)\nSELECT abalance FROM pgbench_accounts WHERE aid = :aid;\n"
spec = TrialSpec(
    trial_id=1, study_id=1, db_host=host, client_host=host,
    build=BuildSpec(name="pg15-debian", kind="installed", bin_dir=sys.argv[3]),
    scenario=ScenarioSpec(slug="bench-select", script=script), clients=2, threads=1, duration_s=1, scale=1,
    fillfactor=100, collect_sar=False, collect_wait_events=False, reset_data=True,
)
for number in range(trials + 1):
    if number == 1:
        commands, cpu_before, started = 0, cpu(), time.monotonic()
    outcome = run_trial(replace(spec, trial_id=number + 1, reset_data=number == 0), LocalTransport(host))
    if not outcome.ok:
        sys.exit(outcome.error)
print(json.dumps({"commands": commands / trials, "wall": (time.monotonic() - started) / trials,
                  "cpu": (cpu() - cpu_before) / trials}))
"""


def one_tree(tree: Path, trials: int, bin_dir: str) -> dict[str, float]:
    with local_scratch_dir("trial") as work_dir:
        env = {**os.environ, "PYTHONPATH": str(tree)}
        argv = [sys.executable, "-c", DRIVER, f"{work_dir}/w", str(trials), bin_dir]
        done = subprocess.run(argv, cwd=tree, env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        sys.exit(f"{tree}: {done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", default="HEAD~1", help="the commit to compare with (default: HEAD~1)")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--trials", type=int, default=5)
    parser.add_argument("--bin-dir", default="/usr/lib/postgresql/15/bin")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        os.chmod(scratch, 0o755)  # noqa: S103 (the clusters' account enters the trees: commands start in /)
        baseline = Path(scratch, "baseline")
        subprocess.run(["git", "worktree", "add", "-q", "--detach", str(baseline), args.baseline], cwd=ROOT, check=True)
        try:
            trees = {f"{args.baseline} (before)": baseline, "this checkout (now)": ROOT}
            figures: dict[str, list[dict[str, float]]] = {name: [] for name in trees}
            for _ in range(args.rounds):
                for name, tree in trees.items():
                    figures[name].append(one_tree(tree, args.trials, args.bin_dir))
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(baseline)], cwd=ROOT, check=True)
    print(f"load average {os.getloadavg()[0]:.1f}; {args.rounds} rounds of {args.trials} trials each\n")
    print("| tree | commands a trial | wall ms a trial (median) | CPU ms a trial (median) |")
    print("| --- | ---: | ---: | ---: |")
    for name, rounds in figures.items():
        median = {key: statistics.median(figure[key] for figure in rounds) for key in ("commands", "wall", "cpu")}
        print(f"| {name} | {median['commands']:.0f} | {median['wall'] * 1000:.0f} | {median['cpu'] * 1000:.0f} |")


if __name__ == "__main__":
    main()
