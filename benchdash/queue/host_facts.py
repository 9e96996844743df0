"""When a host is saved (inventory.host_facts.host_facts_wanted): send read_host_facts to the host's queue. A broker
that cannot take it leaves the host's facts to its first trial, which reads them anyway."""

from typing import Any

from kombu.exceptions import OperationalError as BrokerUnreachable

from benchdash.celery import host_queue
from benchdash.inventory.models import FactsState, Host
from benchdash.queue.tasks import read_host_facts


def send_read_host_facts(*, host_id: int, host_name: str, **_: Any) -> None:
    """The receiver of host_facts_wanted."""
    try:
        read_host_facts.apply_async((host_id,), queue=host_queue(host_name), ignore_result=True)
    except BrokerUnreachable as error:
        reason = f"the queue (Redis) could not take the reading: {error}"
        Host.objects.filter(pk=host_id).update(facts_state=FactsState.FAILED, facts_error=reason)
