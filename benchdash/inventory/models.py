"""What we run on: hosts (servers reached by SSH, or the worker's own machine) and builds."""

import re
import uuid

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import URLValidator
from django.db import models
from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _

from benchdash.inventory.validators import validate_host_address, validate_port, validate_target_path
from benchdash.store_clock import StoreNow
from workers import source_build
from workers.spec import BuildSpec, HostSpec, spec_from_row

LOCAL_HOST_NAME = "local"


class FactsState(models.TextChoices):
    """UNREAD -> READING (asked for, a worker reads them) -> READ | FAILED (error kept) | BUSY (another installation
    held the host-wide lock: nothing was run there, the facts it had are kept); READ, FAILED or BUSY -> READING when
    the host is saved or registered again."""

    UNREAD = "unread", _("not read yet")
    READING = "reading", _("being read")
    READ = "read", _("read")
    FAILED = "failed", _("reading failed")
    BUSY = "busy", _("host busy with another installation")


class Host(models.Model):
    """A server under test or a pgbench client. The host named `local` is the worker itself."""

    name = models.SlugField(_("name"), max_length=64, unique=True)
    address = models.CharField(
        _("address"),
        max_length=255,
        blank=True,
        validators=[validate_host_address],
        help_text=_("A host name or an IP address; link-local addresses only where an administrator allows them."),
    )
    port = models.PositiveIntegerField(_("SSH port"), default=22, validators=validate_port)
    username = models.CharField(_("SSH user"), max_length=64, blank=True)
    key_path = models.CharField(
        _("private key file"),
        max_length=500,
        blank=True,
        help_text=_("Path of the SSH private key on the worker's machine (the key is never stored)."),
    )
    host_key = models.TextField(
        _("pinned host key"),
        blank=True,
        help_text=_("The server's public host key, e.g. 'ssh-ed25519 AAAA...'. Unknown keys are refused."),
    )
    work_dir = models.CharField(
        _("work directory"),
        max_length=500,
        default="/var/lib/benchdash",
        validators=[validate_target_path],
        help_text=_(
            "An absolute path of letters, digits and / . _ - only: where benchdash keeps builds and clusters on the "
            "host, a directory of the SSH user's (in its home, or /var/lib/benchdash owned by it), mode 0700. A host "
            "whose work dir other accounts could change is refused."
        ),
    )
    facts = models.JSONField(_("facts"), default=dict, blank=True)
    facts_updated_at = models.DateTimeField(_("facts updated"), null=True, blank=True)
    # Where the reading of its facts at registration stands (inventory/host_facts.py), and why it last failed.
    facts_state = models.CharField(
        _("facts reading"), max_length=8, choices=FactsState.choices, default=FactsState.UNREAD, editable=False
    )
    facts_error = models.TextField(_("facts reading error"), blank=True, editable=False)
    # The latest noise check (workers/preflight.py): verdict, findings and facts; before a study or on demand.
    noise_check = models.JSONField(_("noise check"), default=dict, blank=True)
    noise_checked_at = models.DateTimeField(_("noise checked"), null=True, blank=True)
    # Bytes under the work dir by part (clusters, snapshots, builds), as a worker last measured them.
    work_dir_usage = models.JSONField(_("work dir usage"), default=dict, blank=True, editable=False)
    work_dir_measured_at = models.DateTimeField(_("work dir measured"), null=True, blank=True, editable=False)
    # A host a cloud template made (benchdash/cloud/creation.py): the template's instance type and image, its host
    # kind (inventory/host_kind.py); blank on a host registered by hand, whose kind its facts give.
    cloud_instance_type = models.CharField(_("cloud instance type"), max_length=40, blank=True, editable=False)
    cloud_image = models.CharField(_("cloud image"), max_length=30, blank=True, editable=False)
    notes = models.TextField(_("notes"), blank=True)
    created_at = models.DateTimeField(_("created"), auto_now_add=True)
    # Set by an attempt that found the host unreachable and waits for it; cleared when it answers again.
    unreachable_since = models.DateTimeField(_("unreachable since"), null=True, blank=True, editable=False)
    # Set when an attempt found the host-wide lock (workers/host_lock.py) held by another installation, this id's, and
    # the trial waits for it; cleared when an attempt of this installation ran there.
    busy_with = models.CharField(_("busy with installation"), max_length=64, blank=True, editable=False)
    busy_since = models.DateTimeField(_("busy since"), null=True, blank=True, editable=False)

    class Meta:
        ordering = ["name"]
        verbose_name = _("host")
        verbose_name_plural = _("hosts")

    def __str__(self) -> str:
        return self.name

    def whole_spec(self) -> HostSpec:
        """The engine's spec of the host as it is, its work dir whole (no lock: for reading its boot time). A trial's
        spec, and a facts read's, is this installation's part of it (installation_spec)."""
        return spec_from_row(HostSpec, self, installation="")

    def installation_spec(self) -> HostSpec:
        """The host as this installation sees it: its own part of the host's work dir, beside the host-wide lock that
        other installations sharing the host take too (workers/host_lock.py)."""
        return self.whole_spec().for_installation(Installation.current_token())

    @staticmethod
    def note_answered(name: str) -> None:
        """The host answered a connection: the "waiting for host" note of an attempt that lost it goes, whoever
        connected (an attempt, the noise check, a facts read, a command run by hand)."""
        Host.objects.filter(name=name, unreachable_since__isnull=False).update(unreachable_since=None)

    @staticmethod
    def note_busy(name: str, busy_with: str) -> None:
        """Note that the host's lock was found held by another installation, this id's, and since when (the store's
        time); "" clears the note once this installation held it. The host and study pages show it."""
        hosts = Host.objects.filter(name=name).exclude(busy_with=busy_with)
        hosts.update(busy_with=busy_with, busy_since=StoreNow() if busy_with else None)

    @property
    def is_local(self) -> bool:
        return self.name == LOCAL_HOST_NAME

    @property
    def allow_link_local(self) -> bool:
        """Whether the worker may connect to this host at a link-local or metadata address: the administrator's
        setting, the same for every host (validators.validate_host_address)."""
        return bool(settings.ALLOW_LINK_LOCAL_HOSTS)

    @property
    def cpu_summary(self) -> str:
        facts = self.facts or {}
        model = facts.get("cpu_model", "")
        threads = facts.get("cpu_threads")
        if not (model and threads):
            return model
        return _("%(model)s (%(threads)s threads)") % {"model": model, "threads": threads}


