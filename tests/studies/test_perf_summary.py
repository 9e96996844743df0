"""perf's folded stacks: top functions by self and by children share, the flame graph's tree, and the
differential of two builds, on real stacks and on a case like the seeds' 13.4 vs 14.0 (index_fetch_heap)."""

import pytest

from benchdash.studies.evidence.perf import parse_folded, perf_differential, summarize_perf
from tests.evidence_samples import SEED_13, SEED_14, folded, real_artifacts


def test_the_real_stacks_give_self_and_children_shares_of_all_samples():
    perf = summarize_perf(real_artifacts()["perf_folded"].decode())

    assert perf.samples == 80
    top = perf.self_shares[0]
    assert (top.function, top.samples, top.share) == ("[postgres]", 19, pytest.approx(19 / 80))
    children = {share.function: share.samples for share in perf.children_shares}
    # every sample but one (a frame perf could not unwind) runs under PostgresMain
    assert children["PostgresMain"] == 79
    assert (children["PortalRun"], children["pg_plan_query"]) == (24, 22)
    assert sum(share.samples for share in perf.self_shares) == 80


def test_a_recursive_function_counts_once_per_stack_with_children():
    perf = summarize_perf(
        folded({"postgres;main;ExecProcNode;ExecProcNode;ExecScan": 10, "postgres;main;idle": 10}).decode()
    )

    children = {share.function: share.share for share in perf.children_shares}
    assert children["ExecProcNode"] == 0.5
    assert children["main"] == 1.0


def test_the_flame_tree_sums_children_into_parents_and_drops_tiny_frames():
    stacks = {"postgres;main;a;b": 600, "postgres;main;a;c": 399, "postgres;main;tiny": 1}
    flame = summarize_perf(folded(stacks).decode()).flame

    assert flame["labels"] == ["all", "postgres", "main", "a", "b", "c"]
    assert flame["parents"] == [-1, 0, 1, 2, 3, 3]
    assert flame["values"] == [1000, 1000, 1000, 999, 600, 399]


def test_the_differential_puts_the_function_that_grew_at_the_top_as_in_the_seeds_13_4_vs_14_0():
    old = summarize_perf(folded(SEED_13).decode())
    new = summarize_perf(folded(SEED_14).decode())

    ranked = perf_differential(
        {share.function: share.share for share in old.self_shares},
        {share.function: share.share for share in new.self_shares},
    )

    assert ranked[0].function == "index_fetch_heap"
    assert ranked[0].baseline_share == pytest.approx(100 / 1000)
    assert ranked[0].other_share == pytest.approx(180 / 1080)
    assert ranked[0].change > 0
    assert all(change.change <= ranked[0].change for change in ranked)
    assert ranked[-1].change < 0  # everything else lost share to it


def test_a_function_only_one_build_ran_counts_as_zero_in_the_other():
    ranked = perf_differential({"a": 0.5, "b": 0.5}, {"a": 0.4, "b": 0.4, "new_in_14": 0.2})

    assert [(change.function, round(change.change, 2)) for change in ranked] == [
        ("new_in_14", 0.2),
        ("a", -0.1),
        ("b", -0.1),
    ]


def test_malformed_lines_are_skipped_and_no_sample_is_no_summary():
    assert parse_folded("postgres;main 3\nnot a stack\npostgres;x notanumber\n\n") == [(["postgres", "main"], 3)]
    assert summarize_perf("") is None
