"""The CSV downloads: bytes, headers, cells, and formula neutralisation, through the real views."""

import csv
import io
from datetime import UTC, datetime

import pytest
from django.core.management import call_command
from django.db import DEFAULT_DB_ALIAS, connection, connections
from django.urls import reverse

from benchdash.studies.csv_export import SUMMARY_HEADER, TRIAL_HEADER, inert, trials_csv_chunks
from benchdash.studies.models import Study, Trial
from benchdash.trends.csv_export import TRENDS_HEADER
from tests.factories import BuildFactory, ScenarioFactory, StudyFactory, TrialFactory

pytestmark = pytest.mark.django_db

BOM = b"\xef\xbb\xbf"


def _download(client, url: str) -> tuple[bytes, list[list[str]]]:
    response = client.get(url)
    assert response.status_code == 200
    body = b"".join(response.streaming_content)
    return body, list(csv.reader(io.StringIO(body.decode("utf-8-sig"))))


@pytest.fixture
def study_2021():
    v13, v14 = BuildFactory(version="13.4"), BuildFactory(version="14.0")
    reference = ScenarioFactory(slug="reference", name="参照系")
    study = StudyFactory(
        title="2021年度 定点観測", year=2021, baseline=v13, builds=[v13, v14], scenarios=[reference], official=True
    )
    for position, (build, tps) in enumerate([(v13, 437.2413), (v14, 412.9373)]):
        TrialFactory(
            study=study,
            build=build,
            scenario=reference,
            clients=1,
            threads=1,
            position=position,
            status=Trial.Status.SUCCEEDED,
            tps=tps,
            latency_avg_ms=2.5,
            transactions=26234,
            failed_transactions=0,
        )
    return study


def test_a_trials_file_starts_with_a_bom_and_names_itself(client, study_2021):
    response = client.get(reverse("studies:trials_csv", args=[study_2021.id]))
    body = b"".join(response.streaming_content)
    assert body.startswith(BOM + b"study_id,study,year,")
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    assert response["Content-Disposition"] == f'attachment; filename="benchdash-study-{study_2021.id}-trials.csv"'


def test_a_trials_file_has_a_row_per_trial_cell_by_cell(client, study_2021):
    _, rows = _download(client, reverse("studies:trials_csv", args=[study_2021.id]))
    assert rows[0] == list(TRIAL_HEADER)
    assert len(rows) == 3
    first = dict(zip(TRIAL_HEADER, rows[1], strict=True))
    assert first["study"] == "2021年度 定点観測"
    assert (first["year"], first["host"], first["build_version"], first["scenario"]) == (
        "2021",
        "local",
        "13.4",
        "reference",
    )
    assert (first["clients"], first["threads"], first["repetition"], first["order"]) == ("1", "1", "1", "0")
    assert (first["status"], first["published"], first["tps"]) == ("succeeded", "false", "437.2413")
    assert (first["latency_avg_ms"], first["transactions"], first["failed_transactions"]) == ("2.5", "26234", "0")
    assert (first["tps_including_connections"], first["started_at"]) == ("", "")
    assert first["variant"] == first["build"]  # a study of builds: each line is its build
    assert dict(zip(TRIAL_HEADER, rows[2], strict=True))["tps"] == "412.9373"


def test_a_summary_file_gives_median_range_and_ratio(client, study_2021):
    body, rows = _download(client, reverse("studies:summary_csv", args=[study_2021.id]))
    assert body.startswith(BOM)
    assert rows[0] == list(SUMMARY_HEADER)
    baseline, newer = (dict(zip(SUMMARY_HEADER, row, strict=True)) for row in rows[1:])
    assert (baseline["build_version"], baseline["baseline"], baseline["ratio_to_baseline"]) == ("13.4", "true", "")
    assert (newer["build_version"], newer["median_tps"], newer["n"]) == ("14.0", "412.9373", "1")
    assert newer["ratio_to_baseline"] == "0.9444"  # 0.944416..., rounded to four places
    assert newer["ranges_disjoint"] == ""  # one run a side: a range says nothing, so it cannot tell
    assert (newer["cv"], newer["ratio_low"], newer["ratio_high"], newer["verdict"]) == ("", "", "", "too_few_runs")
    assert (baseline["verdict"], newer["threshold"]) == ("", "0.02")


