# FORMAT RECONSTRUCTED, NOT A REAL RUN: 12/13 abort (pg_log_fatal prefix "fatal:")
# command: pgbench -n -c 200 -j 1 -T 600 bench
# exit status: 2