_VERSION_RE = re.compile(r"(\d+)(?:\.(\d+))?(?:\.(\d+))?")


def version_sort_key(version: str) -> int:
    """'9.4.3' -> 90403, '13.4' -> 130004, '14.0' -> 140000: sorts across the 10.0 numbering change."""
    match = _VERSION_RE.search(version)
    if not match:
        return 0
    major, minor, patch = (int(part) if part else 0 for part in match.groups())
    if major >= 10:
        return major * 10000 + minor
    return major * 10000 + minor * 100 + patch


def major_version(version: str) -> str:
    """'9.4.3' -> '9.4', '13.4' -> '13'."""
    key = version_sort_key(version)
    major = key // 10000
    return f"{major}.{key % 10000 // 100}" if major < 10 else str(major)


def version_sort_range(version: str) -> tuple[int, int]:
    """The version_sort values a version stands for: a major ('14', '9.4') all its minors, a minor ('14.3',
    '9.4.3') itself."""
    key = version_sort_key(version)
    if major_version(version) != version:
        return key, key
    return key, key + (9999 if key >= 100000 else 99)


class BuildQuerySet(models.QuerySet["Build"]):
    def runnable(self) -> "BuildQuerySet":
        """Builds that can run: every kind but a published version, which exists only as figures."""
        return self.exclude(kind=Build.Kind.PUBLISHED)

    def resolve(self, token: str) -> "Build | None":
        """A runnable build named `token`, else the newest runnable build of the major `token` ('15', '9.6')."""
        runnable = self.runnable()
        named = runnable.filter(name=token).first()
        if named is not None:
            return named
        newest_first = runnable.order_by("-version_sort", "-created_at")
        return next((build for build in newest_first if build.major == token), None)

    def of_version(self, version: str) -> "BuildQuerySet":
        """The builds of a major ('14': 14.0, 14.3, ...) or of one minor ('14.3')."""
        return self.filter(version_sort__range=version_sort_range(version))