def test_a_summary_file_gives_the_spread_interval_and_verdict_of_five_runs(client, study_2021):
    v13, v14 = (study_2021.builds.get(version=version) for version in ("13.4", "14.0"))
    scenario = study_2021.scenarios.get()
    runs = {v13: [437.2413, 430.0, 440.0, 445.0, 435.0], v14: [412.9373, 410.0, 415.0, 405.0, 420.0]}
    Trial.objects.filter(study=study_2021).delete()
    for build, tps_values in runs.items():
        for repetition, tps in enumerate(tps_values, start=1):
            TrialFactory(
                study=study_2021,
                build=build,
                scenario=scenario,
                clients=1,
                repetition=repetition,
                status=Trial.Status.SUCCEEDED,
                tps=tps,
            )
    _, rows = _download(client, reverse("studies:summary_csv", args=[study_2021.id]))
    baseline, newer = (dict(zip(SUMMARY_HEADER, row, strict=True)) for row in rows[1:])
    assert baseline["cv"] == "0.0128"
    assert float(newer["ratio_low"]) == pytest.approx(410 / 445, abs=5e-5)  # 3rd smallest of the 25 pairwise ratios
    assert float(newer["ratio_high"]) == pytest.approx(415 / 430, abs=5e-5)  # 3rd largest
    assert float(newer["interval_confidence"]) == pytest.approx(1 - 8 / 252, abs=5e-5)
    assert newer["interval_method"] == "rank"  # no recent study on the host to borrow a spread from
    assert newer["verdict"] == "slower"


def test_a_trends_file_holds_the_index_then_the_points(client, study_2021):
    _, rows = _download(client, reverse("trends:csv"))
    assert rows[0] == list(TRENDS_HEADER)
    cells = [dict(zip(TRENDS_HEADER, row, strict=True)) for row in rows[1:]]
    assert [(c["kind"], c["version"], c["build_version"]) for c in cells] == [
        ("index", "13", ""),
        ("index", "14", ""),
        ("point", "", "13.4"),
        ("point", "", "14.0"),
    ]
    assert cells[0]["index"] == "100.0"
    assert float(cells[1]["index"]) == pytest.approx(100 * 412.9373 / 437.2413)
    assert (cells[1]["study"], cells[1]["year"], cells[3]["median_tps"]) == ("2021年度 定点観測", "2021", "412.9373")
    assert (cells[1]["link_older_version"], cells[1]["link_newer_version"], cells[1]["statistic"]) == (
        "13",
        "14",
        "median",
    )
    assert (cells[0]["link_older_version"], cells[0]["link_ratio"]) == ("", "")  # a segment's start has no link
    assert (cells[3]["statistic"], cells[3]["conditions"], cells[3]["year_inferred"]) == ("median", "", "false")


def test_the_trends_file_reads_official_studies_only(client, study_2021):
    study_2021.mark_official(False)
    _, rows = _download(client, reverse("trends:csv"))
    assert rows[1:] == []


@pytest.mark.parametrize("title", ['=HYPERLINK("http://evil.example","x")', "+1", "@SUM(A1:A2)", "-2+3", "\tx", "\rx"])
def test_a_title_that_looks_like_a_formula_comes_out_inert(client, study_2021, title):
    study_2021.title = title
    study_2021.save()
    _, rows = _download(client, reverse("studies:trials_csv", args=[study_2021.id]))
    assert rows[1][1] == "'" + title


@pytest.mark.parametrize("title", ["=1+1", "@SUM(A1)"])
def test_a_formula_title_is_inert_in_the_summary_and_the_trends_too(client, study_2021, title):
    study_2021.title = title
    study_2021.save()
    _, summary = _download(client, reverse("studies:summary_csv", args=[study_2021.id]))
    _, trends = _download(client, reverse("trends:csv"))
    assert summary[1][1] == "'" + title
    assert trends[2][TRENDS_HEADER.index("study")] == "'" + title


def test_times_are_written_in_the_local_time_zone(client, study_2021):
    trial = study_2021.trials.order_by("position").first()
    trial.started_at = datetime(2021, 10, 1, 3, 4, 5, 678000, tzinfo=UTC)
    trial.save()
    _, rows = _download(client, reverse("studies:trials_csv", args=[study_2021.id]))
    assert rows[1][TRIAL_HEADER.index("started_at")] == "2021-10-01 12:04:06"


def _add_trials(study: Study, count: int) -> None:
    build, scenario = study.baseline, study.scenarios.get()
    Trial.objects.bulk_create(
        Trial(study=study, build=build, scenario=scenario, clients=2, repetition=r, position=10 + r, tps=1.0)
        for r in range(1, count + 1)
    )


