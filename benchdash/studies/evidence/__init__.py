"""Evidence: what sar, wait-event sampling, perf and pgbench's per-second progress say about a trial.

Pure summaries (summary.py, perf.py, bottleneck.py, compare.py, charts.py) over plain data, and the one
module that reads and writes the rows (store.py): a trial's summary is computed once when it finishes
and kept in TrialEvidence, so that pages never parse raw files on a request.
"""