class Build(models.Model):
    """One PostgreSQL build and how it gets onto a target."""

    class Kind(models.TextChoices):
        INSTALLED = "installed", _("installed bin directory")
        ARCHIVE = "archive", _("binary archive")
        SOURCE = "source", _("source build")
        PUBLISHED = "published", _("published figure only")

    name = models.CharField(_("name"), max_length=100, unique=True)
    version = models.CharField(_("version"), max_length=40)
    version_sort = models.PositiveIntegerField(_("version order"), default=0, editable=False)
    kind = models.CharField(_("kind"), max_length=16, choices=Kind.choices)
    bin_dir = models.CharField(_("bin directory"), max_length=500, blank=True, validators=[validate_target_path])
    archive_path = models.CharField(
        _("archive file"),
        max_length=500,
        blank=True,
        help_text=_("on the worker: the binary archive, or a source build's tarball"),
    )
    archive_integrity = models.CharField(_("archive integrity"), max_length=200, blank=True)
    source_url = models.CharField(
        _("source tarball or git URL"),
        max_length=500,
        blank=True,
        help_text=_("a source build: the git repository its ref is cloned from, or where its tarball came from"),
    )
    git_ref = models.CharField(_("git ref"), max_length=100, blank=True)
    configure_flags = models.CharField(
        _("configure flags"),
        max_length=500,
        blank=True,
        help_text=_("options for ./configure, e.g. --without-icu CFLAGS=-O2 (--prefix is set by benchdash)"),
    )
    patches = models.TextField(
        _("patches"), blank=True, help_text=_("patch files on the worker, one a line, applied in order with patch -p1")
    )
    source_digest = models.CharField(
        _("source digest"),
        max_length=64,
        blank=True,
        help_text=_("sha256 of the source, the patches and the configure options: the build's cache name on targets"),
    )
    configure_line = models.TextField(_("configure line"), blank=True)
    compiler = models.CharField(_("compiler"), max_length=300, blank=True)
    notes = models.TextField(_("notes"), blank=True)
    created_at = models.DateTimeField(_("created"), auto_now_add=True)

    objects = BuildQuerySet.as_manager()

    class Meta:
        ordering = ["-version_sort", "name"]
        verbose_name = _("build")
        verbose_name_plural = _("builds")

    def __str__(self) -> str:
        return self.name

    def save(self, *args: object, **kwargs: object) -> None:
        self.version_sort = version_sort_key(self.version)
        super().save(*args, **kwargs)  # type: ignore[arg-type]

    @property
    def major(self) -> str:
        return major_version(self.version)

    def patch_paths(self) -> tuple[str, ...]:
        return tuple(line.strip() for line in self.patches.splitlines() if line.strip())

    def spec(self) -> BuildSpec:
        return spec_from_row(BuildSpec, self, patches=self.patch_paths())

    def clean(self) -> None:
        """A source build: its source, patches and options must be usable, and its digest is taken from them."""
        if self.kind != self.Kind.SOURCE:
            return
        spec = self.spec()
        if problem := source_build.source_problem(spec):
            raise ValidationError(problem)
        try:
            self.source_digest = source_build.source_digest(spec)
        except source_build.SourceBuildError as error:
            raise ValidationError(str(error)) from error


