# FORMAT RECONSTRUCTED, NOT A REAL RUN: 14 printVersion/printResults/progress (no failures yet)
# command: pgbench -n -c 1 -j 1 -T 3 -P 1 bench
# exit status: 0
