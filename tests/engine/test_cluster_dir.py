"""Where a trial's cluster lives: one per build, scenario, scale and fillfactor."""

from workers.spec import BuildSpec, HostSpec, ScenarioSpec, TrialSpec
from workers.trial_cluster import cluster_dir, data_marker


def _spec(scenario: str, build: str = "PostgreSQL 16.14 archive", fillfactor: int | None = None) -> TrialSpec:
    host = HostSpec(name="local", work_dir="/var/tmp/bd")
    return TrialSpec(
        trial_id=1,
        study_id=7,
        db_host=host,
        client_host=host,
        build=BuildSpec(name=build, kind="archive", version="16.14"),
        scenario=ScenarioSpec(slug=scenario),
        clients=2,
        threads=1,
        duration_s=2,
        scale=10,
        fillfactor=fillfactor,
    )


def test_each_scenario_of_a_build_gets_its_own_cluster_so_writes_never_reach_a_read_workload():
    reference, tpcb = _spec("pgecons-reference"), _spec("pgbench-tpcb")
    assert cluster_dir(reference) == "/var/tmp/bd/clusters/PostgreSQL-16.14-archive-pgecons-reference-s10-f100"
    assert cluster_dir(tpcb) == "/var/tmp/bd/clusters/PostgreSQL-16.14-archive-pgbench-tpcb-s10-f100"
    assert data_marker(reference, "16.14")["scenario"] == "pgecons-reference"


def test_the_fillfactor_and_the_build_are_part_of_the_place():
    assert cluster_dir(_spec("pgecons-update", fillfactor=80)).endswith("-pgecons-update-s10-f80")
    assert cluster_dir(_spec("x", build="../../etc; rm -rf /")) == "/var/tmp/bd/clusters/etc-rm--rf-x-s10-f100"
