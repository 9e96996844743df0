"""Every CSV download, header rows included, writes a build, scenario or host name that starts like a spreadsheet
formula (= + - @ tab CR) with a leading apostrophe: one rule (csv_cells.inert) for every cell."""

import csv
import io

import pytest
from django.urls import reverse

from benchdash.studies.evidence.store import evidence_refresh
from benchdash.studies.models import Study
from tests.evidence_samples import SEED_13, folded, real_artifacts
from tests.factories import BuildFactory, HostFactory, ScenarioFactory, StudyFactory, succeeded_trial

pytestmark = pytest.mark.django_db

TRIGGERS = ["=", "+", "-", "@", "\t", "\r"]
# Each name carries MARK, so that every cell holding one can be found in any file.
MARK = "evil"


@pytest.fixture(params=TRIGGERS, ids=repr)
def study(request) -> Study:
    """An official study whose host, builds and scenario names all start with the trigger; every evidence kind."""
    trigger = request.param
    host = HostFactory(name=f"{trigger}{MARK}-host")
    scenario = ScenarioFactory(slug=f"{trigger}{MARK}-scenario")
    old = BuildFactory(version="13.4", name=f"{trigger}{MARK} 13.4")
    new = BuildFactory(version="14.0", name=f"{trigger}{MARK} 14.0")
    study = StudyFactory(
        title="formula names",
        db_host=host,
        builds=[old, new],
        scenarios=[scenario],
        baseline=old,
        status=Study.Status.DONE,
        official=True,
        collect_sar=True,
        collect_wait_events=True,
        collect_perf=True,
    )
    for build, tps in ((old, 437.0), (new, 412.0)):
        trial = succeeded_trial(study, build, scenario, 1, 1, tps, transactions=int(tps * 4))
        evidence_refresh(trial=trial, artifacts={**real_artifacts(), "perf_folded": folded(SEED_13)})
    return study


def downloads(study: Study) -> dict[str, str]:
    trial = study.trials.order_by("position", "id").first()
    study_files = ["trials_csv", "summary_csv", "report_csv", "evidence_csv", "wait_events_csv", "perf_csv"]
    urls = {name: reverse(f"studies:{name}", args=[study.pk]) for name in study_files}
    return {**urls, "trial_series_csv": reverse("studies:trial_series_csv", args=[trial.pk]), "trends": "/trends.csv"}


def cells(client, url: str) -> list[list[str]]:
    response = client.get(url)
    assert response.status_code == 200 and response["Content-Type"] == "text/csv; charset=utf-8"
    text = b"".join(response.streaming_content).decode("utf-8-sig")
    return list(csv.reader(io.StringIO(text, newline="")))


def test_every_cell_with_a_name_in_every_csv_download_is_inert(client, study) -> None:
    files = {name: cells(client, url) for name, url in downloads(study).items()}

    named = {name: [cell for row in rows for cell in row if MARK in cell] for name, rows in files.items()}
    assert {name: [cell for cell in found if not cell.startswith("'")] for name, found in named.items()} == {
        name: [] for name in files
    }
    # Where names are expected: every file but a trial's series (seconds and figures only).
    assert {name for name, found in named.items() if found} == set(files) - {"trial_series_csv"}
    assert any(MARK in cell for cell in files["report_csv"][0])  # the report's header carries the build names
    assert any(cell.endswith(f"{MARK}-host") for row in files["trials_csv"] for cell in row)


def test_a_carriage_return_inside_a_name_stays_inside_its_cell(client, db) -> None:
    """A spreadsheet breaks the line at a bare CR: unquoted, "=SUM(1)" would start a line, as a formula."""
    scenario = ScenarioFactory(slug="ok\r=SUM(1)")
    build = BuildFactory(version="15.0")
    study = StudyFactory(builds=[build], scenarios=[scenario], baseline=build, status=Study.Status.DONE)
    succeeded_trial(study, build, scenario, 1, 1, 100.0)

    rows = cells(client, reverse("studies:summary_csv", args=[study.pk]))

    assert len(rows) == 2 and rows[1][3] == "ok\r=SUM(1)"
