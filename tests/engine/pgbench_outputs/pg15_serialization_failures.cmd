# real output of pgbench 15.20 (Debian 15.20-0+deb12u1) against server 15.20, 2026-11-22
# command: pgbench -n -f serial.sql -c 4 -j 2 -T 3 -P 1 --max-tries=1 postgres   (plus -h 127.0.0.1 -p PORT -U benchdash)
# exit status: 0
