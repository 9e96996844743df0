"""What every figure of a report carries, so that a reader can tell where it came from and run it again: the study,
its design, builds and host (with its pinned host key's fingerprint where there is one), benchdash's own commit,
and the link that opens the new-study form filled with the design."""

from __future__ import annotations

import functools
from dataclasses import asdict, dataclass
from pathlib import Path

from django.conf import settings
from django.urls import reverse
from django.utils.translation import gettext as _

from benchdash.studies.models import Study
from workers.transport import key_fingerprint


@dataclass(frozen=True)
class Manifest:
    study: str
    study_url: str
    design: str
    builds: str
    host: str
    fingerprint: str
    commit: str
    rerun_url: str

    def lines(self) -> list[tuple[str, str]]:
        """Each field with its label, in the order a figure's caption lists them."""
        labels = [
            (_("study"), self.study),
            (_("design"), self.design),
            (_("builds"), self.builds),
            (_("host"), self.host),
            (_("host key"), self.fingerprint),
            (_("benchdash commit"), self.commit),
        ]
        return [(label, value) for label, value in labels if value]

    def as_dict(self) -> dict[str, str]:
        return asdict(self)


def study_manifest(study: Study, *, site_url: str) -> Manifest:
    builds = study.builds.order_by("version_sort", "name")
    baseline_mark = " (" + _("baseline") + ")"
    return Manifest(
        study=f"#{study.pk} {study.year} {study.title}",
        study_url=site_url + reverse("studies:detail", args=[study.pk]),
        design=design_text(study),
        builds=", ".join(build.name + (baseline_mark if build.pk == study.baseline_id else "") for build in builds),
        host=_host_text(study),
        fingerprint=_fingerprint(study),
        commit=source_commit(),
        rerun_url=site_url + reverse("studies:new") + f"?from={study.pk}",
    )


def design_text(study: Study) -> str:
    """'reference, update · clients 1, 8, 16 · 3 × 60 s · scale 2000' (a published study: what its source states); a
    duet's also says its design, as its page does ('... · duet: both sides at once, CPUs 0-7 / 8-15, ...')."""
    scenarios = ", ".join(study.scenarios.order_by("slug").values_list("slug", flat=True))
    clients = _("clients") + " " + ", ".join(str(level) for level in study.client_levels)
    if study.is_published:
        return f"{scenarios} · {clients} · {study.get_statistic_display()}"
    runs = f"{study.repetitions or '?'} × {study.duration_s} s"
    said = f"{scenarios} · {clients} · {runs} · " + _("scale") + f" {study.scale}"
    return f"{said} · {study.arrangement_text()}" if study.is_duet else said


def _host_text(study: Study) -> str:
    if study.db_host is None:
        return study.hardware
    cpu = study.db_host.cpu_summary
    return f"{study.db_host.name}" + (f" ({cpu})" if cpu else "")


def _fingerprint(study: Study) -> str:
    key = study.db_host.host_key if study.db_host else ""
    try:
        return key_fingerprint(key) if key else ""
    except ValueError:  # a key that does not parse has no fingerprint to show
        return ""


@functools.cache
def source_commit() -> str:
    """The commit benchdash runs from, read from its checkout's .git (no process started); 'unknown' outside one."""
    git = Path(settings.BASE_DIR) / ".git"
    try:
        head = (git / "HEAD").read_text().strip()
        if not head.startswith("ref: "):
            return head[:12]
        ref = head.removeprefix("ref: ")
        loose = git / ref
        if loose.exists():
            return loose.read_text().strip()[:12]
        packed = (git / "packed-refs").read_text().splitlines()
        return next(line.split()[0][:12] for line in packed if line.endswith(" " + ref))
    except (OSError, StopIteration):
        return "unknown"
