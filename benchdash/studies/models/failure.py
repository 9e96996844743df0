"""The kinds of failure a trial and its attempts keep (issue 40): the engine's kinds (workers/failure_kind.py), each
with what the pages say of it in the reader's language. The error beside it is the detail, in the engine's words."""

from django.db import models
from django.utils.translation import gettext_lazy as _

from workers.failure_kind import FailureKind as Engine


class FailureKind(models.TextChoices):
    HOST_UNREACHABLE = Engine.HOST_UNREACHABLE, _("a host stayed unreachable: the study stopped")
    HOST_BUSY = Engine.HOST_BUSY, _("the DB host runs a trial of another installation")
    CONNECTION_LOST = Engine.CONNECTION_LOST, _("the connection to a host was lost")
    FENCED = Engine.FENCED, _("a later attempt holds the host")
    SUDO_REFUSED = (
        Engine.SUDO_REFUSED,
        _(
            "the worker may not run commands as the clusters' account: sudo asked for a password, so the sudoers rule "
            "is missing. Run `make setup` as root; it writes the rule that the detail names"
        ),
    )
    SETTING_REFUSED = Engine.SETTING_REFUSED, _("the server refuses a setting of the study")
    CAUSE_REPEATS = Engine.CAUSE_REPEATS, _("a cause that repeats: another attempt would fail the same way")
    PGBENCH_FAILED = Engine.PGBENCH_FAILED, _("pgbench failed")
    TIMED_OUT = Engine.TIMED_OUT, _("timed out")
    CANCELLED = Engine.CANCELLED, _("cancelled")
    WORKER_LOST = Engine.WORKER_LOST, _("worker lost")
    STORAGE_FULL = (
        Engine.STORAGE_FULL,
        _(
            "the artifact storage cannot keep an outcome of this study: the study stopped rather than run "
            "benchmarks it could not keep. Free space there, then run the failed trials again"
        ),
    )
    STORE_FAILED = Engine.STORE_FAILED, _("the store could not keep the outcome")
    TARGET_FAILED = Engine.TARGET_FAILED, _("a target failed")


def failure_kind_field() -> models.CharField:
    """The failure kind of a trial or an attempt: empty while none failed."""
    return models.CharField(_("failure kind"), max_length=20, choices=FailureKind.choices, blank=True, default="")
