"""The study pages and downloads, one module per part: lists and a study's page (pages), its CSV files (csv), its
report (report), queueing and running it (run), a trial's evidence page (evidence) and the evidence data files
(evidence_data)."""
