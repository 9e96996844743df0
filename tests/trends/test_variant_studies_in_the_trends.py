"""An official study of variants in the trends: its version links compare builds at the baseline variant's
conditions (checksums, CPUs, settings...), never a build of one condition with a build of another."""

import pytest

from benchdash.studies.models import Variant
from benchdash.trends.queries import trend_of
from tests.factories import BuildFactory, ScenarioFactory, StudyFactory, succeeded_trial

pytestmark = pytest.mark.django_db


def test_a_study_of_builds_and_checksums_links_its_builds_at_the_baseline_s_checksums_only():
    scenario = ScenarioFactory(slug="reference-checksums")
    v93, v94 = BuildFactory(name="9.3", version="9.3.5"), BuildFactory(name="9.4", version="9.4.0")
    study = StudyFactory(builds=[v93, v94], baseline=v93, scenarios=[scenario], status="done", official=True)
    Variant.objects.filter(study=study).update(data_checksums=False)
    Variant.objects.filter(study=study, build=v93).update(label="9.3 checksums=off")
    Variant.objects.filter(study=study, build=v94).update(label="9.4 checksums=off")
    for build, position in ((v93, 2), (v94, 3)):
        label = f"{build.name} checksums=on"
        Variant.objects.create(study=study, build=build, label=label, data_checksums=True, position=position)
    # Off: 9.4 is 10% faster than 9.3. On: 9.4 is 30% slower; a 9.3-off against 9.4-on link would say x0.63.
    tps = {("9.3", False): 1000.0, ("9.4", False): 1100.0, ("9.3", True): 900.0, ("9.4", True): 630.0}
    for variant in Variant.objects.filter(study=study).select_related("build"):
        tps_here = tps[(variant.build.name, variant.data_checksums)]
        succeeded_trial(study, variant.build, scenario, 1, 1, tps_here, variant=variant)

    trend = trend_of(scenario)

    assert [(link.older_version, link.newer_version) for link in trend.links] == [("9.3", "9.4")]
    assert trend.links[0].ratio == pytest.approx(1.1)
    assert [(point.version, round(point.index, 1)) for point in trend.index] == [("9.3", 100.0), ("9.4", 110.0)]
