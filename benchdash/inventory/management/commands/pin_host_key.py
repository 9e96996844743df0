"""`manage.py pin_host_key HOST [--yes] [--replace]`: show the key a host offers, pin it on request, and read the
host's facts once it is pinned."""

from typing import Any

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError, CommandParser

from benchdash.inventory.host_facts import COMMAND_LOCK_WAIT_S, facts_outcome_line, host_facts_read
from benchdash.inventory.models import Host
from workers.transport import TransportError, fetch_host_key, key_fingerprint


def same_key(first: str, second: str) -> bool:
    """Compare 'TYPE BASE64' and ignore any comment after them."""
    return first.split()[:2] == second.split()[:2]


class Command(BaseCommand):
    help = (
        "Connect to the host's SSH address:port, print the offered host key's type and SHA256 fingerprint, "
        "and pin it on the host with --yes (a key that differs from the pinned one also needs --replace)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("host", help="name of the Host")
        parser.add_argument("--yes", action="store_true", help="store the offered key as the pinned host key")
        parser.add_argument("--replace", action="store_true", help="allow replacing a different pinned key")
        parser.add_argument("--timeout", type=float, default=15, help="seconds to wait for the server")

    def handle(self, *args: object, **options: Any) -> None:
        host = self.find_host(str(options["host"]))
        try:
            offered = fetch_host_key(
                host.address, host.port, timeout=options["timeout"], allow_link_local=host.allow_link_local
            )
        except TransportError as exc:
            raise CommandError(str(exc)) from exc
        key_type = offered.split()[0]
        self.stdout.write(f"{host.name} ({host.address}:{host.port}) offers {key_type} {key_fingerprint(offered)}")
        if host.host_key and same_key(host.host_key, offered):
            self.stdout.write("This key is already pinned.")
            self.stdout.write(facts_outcome_line(host_facts_read(host_id=host.pk, wait_s=COMMAND_LOCK_WAIT_S)))
            return
        if host.host_key:
            self.stderr.write(f"WARNING: HOST KEY CHANGED. Pinned: {key_fingerprint(host.host_key)}")
            if not options["replace"]:
                raise CommandError("the offered key differs from the pinned one; check why, then add --replace")
        if not options["yes"]:
            self.stdout.write("Not pinned. Check the fingerprint out of band, then run again with --yes.")
            return
        host.host_key = offered
        host.save(update_fields=["host_key"])
        self.stdout.write(self.style.SUCCESS(f"Pinned {key_type} {key_fingerprint(offered)} on {host.name}."))
        self.stdout.write(facts_outcome_line(host_facts_read(host_id=host.pk, wait_s=COMMAND_LOCK_WAIT_S)))

    def find_host(self, name: str) -> Host:
        try:
            host = Host.objects.get(name=name)
        except Host.DoesNotExist:
            raise CommandError(f"no host named {name!r}") from None
        if host.is_local or not host.address:
            raise CommandError(f"host {name!r} is not reached by SSH (no address), so it has no host key")
        # A row stored before the address and port were checked is checked here, before anything connects.
        try:
            host.clean_fields(
                exclude=[field.name for field in Host._meta.fields if field.name not in ("address", "port")]
            )
        except ValidationError as error:
            raise CommandError(f"host {name!r}: {' '.join(error.messages)}") from None
        return host
