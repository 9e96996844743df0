"""Every page of the site with something on it, for the tests that walk them all (narrow screens, Japanese):
the shipped history (load_presets), a measured study with evidence, notes and a failed trial, a change in it with an
annotation, a host with facts, and a member who may do everything (the pages behind a permission)."""

import io

from django.contrib.auth.models import User
from django.core.management import call_command
from django.urls import reverse

from benchdash.alerts.models import Alert, Subscription, Watch
from benchdash.changes.models import Bisect, ChangePoint, SeriesKind
from benchdash.inventory.models import Build, Event
from benchdash.studies.evidence.store import evidence_refresh
from benchdash.studies.models import Study, Trial
from benchdash.studies.seed_data import FINDINGS
from tests.evidence_samples import real_artifacts
from tests.factories import BuildFactory, HostFactory, ScenarioFactory, StudyFactory, succeeded_runs

ENGINE_NOTES = "perf: from an extra profiled run\nserver left running for the next trial"
HOST_FACTS = {
    "cpu_model": "AMD EPYC 7571",
    "cpu_threads": 32,
    "memory_bytes": 128 * 2**30,
    "os_release": "Debian GNU/Linux 12 (bookworm)",
    "disk_rotational": False,
    "load_average": [0.5, 0.25, 0.1],
    "pgbench": "pgbench (PostgreSQL) 15.14",
    "perf": None,
    "perf_path": "/usr/bin/perf",
    "microcode": "0x830107a",
    "numa_nodes": 2,
    "locales": ["C", "C.utf8", "ja_JP.utf8"],
    "boot_time": 1764322345,
    "work_dir": "/var/tmp/benchdash",
    "configure": "'--prefix=/usr/local/pgsql' '--with-openssl'",
}


def site_with_everything() -> tuple[dict[str, str], User]:
    """Name -> URL of every page, and a superuser to open them as."""
    call_command("load_presets", stdout=io.StringIO())
    published = Study.objects.filter(kind=Study.Kind.PUBLISHED).order_by("-year").first()
    study, trial = _measured_study()
    _patched_source_build()
    _annotation_on(study)
    member = User.objects.create_superuser("walker", password="a-walker-passphrase-15")
    pages = {
        "trends": reverse("trends:index"),
        "studies": reverse("studies:list"),
        "published study": reverse("studies:detail", args=[published.pk]),
        "measured study": reverse("studies:detail", args=[study.pk]),
        "report": reverse("studies:report", args=[study.pk]),
        "trial": reverse("studies:trial", args=[trial.pk]),
        "new study": reverse("studies:new"),
        "new cloud study": reverse("cloud:new"),
        "changes": reverse("changes:list"),
        "hosts": reverse("inventory:hosts"),
        "host": reverse("inventory:host_detail", args=[study.db_host_id]),
        "builds": reverse("inventory:builds"),
        "version": reverse("trends:version", args=["14"]),
        "official confirmation": reverse("studies:official_confirm", args=[study.pk]),
        "bisect": reverse("changes:bisect", args=[_bisect_of(study).pk]),
        "change with an annotation": reverse("changes:detail", args=[_change_of(study).pk]),
        "api tokens": reverse("api_tokens"),
        "alerts": _alerts_page_of(member, study),
        "password": reverse("password_change"),
        "side by side": reverse("compare:sides") + f"?a=study:{study.pk}&b=study:{study.pk}/line:{_newest(study)}",
    }
    return pages | _published_with_findings(), member


def _published_with_findings() -> dict[str, str]:
    """The page of a published study of each source with findings (data/published_findings.toml)."""
    published = Study.objects.filter(kind=Study.Kind.PUBLISHED)
    studies = {source: published.filter(source__contains=source).first() for source in _finding_sources()}
    return {f"published study of {source}": reverse("studies:detail", args=[study.pk]) for source, study in
            studies.items() if study}  # fmt: skip


