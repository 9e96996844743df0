"""Pages that put work on the queue without a study: the host page's "check noise now"."""

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
from benchdash.queue.tasks import check_host_noise


@login_required
@permission_required(NOISE_CHECK_PERMISSION, raise_exception=True)
@require_POST
def host_noise_check(request: HttpRequest, pk: int) -> HttpResponse:
    """Queue a noise check of the host (check_host_noise); its report lands on the host's page."""
    host = get_object_or_404(Host, pk=pk)
    try:
        check_host_noise.apply_async((host.pk,), queue=host_queue(host.name), ignore_result=True)
    except BrokerUnreachable:
        messages.warning(request, _("The queue (Redis) cannot be reached now: nothing was checked."))
    else:
        messages.success(request, _("Noise check queued: it takes a few seconds; reload this page."))
    return redirect("inventory:host_detail", pk=host.pk)
