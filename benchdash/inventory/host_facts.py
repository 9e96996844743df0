"""A host's facts (workers/facts.py) read when it is registered, and again when it booted since they were read: the
first preview of a study checks its memory, CPUs and locales against them, not only once a trial has run.

Reading them is network I/O, never done inside a transaction: the admin asks for it once its save commits (the
signal host_facts_wanted, which the queue turns into a task on the host's queue); the commands read at once.
"""

from functools import partial

from django.db import transaction
from django.dispatch import Signal
from django.utils import timezone

from benchdash.inventory.models import FactsState, Host
from workers.facts import collect_host_facts, read_boot_time
from workers.host_lock import HostLockBusy, host_lock_on
from workers.transport import TransportError, connect

# Sent after commit with host_id and host_name: read this host's facts on the queue of its worker.
host_facts_wanted = Signal()
# How long a command (register_local, pin_host_key) waits for another installation's trial to let go of the host.
COMMAND_LOCK_WAIT_S = 60
# /proc/stat's btime is computed from the clock less the uptime, and two reads may differ by a second.
BOOT_TIME_SLACK_S = 2


def host_facts_read(*, host_id: int, wait_s: int = 0) -> Host:
    """Read the host's facts and keep them; a host that cannot be read keeps the facts it had, and the reason. They are
    read under the host-wide lock (workers/host_lock.py), waiting up to wait_s for it: the facts script runs pgbench
    --version and the like, which must never run beside another installation's trial; a host still busy with one
    then keeps its facts, its state BUSY and the holder noted on it."""
    host = Host.objects.get(pk=host_id)
    try:
        with host_lock_on(host.installation_spec(), wait_s) as transport:
            facts = collect_host_facts(transport, host.work_dir)
    except HostLockBusy as busy:
        Host.objects.filter(pk=host_id).update(facts_state=FactsState.BUSY, facts_error=str(busy))
        Host.note_busy(host.name, busy.holder)
    except TransportError as error:
        Host.objects.filter(pk=host_id).update(facts_state=FactsState.FAILED, facts_error=str(error))
    else:
        read = {"facts": facts, "facts_updated_at": timezone.now(), "facts_state": FactsState.READ, "facts_error": ""}
        Host.objects.filter(pk=host_id).update(**read)
        Host.note_answered(host.name)
        Host.note_busy(host.name, "")
    return Host.objects.get(pk=host_id)


def host_facts_read_after_commit(*, host: Host) -> None:
    """Mark the host's facts as being read, and have them read once this transaction commits. A host reached by SSH
    is read only once its host key is pinned (before, every connection is refused)."""
    if not (host.is_local or host.host_key):
        return
    Host.objects.filter(pk=host.pk).update(facts_state=FactsState.READING, facts_error="")
    wanted = partial(host_facts_wanted.send, sender=Host, host_id=host.pk, host_name=host.name)
    transaction.on_commit(wanted)


def host_facts_outdated(facts: dict[str, object], booted_at: int | None) -> bool:
    """Whether the facts were read before the host's last boot (its memory, CPUs or locales may have changed since):
    both times are the host's own clock, so a store whose clock differs does not matter."""
    read_after = facts.get("boot_time")
    return booted_at is not None and (not isinstance(read_after, int) or read_after < booted_at - BOOT_TIME_SLACK_S)


def host_facts_refresh(*, host_id: int) -> bool:
    """Before a study: read the host's facts again when it booted since they were read; True when they were."""
    host = Host.objects.get(pk=host_id)
    with connect(host.whole_spec()) as transport:
        booted_at = read_boot_time(transport)
    Host.note_answered(host.name)
    if not host_facts_outdated(host.facts or {}, booted_at):
        return False
    return host_facts_read(host_id=host_id).facts_state == FactsState.READ


def facts_outcome_line(host: Host) -> str:
    """What a command says after reading the host's facts (English, as the commands' other output)."""
    if host.facts_state == FactsState.BUSY:
        return f"{host.name}: facts not read, nothing run there: {host.facts_error}; run this again once it is free"
    if host.facts_state != FactsState.READ:
        return f"{host.name}: facts not read: {host.facts_error}"
    facts = host.facts
    memory = facts.get("memory_bytes")
    memory_text = f"{memory / 2**30:.1f} GiB" if isinstance(memory, int) else "unknown memory"
    locales = facts.get("locales") or []
    return f"{host.name}: facts read: {facts.get('cpu_threads')} CPUs, {memory_text}, {len(locales)} locales"
