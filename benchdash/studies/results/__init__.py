"""A study's results: its points kept in step with the trials (store), read back and compared with the baseline
(queries, compare, uncertainty), and shown as tables, charts, the version matrix, the report and the settings diff."""
