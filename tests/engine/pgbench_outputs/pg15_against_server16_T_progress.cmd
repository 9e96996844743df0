# real output of pgbench 15.20 (Debian 15.20-0+deb12u1) against server 16.2 (PyPI pgserver 0.1.4), 2026-11-22
# command: pgbench -n -c 2 -j 1 -T 2 -P 1 postgres   (plus -h 127.0.0.1 -p PORT -U benchdash)
# exit status: 0
