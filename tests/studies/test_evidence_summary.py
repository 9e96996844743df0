"""A trial's evidence summarised from real collector outputs: CPU breakdown, CPU per transaction, disk, memory,
wait-event shares, per-second TPS with warm-up and instability."""

import json

import pytest

from benchdash.studies.evidence.summary import (
    UNSTABLE_CV,
    summarize_progress,
    summarize_trial,
    wait_shares,
    warmup_seconds,
)
from tests.evidence_samples import real_artifacts


def test_the_cpu_breakdown_is_the_mean_of_the_run_s_sar_samples_leaving_out_the_idle_tail():
    summary = summarize_trial(real_artifacts(), transactions=6000, duration_s=4)

    # sadf -j: 5 samples; the 5th (idle 95.48) came after pgbench ended and is left out.
    assert summary.sar.cpu == pytest.approx(
        {"user": 38.6625, "system": 40.9725, "iowait": 5.9675, "steal": 0.13, "idle": 14.27}
    )
    assert summary.sar.cpus == 2
    assert summary.sar.disk_device == "vda"
    assert summary.sar.disk_util_percent == pytest.approx(27.7)
    assert summary.sar.disk_await_ms == pytest.approx(0.0725)
    assert summary.sar.memory_used_percent == pytest.approx(2.8725)


def test_cpu_time_per_transaction_is_user_plus_system_times_cpus_times_seconds_over_transactions():
    summary = summarize_trial(real_artifacts(), transactions=6000, duration_s=4)

    # (38.6625 + 40.9725) % x 2 CPUs x 4 s = 6.3708 CPU seconds for 6000 transactions
    assert summary.cpu_ms_per_transaction == pytest.approx(6370.8 / 6000)


def test_wait_events_are_counted_over_the_run_s_samples_and_shared_out():
    summary = summarize_trial(real_artifacts(), transactions=6000, duration_s=4)

    assert summary.waits.samples == 4
    assert summary.waits.counts == [
        {"wait_event_type": "Lock", "wait_event": "transactionid", "count": 5},
        {"wait_event_type": "IO", "wait_event": "WALSync", "count": 1},
    ]
    assert [round(row["share"], 4) for row in wait_shares(summary.waits.counts)] == [0.8333, 0.1667]
    assert summary.waits.active_mean == pytest.approx(1.5)


def test_without_a_duration_every_sample_counts():
    summary = summarize_trial(real_artifacts(), transactions=None, duration_s=None)

    assert summary.sar.cpu["idle"] == pytest.approx((14.06 + 14.14 + 15.03 + 13.85 + 95.48) / 5)
    assert summary.waits.samples == 6
    assert summary.cpu_ms_per_transaction is None


def test_the_per_second_series_share_one_time_axis_in_seconds_since_the_start():
    series = summarize_trial(real_artifacts(), transactions=6000, duration_s=4).series

    assert series["progress"]["t"] == [1.0, 2.0, 3.0]
    assert series["progress"]["tps"] == [1419.0, 1770.9, 1334.1]
    assert series["sar"]["t"] == [1.0, 2.0, 3.0, 4.0]
    assert series["sar"]["cpu"]["user"] == [41.15, 40.31, 36.27, 36.92]
    assert series["waits"]["t"] == [1.0, 1.999, 2.999, 3.999, 4.999, 5.999]
    assert series["waits"]["by_type"] == {"IO": [0, 0, 0, 1, 0, 0], "Lock": [2, 1, 1, 1, 1, 0]}
    json.dumps(series)  # stored as JSON


def test_the_real_three_second_run_is_flagged_unstable_by_its_coefficient_of_variation():
    progress = summarize_trial(real_artifacts(), transactions=6000, duration_s=3).progress

    # 1419.0, 1770.9, 1334.1: mean 1508.0, population stdev 189.1
    assert progress.seconds == 3
    assert progress.tps_mean == pytest.approx(1508.0)
    assert progress.tps_cv == pytest.approx(0.1254, abs=1e-4)
    assert progress.tps_cv > UNSTABLE_CV and progress.unstable


def test_the_warm_up_seconds_are_left_out_of_the_coefficient_of_variation():
    rates = [200.0, 600.0, 950.0, 1000.0, 1010.0, 990.0, 1000.0, 1005.0, 995.0, 1000.0]
    progress = summarize_progress([{"t": n + 1.0, "tps": rate} for n, rate in enumerate(rates)])

    assert warmup_seconds(rates) == 2
    assert progress.warmup_s == 2.0
    assert progress.tps_cv < 0.02 and not progress.unstable


def test_a_steady_run_has_no_warm_up_and_is_stable():
    rates = [1000.0, 1010.0, 990.0, 1000.0, 1005.0, 995.0]
    progress = summarize_progress([{"t": n + 1.0, "tps": rate} for n, rate in enumerate(rates)])

    assert progress.warmup_s == 0.0
    assert not progress.unstable


def test_a_kind_that_is_absent_gives_nothing_for_its_part():
    artifacts = real_artifacts()
    del artifacts["sar_series"], artifacts["perf_folded"]

    summary = summarize_trial(artifacts, transactions=6000, duration_s=4)

    assert summary.sar is None and summary.perf is None and summary.cpu_ms_per_transaction is None
    assert summary.waits is not None and summary.progress is not None
    assert "sar" not in summary.series