def _alerts_page_of(member: User, study: Study) -> str:
    """The member's alerts page, with a subscription to the study's host in trial mode and one alert it recorded."""
    subscription = Subscription.objects.create(member=member, watch=Watch.HOST, host=study.db_host, trial=True)
    Alert.objects.create(
        subscription=subscription, kind=Alert.Kind.VERDICT, event=f"study:{study.pk}", study=study,
        subject=str(study), text=str(study), status=Alert.Status.RECORDED,
    )  # fmt: skip
    return reverse("alerts:list")


def _finding_sources() -> set[str]:
    return {finding.published_as for finding in FINDINGS}


def _patched_source_build() -> None:
    """A source build compiled once, with a patch, shown on the builds page with its configure line and compiler."""
    BuildFactory(
        version="9.6.24", name="9.6.24 with lock counters", kind=Build.Kind.SOURCE, bin_dir="",
        archive_path="/var/lib/benchdash/builds/sources/postgresql-9.6.24.tar.bz2",
        source_url="https://ftp.postgresql.org/pub/source/v9.6.24/postgresql-9.6.24.tar.bz2",
        patches="/srv/patches/lwlock-counters.patch", configure_flags="--without-icu CFLAGS=-fcommon",
        source_digest="0123456789abcdef" * 4, compiler="gcc (Debian 12.2.0-14) 12.2.0",
        configure_line="./configure --prefix=/w/builds/src-0123456789abcdef --without-icu CFLAGS=-fcommon",
    )  # fmt: skip


def _measured_study() -> tuple[Study, Trial]:
    host = HostFactory(name="db-ja", facts=HOST_FACTS)
    scenario = ScenarioFactory(slug="pgbench-select-only", name="参照系")
    old = BuildFactory(version="13.4", name="PostgreSQL 13.4 installed from the Debian packages (bookworm)")
    new = BuildFactory(version="14.0", name="PostgreSQL 14.0 built from source with a long configure line")
    study = StudyFactory(
        title="2024年度 定点観測", builds=[old, new], scenarios=[scenario], baseline=old, db_host=host,
        status=Study.Status.DONE, collect_perf=True, client_levels=[1, 16, 32, 64, 128, 256, 512],
    )  # fmt: skip
    succeeded_runs(study, scenario, {(build, clients): [400.0 + clients, 410.0 + clients] for build in (old, new)
                                     for clients in study.client_levels})  # fmt: skip
    trial = study.trials.order_by("position").first()
    Trial.objects.filter(pk=trial.pk).update(notes=ENGINE_NOTES)
    trial.refresh_from_db()
    evidence_refresh(trial=trial, artifacts=real_artifacts())
    return study, trial


def _annotation_on(study: Study) -> None:
    """An event on the study's host over its versions: a note above its charts, a band on its change's series, a line
    on the change's card."""
    Event.objects.create(
        text="2024年度からサーバを更新", link="https://example.org/2024", host=study.db_host, version_from="13",
        version_to="14",
    )  # fmt: skip


def _change_of(study: Study) -> ChangePoint:
    """A change within the study, 13.4 to 14.0 at 16 clients."""
    old, new = study.builds.order_by("version")
    return ChangePoint.objects.create(
        series_key=f"study:{study.pk}", series_kind=SeriesKind.STUDY, series_title=study.title,
        scenario=study.scenarios.get(), clients=16, before_label=old.version, after_label=new.version,
        before_study=study, after_study=study, before_build=old, after_build=new, mean_before=416.0,
        mean_after=426.0, size=0.024, pvalue=0.001, series_labels=[old.version, new.version],
        series_values=[416.0, 426.0],
    )  # fmt: skip


def _newest(study: Study) -> int:
    """The id of the study's newest build: its line beside the baseline's on the side-by-side page."""
    return study.builds.order_by("-version_sort").values_list("pk", flat=True).first()


def _bisect_of(study: Study) -> Bisect:
    """A bisect between the study's two builds that could not tell, its one step being the study itself."""
    old, new = study.builds.order_by("version")
    bisect = Bisect.objects.create(
        template=study, scenario=study.scenarios.get(), clients=16, builds=[old.pk, new.pk], high=1,
        direction="slower", status=Bisect.Status.INCONCLUSIVE,
    )  # fmt: skip
    bisect.steps.create(number=1, study=study, low=0, compared=1, verdict="cant_tell")
    return bisect
