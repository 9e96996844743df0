"""`manage.py pin_host_key`: shows the offered key, pins it only when told to."""

from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from tests.factories import HostFactory
from tests.sshd import generate_key
from workers.transport import key_fingerprint

pytestmark = pytest.mark.django_db


def pin(name: str, *flags: str) -> str:
    out = StringIO()
    call_command("pin_host_key", name, *flags, stdout=out, stderr=StringIO())
    return out.getvalue()


def test_it_prints_the_fingerprint_and_pins_nothing_without_yes(ssh_target):
    host = HostFactory(name="db1", address=ssh_target.address, port=ssh_target.port, host_key="")
    output = pin("db1")
    assert f"offers ssh-ed25519 {key_fingerprint(ssh_target.host_key)}" in output
    host.refresh_from_db()
    assert host.host_key == ""


def test_it_pins_the_offered_key_with_yes(ssh_target):
    host = HostFactory(name="db2", address=ssh_target.address, port=ssh_target.port, host_key="")
    pin("db2", "--yes")
    host.refresh_from_db()
    assert host.host_key == ssh_target.host_key


def test_it_refuses_to_replace_a_changed_key_without_replace(ssh_target, tmp_path):
    old_key = generate_key(tmp_path / "old")
    host = HostFactory(name="db3", address=ssh_target.address, port=ssh_target.port, host_key=old_key)
    with pytest.raises(CommandError, match="--replace"):
        pin("db3", "--yes")
    host.refresh_from_db()
    assert host.host_key == old_key
    pin("db3", "--yes", "--replace")
    host.refresh_from_db()
    assert host.host_key == ssh_target.host_key


def test_it_explains_an_unreachable_host(ssh_target):
    HostFactory(name="db4", address="127.0.0.1", port=1, host_key="")
    with pytest.raises(CommandError, match="cannot read the host key of 127.0.0.1:1"):
        pin("db4")


def test_it_refuses_an_unknown_host_name():
    with pytest.raises(CommandError, match="no host named 'nope'"):
        pin("nope")
