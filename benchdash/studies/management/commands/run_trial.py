"""`python manage.py run_trial`: one trial, outside any study, printed as a summary (or --json).

    manage.py run_trial --host local --build 15 --scenario pgecons-reference --clients 2 --duration 3 --scale 1

--host and --client-host name Host rows (`local` works without one); --build is a Build name or a
major version ("15": the newest registered build of that major, else Debian's /usr/lib/postgresql/15/bin);
--scenario is a Scenario slug. Exits 1 when the trial is not ok.
"""

import json
import re
from dataclasses import asdict
from pathlib import Path
from typing import Any

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError, CommandParser

from benchdash.inventory.management.commands.register_local import local_work_dir
from benchdash.inventory.models import LOCAL_HOST_NAME, Build, Host
from benchdash.studies.lifecycle.specs import build_spec, host_spec, scenario_spec
from benchdash.studies.models import Scenario
from benchdash.studies.pg_settings import parse_settings
from workers.runner import run_trial
from workers.spec import BuildSpec, HostSpec, Prewarm, TrialOutcome, TrialSpec
from workers.transport import HostRefused, connect

DEBIAN_BIN_DIR = "/usr/lib/postgresql/{major}/bin"
_MAJOR_RE = re.compile(r"^\d+(?:\.\d+)?$")


class Command(BaseCommand):
    help = "Run one pgbench trial on a host and print its outcome."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--host", default=LOCAL_HOST_NAME, help="DB host (a Host name; default local)")
        parser.add_argument("--client-host", default="", help="pgbench host (default: the DB host)")
        parser.add_argument("--build", required=True, help="a Build name, or a major version such as 15")
        parser.add_argument("--scenario", required=True, help="a Scenario slug, e.g. pgecons-reference")
        parser.add_argument("--clients", type=int, default=1)
        parser.add_argument("--threads", type=int, default=0, help="default: the scenario's thread rule")
        parser.add_argument("--duration", type=int, default=10, help="seconds")
        parser.add_argument("--scale", type=int, default=0, help="default: the scenario's scale")
        parser.add_argument(
            "--set", action="append", default=[], metavar="NAME=VALUE", help="a postgresql.conf setting"
        )
        parser.add_argument("--sar", action="store_true", help="collect sar")
        parser.add_argument("--wait-events", action="store_true", help="sample wait events")
        parser.add_argument("--profile", action="store_true", help="an extra, profiling run: perf instead of TPS")
        parser.add_argument("--keep-data", action="store_true", help="reuse existing data instead of a reset")
        parser.add_argument("--save-artifacts", default="", metavar="DIR", help="write each artifact to DIR/<kind>")
        parser.add_argument("--json", action="store_true", help="print the outcome as JSON")

    def handle(self, *args: Any, **options: Any) -> None:
        spec = trial_spec_from_options(options)
        try:
            db_transport = connect(spec.db_host)
            client_transport = None if spec.client_host == spec.db_host else connect(spec.client_host)
        except HostRefused as refused:
            raise CommandError(str(refused)) from None
        try:
            outcome = run_trial(spec, db_transport, client_transport)
            if not outcome.host_unreachable:
                for host in {spec.db_host.name, spec.client_host.name}:
                    Host.note_answered(host)
        finally:
            db_transport.close()
            if client_transport is not None:
                client_transport.close()
        if options["save_artifacts"]:
            save_artifacts(outcome, Path(options["save_artifacts"]))
        self.stdout.write(json.dumps(outcome_json(outcome), indent=1) if options["json"] else summary(spec, outcome))
        if not outcome.ok:
            raise CommandError(f"the trial failed: {outcome.error}")


def trial_spec_from_options(options: dict[str, Any]) -> TrialSpec:
    scenario = scenario_named(options["scenario"])
    db_host = host_named(options["host"])
    clients = options["clients"]
    return TrialSpec(
        trial_id=0,
        study_id=0,
        db_host=db_host,
        client_host=host_named(options["client_host"]) if options["client_host"] else db_host,
        build=build_named(options["build"]),
        scenario=scenario_spec(scenario),
        clients=clients,
        threads=options["threads"] or scenario.threads_for(clients),
        duration_s=options["duration"],
        scale=options["scale"] or scenario.scale,
        fillfactor=scenario.data_fillfactor(),
        pg_settings=settings_from_options(options["set"]),
        collect_sar=options["sar"],
        collect_wait_events=options["wait_events"],
        collect_perf=options["profile"],
        reset_data=not options["keep_data"],
        prewarm=scenario.prewarm != Prewarm.NONE,
        profile_only=options["profile"],
    )


