# real output of pgbench 13.16 (Debian 13.16-0+deb11u1) against server 15.20 (Debian), 2026-11-27
# command: pgbench -n -c 2 -j 1 -T 3 -P 1 postgres   (plus -h 127.0.0.1 -p PORT -U benchdash)
# exit status: 0
