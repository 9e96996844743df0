"""Which paths from the store benchdash lets near a target: absolute, safe characters, no `..`.

Arguments reach commands as argument lists and scripts as "$1", never pasted into shell text. But some
programs paste them themselves: pg_ctl starts the server with `/bin/sh -c 'exec "postgres" -D "<data dir>"'`,
where `$(...)` and backticks still expand inside the double quotes. So a work directory or a bin directory
must be a path that no shell reads as anything but itself. The form, the admin and the commands check it
(benchdash/inventory/validators.py); the worker checks it again before it reaches a host, for rows stored
before the check or written around benchdash.
"""

import re
from enum import StrEnum

SAFE_PATH_RE = re.compile(r"[A-Za-z0-9/._-]+", re.ASCII)
MAX_PATH_LENGTH = 400


class PathProblem(StrEnum):
    EMPTY = "empty"
    RELATIVE = "relative"
    CHARACTERS = "characters"
    PARENT = "parent"
    LENGTH = "length"


_REASONS = {
    PathProblem.EMPTY: "it is empty",
    PathProblem.RELATIVE: "it is not absolute (it must start with /)",
    PathProblem.CHARACTERS: "only letters, digits and / . _ - are allowed",
    PathProblem.PARENT: "it has a .. component",
    PathProblem.LENGTH: f"it is longer than {MAX_PATH_LENGTH} characters",
}


def path_problem(path: str) -> PathProblem | None:
    """What makes `path` unsafe to hand to a target, or None when it is safe."""
    if not path:
        return PathProblem.EMPTY
    if not path.startswith("/"):
        return PathProblem.RELATIVE
    if not SAFE_PATH_RE.fullmatch(path):
        return PathProblem.CHARACTERS
    if ".." in path.split("/"):
        return PathProblem.PARENT
    if len(path) > MAX_PATH_LENGTH:
        return PathProblem.LENGTH
    return None


def unsafe_path_reason(what: str, path: str) -> str | None:
    """A sentence saying why the worker refuses `path` (e.g. what = "host 'db1': work directory"), or None."""
    problem = path_problem(path)
    return None if problem is None else f"{what} {path!r} is refused: {_REASONS[problem]}"


def path_safe_name(name: str) -> str:
    """name reduced to characters safe in any path, for a directory named after a build, a scenario or options."""
    return re.sub(r"[^A-Za-z0-9._-]+", "-", name).strip("-.")
