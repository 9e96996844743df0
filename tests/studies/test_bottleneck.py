"""The bottleneck label of a build at a client level, on constructed cases: each rule, and their order."""

from benchdash.studies.evidence.bottleneck import Bottleneck, Signals, bottleneck


def test_cpu_under_10_percent_with_the_disk_at_100_percent_is_io_bound_as_in_the_seeds_2020_update_runs():
    verdict = bottleneck(Signals(clients=192, cpu_busy=8.0, cpu_iowait=12.0, disk_util_percent=100.0))

    assert verdict.label == Bottleneck.IO
    assert verdict.rule == "disk_util"
    assert verdict.figures == {"value": 100.0, "threshold": 90.0}


def test_high_iowait_is_io_bound():
    verdict = bottleneck(Signals(clients=8, cpu_busy=30.0, cpu_iowait=35.0))

    assert (verdict.label, verdict.rule) == (Bottleneck.IO, "iowait")


def test_backends_mostly_waiting_on_io_are_io_bound():
    verdict = bottleneck(Signals(clients=8, cpu_busy=40.0, wait_share_by_type={"IO": 0.55, "CPU": 0.45}))

    assert (verdict.label, verdict.rule) == (Bottleneck.IO, "io_waits")


def test_wal_insert_lock_waits_make_a_lock_bound_point_even_with_busy_cpus_as_in_the_seeds_2014_runs():
    waits = {"LWLock": 0.35, "CPU": 0.6, "IO": 0.05}
    verdict = bottleneck(Signals(clients=384, cpu_busy=97.0, cpu_iowait=1.0, wait_share_by_type=waits))

    assert verdict.label == Bottleneck.LOCK
    assert verdict.figures["value"] == 35.0


def test_busy_cpus_with_few_waits_are_cpu_bound_and_steal_counts_as_busy():
    verdict = bottleneck(
        Signals(clients=64, cpu_busy=92.0, cpu_iowait=0.5, cpu_steal=20.0, wait_share_by_type={"CPU": 0.95})
    )

    assert verdict.label == Bottleneck.CPU
    assert verdict.figures == {"value": 92.0, "threshold": 85.0, "steal": 20.0}


def test_few_active_backends_for_many_clients_on_idle_cpus_are_client_bound():
    verdict = bottleneck(Signals(clients=16, cpu_busy=25.0, wait_share_by_type={"CPU": 1.0}, active_backends=3.0))

    assert verdict.label == Bottleneck.CLIENT
    assert verdict.figures["value"] == 3.0 and verdict.figures["clients"] == 16.0


def test_nothing_saturated_is_unknown_and_no_data_says_so():
    quiet = bottleneck(Signals(clients=4, cpu_busy=50.0, wait_share_by_type={"CPU": 1.0}, active_backends=3.5))
    blind = bottleneck(Signals(clients=4))

    assert (quiet.label, quiet.rule) == (Bottleneck.UNKNOWN, "none_held")
    assert (blind.label, blind.rule) == (Bottleneck.UNKNOWN, "no_data")


def test_the_thresholds_are_inclusive():
    assert bottleneck(Signals(clients=1, cpu_busy=85.0)).label == Bottleneck.CPU
    assert bottleneck(Signals(clients=1, cpu_busy=84.9)).label == Bottleneck.UNKNOWN
