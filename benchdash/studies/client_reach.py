"""At queueing (and at the preview): a study whose pgbench host is not its DB host is refused when the pgbench host
cannot reach a DB host it would run pgbench against, with the reason, before any trial fails on it.

The probe (workers/reach.py) opens a TCP connection from the pgbench host to the DB host's SSH port, the one port
known to listen there before a trial (each trial's cluster takes a free port then); the DB host `local` is probed at
a port this process opens, at the worker's address as the pgbench host sees it (where its pgbench will connect).
"""

from collections.abc import Mapping
from typing import Any

from django.core.exceptions import ValidationError
from django.utils.translation import gettext_lazy as _

from benchdash.inventory.models import Host
from benchdash.studies.lifecycle.specs import host_spec
from benchdash.studies.models import HostOrder
from workers.reach import listening_port, tcp_reach_problem
from workers.transport import Transport, TransportError, connect


def client_reach_problems(values: Mapping[str, Any]) -> list[ValidationError]:
    """Why the study's pgbench host cannot reach each DB host its pgbench runs against (values: StudyDesign.values()
    with its designed variants); nothing when pgbench runs on the DB host itself."""
    client: Host | None = values.get("client_host")
    db_hosts = _db_hosts(values, client)
    if client is None or not db_hosts:
        return []
    try:
        with connect(host_spec(client)) as transport:
            return [problem for host in db_hosts if (problem := _reach_problem(transport, client, host))]
    except TransportError as error:
        message = _("%(client)s, the pgbench host, cannot be reached to check that it reaches the DB host: %(error)s")
        return [ValidationError(message, params={"client": client, "error": error})]


def _db_hosts(values: Mapping[str, Any], client: Host | None) -> list[Host]:
    """The DB hosts the study's pgbench host runs pgbench against: a variant's own host runs its own pgbench when
    the study's pgbench host is its DB host (studies/lifecycle/specs.py _client_host). One host after another: the
    first alone, as the later ones may be down until it is done (a dual-boot server's other system)."""
    db_host: Host | None = values.get("db_host")
    if client is None or db_host is None or client == db_host:
        return []
    variants = values.get("variants") or []
    if values.get("host_order") == HostOrder.IN_TURN and variants:
        variants = variants[:1]
        db_host = variants[0].db_host or db_host
    variant_hosts = [variant.db_host for variant in variants if variant.db_host]
    return [host for host in dict.fromkeys([db_host, *variant_hosts]) if host != client]


def _reach_problem(transport: Transport, client: Host, host: Host) -> ValidationError | None:
    if host.is_local:
        address = transport.worker_address()
        with listening_port() as port:
            reason = tcp_reach_problem(transport, address, port)
    else:
        address, port = host.address, host.port
        reason = tcp_reach_problem(transport, address, port)
    if not reason:
        return None
    message = _("%(client)s, the pgbench host, cannot reach the DB host %(host)s at %(address)s:%(port)s: %(reason)s.")
    params = {"client": client, "host": host, "address": address, "port": port}
    return ValidationError(message, params={**params, "reason": reason})
