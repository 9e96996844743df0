# FORMAT RECONSTRUCTED, NOT A REAL RUN: 14 -C report, client 14 against server 13
# command: pgbench -n -C -c 2 -j 1 -T 2 bench
# exit status: 0
