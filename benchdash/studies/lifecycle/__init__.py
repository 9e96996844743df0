"""A study's life: planned into trials (plan), queued, claimed, run, finished and put back (services, outcome), told to
the queue (signals), turned into the engine's plain data (specs), extended round by round (adaptive), preceded by its
host's noise check (noise), followed on its page (progress); its raw files in storage (artifact_files)."""
