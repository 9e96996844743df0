# FORMAT RECONSTRUCTED, NOT A REAL RUN: 9.6..13 printResults/progress
# command: pgbench -n -M prepared -c 8 -j 4 -T 3 -P 1 bench
# exit status: 0
