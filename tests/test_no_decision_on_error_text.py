"""No code decides on an error's text (issue 40): what kind of failure a trial had is its failure kind, a field set
where the failure is known; the error is its detail, shown as the engine wrote it. Every module of benchdash/ and
workers/ is read (tests/error_text_reads.py); a read of an error's text fails this test, but in ALLOWED."""

import re
from pathlib import Path

import pytest

from tests.error_text_reads import Read, reads_in_source, reads_in_tree

ROOT = Path(__file__).resolve().parent.parent

ALLOWED = {
    # The data migration gives the rows written before the field their kind, once, from their words.
    ("benchdash/studies/migrations/0027_trial_failure_kind.py", "in error"),
}
# A template filter that would translate, or explain, an error from its text.
_TEMPLATE_READ = re.compile(r"\berror\|(?!default|linebreaks)\w+")


@pytest.fixture(scope="module")
def reads() -> list[Read]:
    """benchdash/ and workers/ read once for the module's two tests of them."""
    return [read for top in ("benchdash", "workers") for read in reads_in_tree(ROOT / top, ROOT)]


def test_no_module_of_benchdash_or_workers_reads_an_errors_text(reads):
    found = reads

    unallowed = [read for read in found if (read.path, read.what) not in ALLOWED]

    if unallowed:
        listed = "\n".join(str(read) for read in unallowed)
        pytest.fail(f"an error's text decides; set and read a failure kind instead:\n{listed}", pytrace=False)


def test_every_allowed_read_is_still_there(reads):
    found = {(read.path, read.what) for read in reads}

    assert ALLOWED - found == set()


def test_no_template_filters_an_error_into_other_words():
    found = [
        f"{path.relative_to(ROOT)}: {match.group()}"
        for path in sorted((ROOT / "templates").rglob("*.html"))
        for match in _TEMPLATE_READ.finditer(path.read_text())
    ]

    assert found == []


@pytest.mark.parametrize(
    ("source", "what"),
    [
        ("study.trials.filter(error__contains=REPEATS)", "error__contains="),
        ("Host.objects.filter(facts_error__istartswith='x')", "facts_error__istartswith="),
        ("Q(error__regex='^attempt')", "error__regex="),
        ("found = NO_ROOM_FIGURES.search(error)", "search() over an error"),
        ("re.match(r'x', trial.error or '')", "match() over an error"),
        ("if 'worker lost' in attempt.error: pass", "in error"),
        ("if REPEATS not in error: pass", "in error"),
        ("trial.error.startswith('attempt 1: cancelled')", "error.startswith()"),
    ],
)
def test_each_way_of_reading_an_errors_text_is_found(source, what):
    assert [read.what for read in reads_in_source(source)] == [what]


@pytest.mark.parametrize(
    "source",
    [
        "study.trials.filter(failure_kind=FailureKind.CAUSE_REPEATS)",
        "isinstance(error, ConnectionLost)",
        "Trial.objects.exclude(error='')",
        "if line.startswith('#'): pass",
        "pattern.search(stderr)",
    ],
)
def test_reading_a_failure_kind_or_other_text_is_not_a_read_of_an_error(source):
    assert reads_in_source(source) == []
