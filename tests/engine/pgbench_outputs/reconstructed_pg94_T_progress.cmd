# FORMAT RECONSTRUCTED, NOT A REAL RUN: 9.4 printResults/progress (contrib/pgbench/pgbench.c, 2013)
# command: pgbench -n -c 8 -j 4 -T 3 -P 1 bench
# exit status: 0
