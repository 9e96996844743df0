"""Failures whose cause repeats: another attempt of the trial would meet the same words, so it ends at once.

A server that cannot start for its configuration or its memory (shared memory it cannot map, a value it refuses),
a build that misses a library, a custom script pgbench cannot read: nothing changes between attempts, so the
trial fails at its first with PostgreSQL's (or pgbench's) own message and its HINT and DETAIL lines
(TrialOutcome.deterministic, failure kind CAUSE_REPEATS). A failure not listed here (a crash, a lost connection, a
timeout) is tried again.

Pure functions over the text a server log or pgbench's stderr holds.
"""

from __future__ import annotations

import re

# What the server says when its configuration or its memory keeps it from starting, or a library is missing.
SERVER_CAUSES = (
    "could not map anonymous shared memory",
    "could not create shared memory segment",
    "invalid value for parameter",
    "unrecognized configuration parameter",
    "is outside the valid range for parameter",
    "contains errors",  # configuration file "..." contains errors
    "could not load library",
    "could not access file",
    "error while loading shared libraries",  # the binary itself: the dynamic loader's words
    "database files are incompatible with server",
)
# What pgbench says when it cannot read or run a custom script.
SCRIPT_CAUSES = (
    "syntax error",
    "unrecognized meta-command",
    "could not open file",
    "invalid command",
    "missing argument",
)
# In the error of every trial these end, for the reader; what decides is the failure kind (CAUSE_REPEATS).
REPEATS = "its cause repeats"
_SEVERITY = re.compile(r"\b(FATAL|PANIC|ERROR|LOG|error):\s+")
_FOLLOWING = re.compile(r"\b(HINT|DETAIL):\s+")


def repeating_cause(text: str, causes: tuple[str, ...] = SERVER_CAUSES) -> str | None:
    """The first line of `text` that names one of `causes`, from its severity word on, with the HINT and DETAIL
    lines right after it; None when no line does."""
    lines = text.splitlines()
    for number, line in enumerate(lines):
        if any(cause in line for cause in causes):
            found = [_from_severity(line)]
            for following in lines[number + 1 :]:
                match = _FOLLOWING.search(following)
                if match is None:
                    break
                found.append(following[match.start() :].strip())
            return "\n".join(found)
    return None


def _from_severity(line: str) -> str:
    match = _SEVERITY.search(line)
    return (line[match.start() :] if match else line).strip()