class Installation(models.Model):
    """This installation (one store and the workers on it). Its id tags every cloud instance it launches, so that its
    reaper ends only its own when several installations share an AWS account; and on a target that several
    installations share, it names this one's part of the work dir and the holder of the host-wide lock
    (workers/host_lock.py). One row, made at first use."""

    token = models.UUIDField(_("installation id"), default=uuid.uuid4, editable=False)

    class Meta:
        verbose_name = _("installation")

    def __str__(self) -> str:
        return str(self.token)

    @classmethod
    def current_token(cls) -> str:
        return str(cls.objects.get_or_create(pk=1)[0].token)


def version_problem(version: str) -> str:
    """Why `version` is not a PostgreSQL version an event may name ('13', '9.6', '14.3', '9.4.3'); empty if it is."""
    if _VERSION_TEXT_RE.fullmatch(version):
        return ""
    return _("'%(version)s' is not a PostgreSQL version (e.g. 13, 9.6, 14.3).") % {"version": version}


_VERSION_TEXT_RE = re.compile(r"\d{1,2}(?:\.\d{1,2}){0,2}")
HTTP_ONLY = URLValidator(schemes=["http", "https"])


class Event(models.Model):
    """A known event an administrator marks once ("annotation" on the pages): new hardware, an OS upgrade on a host, a
    change of scale. It holds over a date range and/or a version range, on one host or on all; every chart it touches
    draws it and every change card it may explain lists it (inventory/events.py)."""

    text = models.CharField(_("text"), max_length=300)
    link = models.URLField(
        _("link"),
        blank=True,
        validators=[URLValidator(schemes=["http", "https"])],
        help_text=_("an http or https address"),
    )
    host = models.ForeignKey(
        Host,
        verbose_name=_("host"),
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        help_text=_("empty: every host"),
    )
    date_from = models.DateField(_("from (date)"), null=True, blank=True)
    date_to = models.DateField(_("to (date)"), null=True, blank=True)
    version_from = models.CharField(
        _("from (version)"), max_length=20, blank=True, help_text=_("a major (13, 9.6) or a minor (14.3)")
    )
    version_to = models.CharField(
        _("to (version)"), max_length=20, blank=True, help_text=_("a major (13, 9.6) or a minor (14.3)")
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, verbose_name=_("created by"), on_delete=models.SET_NULL, null=True, editable=False
    )
    created_at = models.DateTimeField(_("created"), auto_now_add=True)

    class Meta:
        ordering = ["date_from", "version_from", "pk"]
        verbose_name = _("annotation")
        verbose_name_plural = _("annotations")

    def __str__(self) -> str:
        return self.text

    def clean(self) -> None:
        """At least one range; versions that parse; each range's start no later than its end."""
        problems: dict[str, str | Promise] = {}
        for field in ("version_from", "version_to"):
            if getattr(self, field) and (problem := version_problem(getattr(self, field))):
                problems[field] = problem
        if not (self.date_from or self.date_to or self.version_from or self.version_to):
            problems["__all__"] = _("Give a date range or a version range (or both).")
        if self.date_from and self.date_to and self.date_from > self.date_to:
            problems["date_to"] = _("The end date comes before the start date.")
        low, high = (
            (None, None) if {"version_from", "version_to"} & problems.keys() else (self.version_low, self.version_high)
        )
        if low is not None and high is not None and high < low:
            problems["version_to"] = _("The end version comes before the start version.")
        if problems:
            raise ValidationError(problems)

    def scope(self) -> str:
        """Where it holds, as the pages say it: '13 – 14 · 2024-01-01 – 2024-03-31 · host-a'."""
        parts = [
            f"{low or '…'} – {high or '…'}"
            for low, high in ((self.version_from, self.version_to), (self.date_from, self.date_to))
            if low or high
        ]
        return " · ".join([*parts, self.host.name if self.host else str(_("every host"))])

    @property
    def version_low(self) -> int | None:
        """The lowest version_sort the range takes in ('13' from 13.0), None when it has no start."""
        return version_sort_range(self.version_from)[0] if self.version_from else None

    @property
    def version_high(self) -> int | None:
        """The highest version_sort the range takes in ('14' up to every 14 minor), None when it has no end."""
        return version_sort_range(self.version_to)[1] if self.version_to else None
