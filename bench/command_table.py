"""The Markdown table the per-command benchmarks print for docs/BENCHMARKS.md: median wall and CPU time a command."""

import os

from bench.timing import medians


def print_command_table(
    first_column: str, measured: dict[str, list[tuple[float, float]]], commands: int, unit: str = "command"
) -> None:
    """measured: name -> one (wall, CPU) pair of seconds a command (or other unit of work) per round."""
    rounds = len(next(iter(measured.values())))
    print(f"load average {os.getloadavg()[0]:.1f}; {rounds} rounds of {commands} {unit}s each\n")
    print(f"| {first_column} | wall ms a {unit} (median) | CPU ms a {unit} (median) |")
    print("| --- | ---: | ---: |")
    for name, pairs in measured.items():
        wall, cpu = medians(pairs)
        print(f"| {name} | {wall * 1000:.2f} | {cpu * 1000:.2f} |")