def test_a_download_stopped_half_way_leaves_the_connection_usable(study_2021):
    _add_trials(study_2021, 3000)
    chunks = trials_csv_chunks(study_2021)
    first, second = next(chunks), next(chunks)
    chunks.close()  # what response.close() does when the client goes away
    assert first.startswith(BOM)
    assert len(second) >= 64 * 1024
    assert Trial.objects.filter(study=study_2021).count() == 3002


@pytest.mark.django_db(transaction=True)
def test_a_slow_reader_of_the_trials_file_holds_no_transaction_or_statement_open(study_2021):
    _add_trials(study_2021, 3000)
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        (pid,) = cursor.fetchone()
    chunks = trials_csv_chunks(study_2021)
    next(chunks), next(chunks)  # the header, then the first 64 KiB: the reader pauses here

    onlooker = connections.create_connection(DEFAULT_DB_ALIAS)
    with onlooker.cursor() as cursor:
        cursor.execute("SELECT state, backend_xmin IS NULL FROM pg_stat_activity WHERE pid = %s", [pid])
        state = cursor.fetchone()
    onlooker.close()
    rest = b"".join(chunks)

    assert state == ("idle", True)
    assert not connection.in_atomic_block
    assert rest.count(b"\n") > 2000


def test_numbers_stay_numbers_even_when_negative():
    assert inert(-2.5) == -2.5
    assert inert(0) == 0
    assert inert("-2.5") == "'-2.5"
    assert inert("参照系") == "参照系"


def test_reading_needs_a_login_when_reading_is_not_public(client, study_2021, settings):
    settings.PUBLIC_READ = False
    response = client.get(reverse("studies:summary_csv", args=[study_2021.id]))
    assert response.status_code == 302
    assert "/login/" in response["Location"]


def test_an_unknown_study_is_not_found(client):
    assert client.get(reverse("studies:trials_csv", args=[999999])).status_code == 404


def test_published_figures_leave_what_their_source_does_not_state_empty(client):
    call_command("load_presets", stdout=io.StringIO())
    study = Study.objects.get(title__contains="peak TPS")

    _, trial_rows = _download(client, reverse("studies:trials_csv", args=[study.id]))
    trials = [dict(zip(TRIAL_HEADER, row, strict=True)) for row in trial_rows[1:]]
    assert [(t["build_version"], t["clients"], t["threads"], t["repetition"], t["order"]) for t in trials] == [
        ("9.3", "192", "", "", ""),
        ("9.4rc1", "320", "", "", ""),
    ]
    assert {(t["statistic"], t["conditions"], t["published"]) for t in trials} == {("peak", "15 cores", "true")}

    _, summary_rows = _download(client, reverse("studies:summary_csv", args=[study.id]))
    summary = [dict(zip(SUMMARY_HEADER, row, strict=True)) for row in summary_rows[1:]]
    assert [(s["median_tps"], s["min_tps"], s["max_tps"], s["n"], s["ranges_disjoint"]) for s in summary] == [
        ("34000.0", "", "", "", ""),
        ("41000.0", "", "", "", ""),
    ]
    assert {(s["statistic"], s["conditions"]) for s in summary} == {("peak", "15 cores")}


def test_a_published_median_of_three_runs_says_n_3_and_cannot_tell_its_range(client):
    call_command("load_presets", stdout=io.StringIO())
    study = Study.objects.get(year=2021)

    _, rows = _download(client, reverse("studies:summary_csv", args=[study.id]))

    newer = next(dict(zip(SUMMARY_HEADER, row, strict=True)) for row in rows[1:] if row[5] == "14.0")
    assert (newer["clients"], newer["median_tps"], newer["n"], newer["ranges_disjoint"]) == ("1", "412.9373", "3", "")
    assert newer["statistic"] == "median"


def test_computed_numbers_are_rounded_to_four_places_without_float_noise(client):
    call_command("load_presets", stdout=io.StringIO())

    _, rows = _download(client, reverse("trends:csv"))

    cells = [dict(zip(TRENDS_HEADER, row, strict=True)) for row in rows[1:]]
    index = {(c["scenario"], c["version"]): c for c in cells if c["kind"] == "index"}
    assert (index["pgbench-tpcb", "9.6"]["index"], index["pgbench-tpcb", "11"]["index"]) == ("109.0", "117.0")
    assert index["pgbench-tpcb", "11"]["link_ratio"] == "1.0734"  # 117 / 109, not 1.073394495412844
    assert all(len(c["index"].partition(".")[2]) <= 4 for c in cells if c["index"])
