"""The engine's notes and reasons in the reader's language: the engine (workers/) writes English, and knows nothing
of translations; the pages translate the lines they recognise, and show any other as the engine wrote it."""

import re

from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _

_LINES: list[tuple[re.Pattern[str], Promise]] = [
    (re.compile(r"own symbol table"), _("own symbol table")),
    (re.compile(r"debug symbols installed"), _("debug symbols installed")),
    (
        re.compile(r"stripped, no debug symbols for build ID (?P<build_id>\w+)"),
        _("stripped, no debug symbols for build ID %(build_id)s"),
    ),
    (re.compile(r"stripped, no build ID"), _("stripped, no build ID")),
    (re.compile(r"perf: from an extra profiled run"), _("perf: from an extra profiled run")),
    (re.compile(r"perf run failed: (?P<error>.*)"), _("perf run failed: %(error)s")),
    (re.compile(r"server left running for the next trial"), _("server left running for the next trial")),
    (
        re.compile(r"(?P<collector>[\w-]+): skipped, not installed on the host"),
        _("%(collector)s: skipped, not installed on the host"),
    ),
    (
        re.compile(r"(?P<collector>[\w-]+): skipped, it could not start \((?P<error>.*)\)"),
        _("%(collector)s: skipped, it could not start (%(error)s)"),
    ),
    (
        re.compile(r"(?P<collector>[\w-]+): could not be stopped cleanly \((?P<error>.*)\)"),
        _("%(collector)s: could not be stopped cleanly (%(error)s)"),
    ),
    (re.compile(r"(?P<collector>[\w-]+): no data \((?P<error>.*)\)"), _("%(collector)s: no data (%(error)s)")),
    (re.compile(r"stopped leftovers on (?P<host>\S+): (?P<what>.*)"), _("stopped leftovers on %(host)s: %(what)s")),
    (
        re.compile(r"cleanup: a host does not answer; the next attempt stops what this one left there"),
        _("cleanup: a host does not answer; the next attempt stops what this one left there"),
    ),
    (re.compile(r"cleanup: could not (?P<what>.*)"), _("cleanup: could not %(what)s")),
    (
        re.compile(
            r"(?P<host>\S+) stopped answering during the run \((?P<error>.*)\); its results were fetched once "
            r"it answered again"
        ),
        _("%(host)s stopped answering during the run (%(error)s); its results were fetched once it answered again"),
    ),  # fmt: skip
    (
        re.compile(r"CPU set (?P<cpus>\S+): (?P<count>\d+) server processes inside it during the run"),
        _("CPU set %(cpus)s: %(count)s server processes inside it during the run"),
    ),
    (re.compile(r"cancelled during (?P<step>.*)"), _("cancelled during %(step)s")),
    (
        re.compile(r"attempt (?P<number>\d+): worker lost \(its pool process died\)"),
        _("attempt %(number)s: worker lost (its pool process died)"),
    ),
    (re.compile(r"put back"), _("put back")),
    (re.compile(r"pgbench printed no progress line"), _("pgbench printed no progress line")),
    (re.compile(r"no file was stored"), _("no file was stored")),
    (
        re.compile(r"no profiled run: the measured run did not succeed"),
        _("no profiled run: the measured run did not succeed"),
    ),
]


def engine_text(text: str) -> str:
    """Each line the engine (or the evidence store) wrote, translated where it is one of the known ones; reasons
    joined with '; ' are translated part by part."""
    return "\n".join(_line(line) for line in (text or "").splitlines())


def _line(line: str) -> str:
    whole = _known(line)
    if whole is not None or "; " not in line:
        return whole if whole is not None else line
    return "; ".join(_known(part) or part for part in line.split("; "))


def _known(line: str) -> str | None:
    for pattern, message in _LINES:
        match = pattern.fullmatch(line.strip())
        if match:
            return str(message) % match.groupdict()
    return None
