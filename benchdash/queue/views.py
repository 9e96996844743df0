"""Pages that put work on the queue without a study: the host page's "check noise now" and "clear work dir"."""

from celery import Task
from django.contrib import messages
from django.contrib.auth.decorators import login_required, permission_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST
from kombu.exceptions import OperationalError as BrokerUnreachable

from benchdash.celery import host_queue
from benchdash.inventory.models import Host
from benchdash.inventory.views import NOISE_CHECK_PERMISSION
from benchdash.queue.tasks import check_host_noise, clear_work_dir


@login_required
@permission_required(NOISE_CHECK_PERMISSION, raise_exception=True)
@require_POST
def host_noise_check(request: HttpRequest, pk: int) -> HttpResponse:
    """Queue a noise check of the host (check_host_noise); its report lands on the host's page."""
    queued = _("Noise check queued: it takes a few seconds; reload this page.")
    return _queue_for_host(
        request, pk, check_host_noise, queued, _("The queue (Redis) cannot be reached now: nothing was checked.")
    )


@login_required
@permission_required(NOISE_CHECK_PERMISSION, raise_exception=True)
@require_POST
def host_clear_work_dir(request: HttpRequest, pk: int) -> HttpResponse:
    """Queue clear_work_dir: the host's clusters that no running trial or active study needs go, kept ones too."""
    done = _("Clearing the work dir is queued: it takes a few seconds; reload this page to see the space it holds.")
    return _queue_for_host(
        request, pk, clear_work_dir, done, _("The queue (Redis) cannot be reached now: nothing was removed.")
    )


def _queue_for_host(request: HttpRequest, pk: int, task: Task, queued: str, unreachable: str) -> HttpResponse:
    """Send task(host id) to the host's queue; back to the host's page with what happened."""
    host = get_object_or_404(Host, pk=pk)
    try:
        task.apply_async((host.pk,), queue=host_queue(host.name), ignore_result=True)
    except BrokerUnreachable:
        messages.warning(request, unreachable)
    else:
        messages.success(request, queued)
    return redirect("inventory:host_detail", pk=host.pk)
