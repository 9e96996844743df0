"""The dependency locks: requirements.txt, what production runs, made from requirements.in; requirements-dev.txt, what
the tests and the linters add, made from requirements-dev.in. Each .in line pins one version; each lock holds exactly
what its .in files pin, at those versions, and whatever those need, every package with its hashes (set-up installs
them with --require-hashes, deploy/lib.sh); production's lock holds no test or lint tool. A lock out of date with its
.in file fails here: `make lock` writes it again (CONTRIBUTING.md, "Dependencies")."""

import re
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

import pytest
from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parent.parent
LOCKS = {"requirements.txt": "requirements.in", "requirements-dev.txt": "requirements-dev.in"}
EXCLUDED = ROOT / "requirements-excluded.txt"
TEST_TOOLS = {"pytest", "selenium", "moto", "mypy", "ruff", "hypothesis", "factory-boy", "import-linter"}
PIN = re.compile(r"(?P<name>[A-Za-z0-9][A-Za-z0-9._-]*)(\[[A-Za-z0-9,._-]+\])?==(?P<version>[A-Za-z0-9.+!-]+)")
HASH = re.compile(r"--hash=sha256:[0-9a-f]{64}")


def canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


@dataclass
class Entry:
    version: str
    hashes: int = 0
    via: tuple[str, ...] = ()


def read_in(path: Path) -> tuple[dict[str, str], list[str]]:
    """The versions the .in file `path` pins, with those of the files it includes (-r), and its lines that pin none."""
    pins: dict[str, str] = {}
    unpinned: list[str] = []
    for line in (text.split("#")[0].strip() for text in path.read_text().splitlines()):
        if line.startswith("-r "):
            included, more_unpinned = read_in(path.parent / line.removeprefix("-r ").strip())
            pins |= included
            unpinned += more_unpinned
        elif pin := PIN.fullmatch(line):
            pins[canonical(pin["name"])] = pin["version"]
        elif line and not line.startswith("-c "):
            unpinned.append(f"{path.name}: {line}")
    return pins, unpinned


def read_lock(text: str) -> tuple[dict[str, Entry], list[str]]:
    """A lock's entries by name, and its lines that are neither an entry, nor a hash or a comment under one."""
    entries: dict[str, Entry] = {}
    strays: list[str] = []
    entry: Entry | None = None
    for line in text.splitlines():
        pin = PIN.fullmatch(line.removesuffix("\\").strip())
        if pin and not line[0].isspace():
            entry = entries[canonical(pin["name"])] = Entry(pin["version"])
        elif entry and HASH.fullmatch(line.removesuffix("\\").strip()):
            entry.hashes += 1
        elif entry and line.lstrip().startswith("#"):
            entry.via += tuple(filter(None, [line.lstrip(" #").removeprefix("via").strip()]))
        elif line and not (entry is None and line.startswith("#")):
            strays.append(line)
    return entries, strays


def entry_problems(name: str, entry: Entry, entries: dict[str, Entry], pins: dict[str, str]) -> list[str]:
    """What is wrong with the lock's entry `name`: no hash, or a reason to be there that is gone."""
    problems = [] if entry.hashes else [f"{name} comes without a hash"]
    pinned_by_an_in_file = any(via.startswith("-r ") for via in entry.via)
    if pinned_by_an_in_file and name not in pins:
        problems.append(f"{name} was pinned by an .in file that no longer pins it")
    if not pinned_by_an_in_file and not any(via in entries for via in entry.via):
        problems.append(f"{name} is there for nothing the .in files pin or the lock holds")
    return problems


def lock_problems(text: str, pins: dict[str, str]) -> list[str]:
    """What is wrong with the lock `text` of the .in files that pin `pins`, one sentence each."""
    entries, strays = read_lock(text)
    problems = [f"a line that is no pinned, hashed entry: {line}" for line in strays]
    for name, entry in entries.items():
        problems += entry_problems(name, entry, entries, pins)
    for name, version in pins.items():
        held = entries[name].version if name in entries else None
        if held != version:
            problems.append(f"{name} is pinned at {version}, the lock holds {held or 'nothing'}")
    return problems


@pytest.mark.parametrize("in_file", sorted(LOCKS.values()))
def test_every_line_of_the_in_files_pins_one_version(in_file):
    assert read_in(ROOT / in_file)[1] == []


