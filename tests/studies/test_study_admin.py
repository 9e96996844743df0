"""The admin edits studies and presets with the new-study form's fields and checks: staff are held to the same
allowlist (widened only in settings.py) and the same numbers."""

import pytest
from django.urls import reverse
from django.utils import translation

from benchdash.studies.admin import StudyAdminForm, StudyPresetAdminForm
from benchdash.studies.models import Study, StudyPreset
from tests.factories import BuildFactory, HostFactory, ScenarioFactory, StudyFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def study():
    build = BuildFactory(name="pg15", version="15.20")
    scenario = ScenarioFactory(slug="pgecons-reference")
    return StudyFactory(
        db_host=HostFactory(name="local", address=""),
        builds=[build],
        scenarios=[scenario],
        baseline=build,
        pg_settings={"work_mem": "4MB"},
    )


def form_data(study: Study, **changes) -> dict:
    data = {
        "title": study.title,
        "year": str(study.year),
        "kind": study.kind,
        "status": study.status,
        "statistic": study.statistic,
        "db_host": study.db_host_id,
        "client_host": study.client_host_id,
        "builds": [build.pk for build in study.builds.all()],
        "baseline": study.baseline_id,
        "scenarios": [scenario.pk for scenario in study.scenarios.all()],
        "client_levels": "1,2",
        "repetitions": "1",
        "duration_s": "2",
        "scale": "1",
        "pg_settings": "work_mem = 8MB",
        "collect_sar": "on",
        "seed": "1",
    }
    data.update(changes)
    return data


def errors(form) -> dict[str, str]:
    with translation.override("en"):
        return {field: " ".join(messages) for field, messages in form.errors.items()}


def test_a_valid_edit_saves_the_settings_as_a_mapping(study):
    form = StudyAdminForm(data=form_data(study), instance=study)
    assert form.is_valid(), form.errors
    form.save()
    study.refresh_from_db()
    assert study.pg_settings == {"work_mem": "8MB"}


@pytest.mark.parametrize(
    ("changes", "field", "message"),
    [
        ({"pg_settings": "archive_command = 'curl x | sh'"}, "pg_settings", "runs a command"),
        ({"pg_settings": "listen_addresses = '*'"}, "pg_settings", "where the server listens"),
        ({"pg_settings": "shared_buffers = banana"}, "pg_settings", "PostgreSQL 15 wants a number"),
        ({"client_levels": "１,２"}, "client_levels", "is not a positive whole number"),
        ({"client_levels": "1,500"}, "client_levels", "above max_connections"),
        ({"duration_s": "86400"}, "duration_s", "At most 3000 s"),
        ({"seed": "2147483648"}, "seed", "from 0 to 2147483647"),
        ({"scale": "٣"}, "scale", "digits 0 to 9"),
    ],
)
def test_an_edit_the_form_would_refuse_is_refused_and_changes_nothing(study, changes, field, message):
    form = StudyAdminForm(data=form_data(study, **changes), instance=study)
    assert not form.is_valid()
    assert message in errors(form)[field]
    study.refresh_from_db()
    assert study.pg_settings == {"work_mem": "4MB"}


def test_a_published_study_keeps_its_figures_without_a_host_but_not_a_forbidden_setting(study):
    Study.objects.filter(pk=study.pk).update(kind=Study.Kind.PUBLISHED)
    study.refresh_from_db()
    data = form_data(study, db_host="", client_host="", client_levels="", duration_s="60")
    assert StudyAdminForm(data=data, instance=study).is_valid()
    refused = StudyAdminForm(data={**data, "pg_settings": "restore_command = 'x'"}, instance=study)
    assert "runs a command" in errors(refused)["pg_settings"]


def test_a_preset_takes_only_settings_every_major_takes():
    scenario = ScenarioFactory(slug="pgecons-reference")
    data = {"slug": "p", "name": "p", "scenarios": [scenario.pk], "client_levels": "1,16", "repetitions": "3"}
    data.update(duration_s="60", scale="10", pg_settings="shared_buffers = 40GB")
    assert StudyPresetAdminForm(data=data).is_valid()
    out_of_range = StudyPresetAdminForm(data={**data, "pg_settings": "checkpoint_timeout = 2d"})
    assert "PostgreSQL 10 accepts 30s to 1d" in errors(out_of_range)["pg_settings"]
    forbidden = StudyPresetAdminForm(data={**data, "pg_settings": "port = 1"})
    assert "where the server listens" in errors(forbidden)["pg_settings"]
    assert not StudyPreset.objects.exists()


def test_the_admin_change_page_shows_the_settings_as_lines(admin_client, study):
    response = admin_client.get(reverse("admin:studies_study_change", args=[study.pk]))
    assert response.status_code == 200
    assert "work_mem = 4MB</textarea>" in response.content.decode()
