#!/usr/bin/env bash
# Sets up this machine for benchdash: system packages, .venv, the store (PostgreSQL) and the
# broker (Redis), migrations and the presets. Safe to run again: each step skips what is done.
#   deploy/setup.sh            everything
#   deploy/setup.sh run        everything, for `make run`: first checks that the run user can read this checkout
#   deploy/setup.sh test       everything but the app's data (migrations, presets and history, the host `local`,
#                              static files), for `make test`: the tests make their own databases and files; .venv
#                              from the development lock (requirements-dev.txt), where the others take production's
#   deploy/setup.sh services   only start PostgreSQL and Redis
#   deploy/setup.sh stop       stop the PostgreSQL and Redis that this script started
#   deploy/setup.sh secure     give a running store or Redis that an older set-up left open its password now
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
source deploy/lib.sh

services() {
  ensure_run_user
  ensure_var
  ensure_var_dirs
  ensure_store
  ensure_broker
}

everything() {
  ensure_packages
  ensure_run_user
  [ "${1:-}" = run ] && check_run_user_reads_checkout
  ensure_cluster_sudo_rule
  ensure_venv "$(venv_lock "${1:-all}")"
  ensure_cluster_cgroup
  services
  ensure_secret secret-key 64
}

step="${1:-all}"
case "$step" in
  all) everything; prepare_app ;;
  run) everything run; prepare_app ;;
  test) everything test ;;
  services) services ;;
  stop) stop_services ;;
  secure) SECURE_NOW=1 services ;;
  *) die "unknown step '$step' (all, run, test, services, stop, secure)" ;;
esac
