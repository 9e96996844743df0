"""The host page's "Check noise now" through a real worker: the check runs on the host and its report lands there."""

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from benchdash.inventory.models import Host
from benchdash.queue.tasks import check_host_noise
from tests.queue.conftest import NOISE_MICRO_RUNS
from tests.queue.support import register_host, wait_for
from workers.host_lock import host_lock
from workers.transport import connect

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def test_check_noise_now_runs_the_check_on_the_host_through_a_worker_and_clears_its_stale_wait_note(
    client, member, shared_worker, local_target
):
    host = register_host(local_target)
    # An attempt found the host unreachable an hour ago and was lost before it could say the host answers again.
    Host.objects.filter(pk=host.pk).update(unreachable_since=timezone.now() - timedelta(hours=1))
    response = client.post(reverse("queue:host_noise_check", args=[host.pk]))
    assert response.status_code == 302
    wait_for(lambda: Host.objects.get(pk=host.pk).noise_checked_at, 90, "the noise check")
    report = Host.objects.get(pk=host.pk).noise_check
    assert Host.objects.get(pk=host.pk).unreachable_since is None, "its connection said the host answers"
    assert report["verdict"] in {"quiet", "some_noise", "noisy"}
    assert len(report["facts"]["micro_us"]) == NOISE_MICRO_RUNS
    assert report["facts"]["cpus"] >= 1
    page = client.get(reverse("inventory:host_detail", args=[host.pk])).content.decode()
    assert "checked " in page and "Check noise now" in page


def test_check_noise_now_on_a_host_busy_with_another_installation_runs_nothing_and_says_so(
    client, member, local_target
):
    """The check is a look at the host: under the host-wide lock, never beside another installation's trial."""
    host = register_host(local_target)
    staging = "6f1d3a52-0000-4000-8000-000000000001"
    with connect(host.whole_spec().for_installation(staging)) as transport, host_lock(transport):
        assert check_host_noise(host.pk) == "unknown"
    host.refresh_from_db()
    assert host.noise_check["busy_with"] == staging and host.noise_check["facts"] == {}  # no micro-run, nothing read
    assert host.busy_with == staging
    page = client.get(reverse("inventory:host_detail", args=[host.pk]), HTTP_ACCEPT_LANGUAGE="ja").content.decode()
    assert f"未確認: ホストは別の benchdash インストール（{staging}）の試行中で" in page
    assert "HostLockBusy" not in page
