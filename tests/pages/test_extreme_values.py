"""Pages never answer 500 whatever a trial's stored figures are: 1e300, 1e-300, zero, huge counts."""

import pytest
from django.urls import reverse

from benchdash.studies.models import Study
from tests.factories import BuildFactory, ScenarioFactory, StudyFactory, succeeded_trial

EXTREMES = [1e300, 1e-300, 0.0, 1.7976931348623157e308, 5e-324]


@pytest.fixture
def extreme_study(db: None) -> Study:
    scenario = ScenarioFactory(slug="pgbench-select-only", name="Select only")
    old, new = BuildFactory(version="13.4"), BuildFactory(version="14.0")
    study = StudyFactory(
        builds=[old, new],
        scenarios=[scenario],
        baseline=old,
        official=True,
        status=Study.Status.DONE,
        client_levels=list(range(1, len(EXTREMES) + 1)),
    )
    for clients, value in enumerate(EXTREMES, start=1):
        for build, tps in ((old, value), (new, EXTREMES[-clients])):
            succeeded_trial(
                study,
                build,
                scenario,
                clients,
                1,
                tps,
                tps_including_connections=tps,
                latency_avg_ms=value,
                latency_stddev_ms=value,
                transactions=2**63 - 1,
                failed_transactions=2**63 - 1,
            )
    return study


@pytest.mark.parametrize(
    ("name", "by_study"),
    [
        ("trends:index", False),
        ("trends:csv", False),
        ("studies:list", False),
        ("studies:detail", True),
        ("studies:report", True),
        ("studies:report_csv", True),
        ("studies:trials_csv", True),
        ("studies:summary_csv", True),
        ("studies:evidence_csv", True),
        ("studies:evidence_json", True),
        ("studies:progress", True),
    ],
)
def test_a_page_answers_200_whatever_the_stored_figures(client, extreme_study: Study, name: str, by_study: bool):
    response = client.get(reverse(name, args=[extreme_study.pk] if by_study else []))

    assert response.status_code == 200


def test_the_trial_page_answers_200_with_extreme_figures(client, extreme_study: Study):
    for trial in extreme_study.trials.all():
        assert client.get(reverse("studies:trial", args=[trial.pk])).status_code == 200