def scenario_named(slug: str) -> Scenario:
    scenario = Scenario.objects.filter(slug=slug).first()
    if scenario is None:
        known = ", ".join(Scenario.objects.values_list("slug", flat=True)) or "none; run `manage.py load_presets`"
        raise CommandError(f"no scenario {slug!r} (known: {known})")
    return scenario


def host_named(name: str) -> HostSpec:
    host = Host.objects.filter(name=name).first()
    if host is not None:
        return host_spec(host)
    if name == LOCAL_HOST_NAME:
        return HostSpec(name=LOCAL_HOST_NAME, work_dir=local_work_dir())
    raise CommandError(f"no host {name!r}; register it first (admin, or the hosts page)")


def build_named(name: str) -> BuildSpec:
    """A Build by name; or by major: the newest registered build of it, else Debian's installed one."""
    build = Build.objects.resolve(name)
    if build is not None:
        return build_spec(build)
    if _MAJOR_RE.match(name):
        return debian_build(name)
    raise CommandError(f"no build {name!r}: give a Build name or a major version such as 15")


def debian_build(major: str) -> BuildSpec:
    bin_dir = DEBIAN_BIN_DIR.format(major=major)
    if not Path(bin_dir, "postgres").exists():
        raise CommandError(f"no build of PostgreSQL {major} is registered, and {bin_dir} has no postgres")
    return BuildSpec(name=f"pg{major}-debian", kind="installed", bin_dir=bin_dir)


def settings_from_options(pairs: list[str]) -> dict[str, str]:
    """--set NAME=VALUE options, read by the same parser as a study's settings."""
    malformed = [pair for pair in pairs if "=" not in pair]
    if malformed:
        raise CommandError(f"--set takes NAME=VALUE, not {malformed[0]!r}")
    try:
        return parse_settings("\n".join(pair.replace("=", " = ", 1) for pair in pairs))
    except ValidationError as error:
        raise CommandError(f"--set: {' '.join(error.messages)}") from error


def outcome_json(outcome: TrialOutcome) -> dict[str, object]:
    """The outcome as JSON: artifacts by size (they are raw bytes), times as ISO 8601."""
    data = asdict(outcome)
    data["artifacts"] = {kind: len(content) for kind, content in outcome.artifacts.items()}
    for key in ("started_at", "finished_at"):
        data[key] = data[key].isoformat() if data[key] else None
    return data


def summary(spec: TrialSpec, outcome: TrialOutcome) -> str:
    def number(value: float | None, unit: str = "") -> str:
        return "-" if value is None else f"{value:,.2f}{unit}"

    timings = ", ".join(f"{name} {seconds:.2f}s" for name, seconds in outcome.timings.items())
    lines = [
        f"trial: {spec.scenario.slug} on {spec.db_host.name}, PostgreSQL {outcome.server_version or '?'}, "
        f"{spec.clients} clients / {spec.threads} threads, {spec.duration_s}s, scale {spec.scale}",
        f"command: {outcome.command or '-'}",
        f"result: {'ok' if outcome.ok else 'FAILED: ' + outcome.error}",
        f"tps: {number(outcome.tps)} (including connections: {number(outcome.tps_including_connections)})",
        f"latency: average {number(outcome.latency_avg_ms, ' ms')}, stddev {number(outcome.latency_stddev_ms, ' ms')}",
        f"transactions: {outcome.transactions if outcome.transactions is not None else '-'}"
        f" (failed: {outcome.failed_transactions if outcome.failed_transactions is not None else '-'})",
        f"pgbench: {outcome.pgbench_version or '-'}",
        f"timings: {timings}",
        f"artifacts: {', '.join(f'{kind} ({len(content):,} B)' for kind, content in outcome.artifacts.items()) or '-'}",
    ]
    lines += [f"note: {note}" for note in outcome.notes]
    return "\n".join(lines)


def save_artifacts(outcome: TrialOutcome, directory: Path) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    for kind, content in outcome.artifacts.items():
        (directory / kind).write_bytes(content)
