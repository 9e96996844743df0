# FORMAT RECONSTRUCTED, NOT A REAL RUN: 9.2 printResults (no latency lines; those came in 9.4)
# command: pgbench -n -c 5 -j 1 -t 10000 bench
# exit status: 0
