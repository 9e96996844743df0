#!/bin/sh
# keep-running.sh COMMAND...: run COMMAND, and run it again 5 s after it ends, for as long as this script runs.
# `make run` starts the worker and beat through it: honcho stops every process of the Procfile when one exits,
# so a worker that died (whatever the cause) would take the web server down with it. A TERM or INT to the
# process group (honcho's Ctrl-C) ends the loop and reaches COMMAND too.
[ "$#" -gt 0 ] || { echo "usage: $0 COMMAND..." >&2; exit 2; }
while :; do
  "$@"
  status=$?
  echo "keep-running: $1 ended with status $status; starting it again in 5 s" >&2
  sleep 5
done
