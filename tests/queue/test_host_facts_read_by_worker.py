"""A host saved in the admin has its facts read by a real worker, on the host's queue, once the save commits."""

import os

import pytest
from django.urls import reverse

from benchdash.inventory.models import FactsState, Host
from tests.queue.support import wait_for

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def test_a_host_saved_in_the_admin_gets_its_facts_from_a_worker(admin_client, shared_worker, ssh_target):
    fields = {name: getattr(ssh_target, name) for name in ("address", "port", "username", "key_path", "work_dir")}
    response = admin_client.post(
        reverse("admin:inventory_host_add"), {"name": "db-new", "host_key": ssh_target.host_key, **fields}
    )
    assert response.status_code == 302
    host = Host.objects.get(name="db-new")
    wait_for(lambda: Host.objects.get(pk=host.pk).facts_state != FactsState.READING, 60, "the worker to read the facts")
    host.refresh_from_db()
    assert (host.facts_state, host.facts_error) == (FactsState.READ, "")
    assert host.facts["cpu_threads"] == os.cpu_count() and host.facts["locales"]
    page = admin_client.get(reverse("inventory:host_detail", args=[host.pk]), HTTP_ACCEPT_LANGUAGE="en").content
    assert b"Being read from the host now" not in page and b"No facts collected yet" not in page
