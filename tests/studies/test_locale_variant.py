"""A locale variant is checked against its host's `locale -a` when the study is queued (issue 41, point 9): the form
and queue_study refuse a locale the host lacks, or one on a host whose locales are not known, with the reason, and
queue nothing; unchecked, initdb would refuse it on every attempt."""

import io

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.utils import translation

from benchdash.studies.design import design_problems_offline
from benchdash.studies.forms import StudyForm
from benchdash.studies.models import Study
from benchdash.studies.variant_design import Axis
from tests.factories import BuildFactory, HostFactory, ScenarioFactory

pytestmark = pytest.mark.django_db
INSTALLED = ["C", "C.utf8", "POSIX", "en_US.utf8"]
ABSENT = "pg15 locale=ja_JP.UTF-8: db has no locale ja_JP.UTF-8 (locale -a lists C, C.utf8, POSIX, en_US.utf8)."
UNKNOWN = (
    "pg15 locale=ja_JP.UTF-8: the locales of db are not known (its facts hold no locale -a): read its facts "
    "(register_local, pin_host_key, or a save of the host in the admin) before a study names locale ja_JP.UTF-8."
)


@pytest.fixture
def rows():
    return {
        "build": BuildFactory(name="pg15", version="15.4", version_sort=150004),
        "scenario": ScenarioFactory(slug="ref-locale"),
    }


def form(rows, host, vary: str) -> StudyForm:
    """The study form of one build on host, bound to these axes."""
    data = {
        "title": "locales",
        "year": "2026",
        "db_host": host.pk,
        "builds": [rows["build"].pk],
        "baseline": rows["build"].pk,
        "scenarios": [rows["scenario"].pk],
        "client_levels": "1",
        "repetitions": "1",
        "run_order": "random",
        "duration_s": "1",
        "scale": "1",
        "seed": "1",
        "vary": vary,
    }
    return StudyForm(data)


def refusals(rows, host, vary: str) -> dict[str, list[str]]:
    """What the form refuses, in English, by field."""
    with translation.override("en"):
        bound = form(rows, host, vary)
        return {name: list(errors) for name, errors in bound.errors.items()}


def test_the_form_refuses_a_locale_the_host_does_not_list(rows):
    host = HostFactory(name="db", facts={"locales": INSTALLED})
    assert refusals(rows, host, "locale=C,ja_JP.UTF-8") == {"vary": [ABSENT]}


def test_the_form_takes_a_locale_the_host_lists_however_its_codeset_is_written(rows):
    host = HostFactory(name="db", facts={"locales": INSTALLED})
    assert refusals(rows, host, "locale=C,en_US.UTF-8") == {}


def test_on_a_host_of_unknown_locales_only_c_and_posix_pass(rows):
    host = HostFactory(name="db", facts={})
    assert refusals(rows, host, "locale=C,ja_JP.UTF-8") == {"vary": [UNKNOWN]}
    assert refusals(rows, host, "locale=C,POSIX") == {}


def test_the_facts_given_with_a_design_decide_for_its_own_db_host(rows):
    host = HostFactory(name="db", facts={})
    bound = form(rows, host, "locale=C,POSIX")
    assert bound.is_valid()
    design = bound.design().replace(vary=(Axis("locale", ("C", "en_US.UTF-8")),))
    with translation.override("en"):
        assert design_problems_offline(design, {"locales": INSTALLED}) == {}
        refused = design_problems_offline(design, {"locales": ["C", "POSIX"]})
        messages = [error.messages[0] for error in refused["vary"]]
    assert messages == ["pg15 locale=en_US.UTF-8: db has no locale en_US.UTF-8 (locale -a lists C, POSIX)."]


def test_queue_study_refuses_a_locale_the_host_does_not_list_and_queues_nothing(rows):
    HostFactory(name="db", facts={"locales": INSTALLED})
    with translation.override("en"), pytest.raises(CommandError) as refused:
        call_command(
            *("queue_study", "--host", "db", "--builds", "pg15", "--scenarios", "ref-locale", "--clients", "1"),
            *("--duration", "1", "--vary", "locale=C,ja_JP.UTF-8"),
            stdout=io.StringIO(),
        )
    assert str(refused.value) == f"the study was not queued: vary: {ABSENT}"
    assert not Study.objects.exists()


def test_the_refusal_of_a_host_of_unknown_locales_reads_in_japanese(rows):
    host = HostFactory(name="db", facts={})
    with translation.override("ja"):
        message = str(form(rows, host, "locale=C,ja_JP.UTF-8").errors["vary"][0])
    assert message.startswith("pg15 locale=ja_JP.UTF-8: db のロケールがわかりません（ホストの情報に locale -a")
