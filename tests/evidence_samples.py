"""Artifacts for the evidence tests, made by the engine's own parsers from real collector outputs
(tests/engine/sar_outputs: a 4-second `pgbench -c 4 -j 2 -T 4` on the development VM)."""

import json
from pathlib import Path

from workers.collectors import fold_perf_script, parse_sadf_json, parse_wait_samples
from workers.pgbench import parse_pgbench_output

# Folded stacks like the seeds' 2021 comparison (000): the same reference query on 13.4 and 14.0, where 14.0's
# flame graph showed index_fetch_heap taking a larger share.
SCAN = "postgres;main;PostmasterMain;PostgresMain;exec_simple_query;PortalRun;ExecAgg;ExecScan;IndexNext"
SEED_13 = {
    f"{SCAN};index_getnext_slot;btgettuple;_bt_next": 300,
    f"{SCAN};index_getnext_slot;index_fetch_heap": 100,
    f"{SCAN};index_getnext_slot;index_fetch_heap;ReadBufferExtended": 200,
    "postgres;main;PostmasterMain;PostgresMain;exec_simple_query;PortalRun;ExecAgg;int8inc": 250,
    "postgres;main;PostmasterMain;PostgresMain;exec_simple_query;pg_parse_query": 150,
}
SEED_14 = {**SEED_13, f"{SCAN};index_getnext_slot;index_fetch_heap": 180}

SAR_OUTPUTS = Path(__file__).parent / "engine" / "sar_outputs"
PGBENCH_OUTPUTS = Path(__file__).parent / "engine" / "pgbench_outputs"


def real_progress() -> list[dict]:
    stdout = (PGBENCH_OUTPUTS / "pg15_T_progress.stdout").read_text()
    stderr = (PGBENCH_OUTPUTS / "pg15_T_progress.stderr").read_text()
    return parse_pgbench_output(stdout, stderr, 0, expected_duration_s=3).to_dict()["progress"]


def real_artifacts() -> dict[str, bytes]:
    """kind -> bytes, as run_trial's outcome carries them."""
    return {
        "progress": json.dumps(real_progress()).encode(),
        "sar_series": json.dumps(parse_sadf_json((SAR_OUTPUTS / "sadf_j_pgbench_c4.json").read_text())).encode(),
        "wait_events": json.dumps(
            parse_wait_samples((SAR_OUTPUTS / "wait_events_pgbench_c4.out").read_text())
        ).encode(),
        "perf_folded": fold_perf_script((SAR_OUTPUTS / "perf_script_pgbench_c4.txt").read_text()).encode(),
        "table_health": real_table_health(),
    }


def folded(stacks: dict[str, int]) -> bytes:
    return "".join(f"{stack} {count}\n" for stack, count in stacks.items()).encode()


def real_table_health() -> bytes:
    """The engine's table-health readings of a 3-second pgecons-update trial (4 clients, scale 1, fillfactor 80)."""
    return (SAR_OUTPUTS / "table_health_pgecons_update_c4.json").read_bytes()