@pytest.mark.parametrize("lock", sorted(LOCKS))
def test_each_lock_holds_what_its_in_files_pin_every_package_with_its_hashes(lock):
    pins, _ = read_in(ROOT / LOCKS[lock])

    assert lock_problems((ROOT / lock).read_text(), pins) == []


def test_the_production_lock_holds_no_test_or_lint_tool():
    production_pins, _ = read_in(ROOT / "requirements.in")
    development_pins, _ = read_in(ROOT / "requirements-dev.in")
    production, _ = read_lock((ROOT / "requirements.txt").read_text())

    assert (TEST_TOOLS | set(development_pins) - set(production_pins)) & set(production) == set()


def excluded() -> set[str]:
    """The packages `make lock` leaves out (requirements-excluded.txt)."""
    lines = (line.split("#")[0].strip() for line in EXCLUDED.read_text().splitlines())
    return {canonical(line) for line in lines if line}


@pytest.mark.parametrize("lock", sorted(LOCKS))
def test_a_lock_holds_none_of_the_packages_left_out(lock):
    entries, _ = read_lock((ROOT / lock).read_text())

    assert excluded() & set(entries) == set()


def test_each_package_left_out_is_one_that_a_locked_package_asks_for():
    development, _ = read_lock((ROOT / "requirements-dev.txt").read_text())
    asked = {canonical(Requirement(text).name) for name in development for text in metadata.requires(name) or []}

    assert excluded() - asked == set()


def test_the_development_lock_keeps_every_production_package_at_its_version():
    production, _ = read_lock((ROOT / "requirements.txt").read_text())
    development, _ = read_lock((ROOT / "requirements-dev.txt").read_text())

    kept = {name: entry.version for name, entry in development.items()}
    moved = {name for name, entry in production.items() if kept.get(name) != entry.version}
    assert moved == set() and len(development) > len(production)


def test_an_in_line_without_one_exact_version_is_named(tmp_path):
    (tmp_path / "base.in").write_text("Django==5.2.19\ncelery[redis]==5.7.0\nredis>=8\n")
    (tmp_path / "dev.in").write_text("# tools\n-r base.in\n-c base.txt\npytest\nruff==0.17.6  # lint\n")

    pins, unpinned = read_in(tmp_path / "dev.in")

    assert pins == {"django": "5.2.19", "celery": "5.7.0", "ruff": "0.17.6"}
    assert unpinned == ["base.in: redis>=8", "dev.in: pytest"]


LOCK = """# This file was autogenerated by uv via the following command:
#    make lock
celery==5.7.0 \\
    --hash=sha256:{0}
    # via -r requirements.in
kombu==5.7.0 \\
    --hash=sha256:{0} \\
    --hash=sha256:{0}
    # via
    #   -c requirements.txt
    #   celery
"""


def test_a_lock_that_matches_its_pins_has_no_problem():
    assert lock_problems(LOCK.format("a" * 64), {"celery": "5.7.0"}) == []


@pytest.mark.parametrize(
    ("lock", "pins", "problem"),
    [
        (
            LOCK.replace("    --hash=sha256:{0}\n    # via -r", "    # via -r"),
            {"celery": "5.7.0"},
            "celery comes without a hash",
        ),
        (LOCK, {"celery": "5.7.1"}, "celery is pinned at 5.7.1, the lock holds 5.7.0"),
        (LOCK, {"celery": "5.7.0", "redis": "8.1.0"}, "redis is pinned at 8.1.0, the lock holds nothing"),
        (LOCK, {}, "celery was pinned by an .in file that no longer pins it"),
        (
            LOCK.replace("#   celery", "#   vine"),
            {"celery": "5.7.0"},
            "kombu is there for nothing the .in files pin or the lock holds",
        ),
        (LOCK + "pytest\n", {"celery": "5.7.0"}, "a line that is no pinned, hashed entry: pytest"),
    ],
    ids=["no hash", "version moved", "pin not locked", "pin removed", "orphan", "unpinned line"],
)
def test_a_lock_out_of_date_with_its_pins_or_without_hashes_is_named(lock, pins, problem):
    assert problem in lock_problems(lock.format("a" * 64), pins)
