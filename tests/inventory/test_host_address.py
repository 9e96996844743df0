"""A host's address and SSH port (issue 19): a host name or an IP that is not link-local, a port from 1 to
65535; one check on the model's fields, so the admin and any ModelForm refuse the same, and pin_host_key
refuses a row stored before the check, before it connects anywhere."""

import re

import pytest
from django.core.exceptions import ValidationError
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import override_settings
from django.urls import reverse
from django.utils import translation

from benchdash.inventory.models import Host
from benchdash.inventory.validators import validate_host_address
from tests.hosts_file import in_namespace_with_hosts

LINK_LOCAL = "is a link-local address (169.254.0.0/16, fe80::/10)"
METADATA = "is a cloud metadata address (fd00:ec2::254, 100.100.100.200)"
DISGUISED = "is this machine in disguise"
NOT_AN_ADDRESS = "is neither a host name"
NUMERIC = "is written as a number"
REFUSED = [
    ("169.254.169.254", LINK_LOCAL),
    ("fe80::1", LINK_LOCAL),
    ("::ffff:169.254.169.254", LINK_LOCAL),
    ("::169.254.169.254", LINK_LOCAL),
    ("64:ff9b::169.254.169.254", LINK_LOCAL),
    ("2002:a9fe:a9fe::1", LINK_LOCAL),
    ("fd00:ec2::254", METADATA),
    ("100.100.100.200", METADATA),
    ("::ffff:127.0.0.1", DISGUISED),
    ("64:ff9b::127.0.0.1", DISGUISED),
    ("0.0.0.0", DISGUISED),  # noqa: S104 (an address refused, not one bound)
    ("10.0.0.1; id", NOT_AN_ADDRESS),
    ("db1 -oProxyCommand=id", NOT_AN_ADDRESS),
    ("-oProxyCommand=id", NOT_AN_ADDRESS),
    ("db1.example.com.", NOT_AN_ADDRESS),
    ("db_1", NOT_AN_ADDRESS),
    ("x" * 64 + ".example.com", NOT_AN_ADDRESS),
    ("2852039166", NUMERIC),
    ("0xa9.0xfe.0xa9.0xfe", NUMERIC),
    ("169.254.43518", NUMERIC),
]
TAKEN = ["db1", "db-1.example.com", "192.0.2.10", "2001:db8::1", "localhost", "127.0.0.1", "::1", "a" * 63]


def message(address: str, language: str = "en") -> str:
    with translation.override(language), pytest.raises(ValidationError) as refused:
        validate_host_address(address)
    with translation.override(language):
        return " ".join(refused.value.messages)


@pytest.mark.parametrize(("address", "reason"), REFUSED)
def test_it_refuses_what_is_not_a_host_name_or_a_plain_ip_with_the_reason(address, reason):
    assert message(address).startswith(f"{address} {reason}")


@pytest.mark.parametrize("address", TAKEN)
def test_it_takes_a_host_name_or_an_ip(address):
    assert validate_host_address(address) is None


def test_the_messages_are_in_japanese_too():
    assert message("169.254.169.254", "ja").startswith("169.254.169.254 はリンクローカルアドレス")
    assert message("fd00:ec2::254", "ja").startswith("fd00:ec2::254 はクラウドのメタデータアドレス")
    assert message("::ffff:127.0.0.1", "ja").startswith("::ffff:127.0.0.1 は姿を変えたこのマシン")
    assert message("10.0.0.1; id", "ja").startswith("10.0.0.1; id はホスト名")


@override_settings(ALLOW_LINK_LOCAL_HOSTS=True)
def test_an_administrator_may_allow_link_local_addresses():
    for address in ("169.254.169.254", "fd00:ec2::254", "64:ff9b::169.254.169.254", "::ffff:127.0.0.1"):
        assert validate_host_address(address) is None
    assert NOT_AN_ADDRESS in message("10.0.0.1; id")


VALIDATE = """
import sys, django
django.setup()
from django.core.exceptions import ValidationError
from django.utils import translation
from benchdash.inventory.validators import validate_host_address
translation.activate("en")
for name in sys.argv[1:]:
    try:
        validate_host_address(name)
        print("taken", name)
    except ValidationError as refused:
        print("refused", *refused.messages)
"""


def test_a_name_is_refused_for_what_it_resolves_to(tmp_path):
    """Resolved by glibc through a hosts file of the test's own (tests/hosts_file.py): the form's check is the
    worker's (tests/engine/test_addresses.py), run when the host is saved."""
    hosts = "127.0.0.1 localhost\n169.254.169.254 metadata.test\nfd00:ec2::254 metadata6.test\n127.0.0.1 db.test\n"
    child = in_namespace_with_hosts(tmp_path, hosts, VALIDATE, "metadata.test", "metadata6.test", "db.test")
    assert child.returncode == 0, child.stderr
    lines = child.stdout.splitlines()
    assert lines[0].startswith(f"refused metadata.test (resolves to 169.254.169.254) {LINK_LOCAL}")
    assert lines[1].startswith(f"refused metadata6.test (resolves to fd00:ec2::254) {METADATA}")
    assert lines[2:] == ["taken db.test"]


def host_form(**changes: str) -> dict[str, str]:
    return {"name": "db1", "address": "192.0.2.10", "port": "22", "username": "bench", "work_dir": "/srv/bd", **changes}


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("changes", "field", "code", "japanese"),
    [
        ({"address": "169.254.169.254", "port": "80"}, "address", "link_local", "リンクローカルアドレス"),
        ({"address": "10.0.0.1; id"}, "address", "address", "ホスト名"),
        ({"address": "fd00:ec2::254", "port": "80"}, "address", "metadata", "メタデータアドレス"),
        ({"address": "64:ff9b::169.254.169.254"}, "address", "link_local", "リンクローカルアドレス"),
        ({"port": "99999"}, "port", "max_value", "ポートは 1 から 65535 までの数です。"),
        ({"port": "0"}, "port", "min_value", "ポートは 1 から 65535 までの数です。"),
    ],
)
def test_the_admin_refuses_the_host_and_saves_nothing(admin_client, changes, field, code, japanese):
    """The site speaks Japanese by default: the admin's page shows the message in it."""
    response = admin_client.post(reverse("admin:inventory_host_add"), host_form(**changes))
    errors = response.context["adminform"].form.errors
    assert [error.code for error in errors.as_data()[field]] == [code]
    assert japanese in " ".join(errors[field])
    assert not Host.objects.filter(name="db1").exists()


@pytest.mark.django_db
def test_the_admin_takes_a_host_name_and_a_port(admin_client):
    response = admin_client.post(reverse("admin:inventory_host_add"), host_form(address="db1.example.com", port="2222"))
    assert response.status_code == 302
    assert Host.objects.values_list("address", "port").get(name="db1") == ("db1.example.com", 2222)


@pytest.mark.django_db
def test_pin_host_key_refuses_a_stored_link_local_host_before_connecting():
    Host.objects.create(name="metadata", address="169.254.169.254", port=80)
    with (
        translation.override("en"),
        pytest.raises(CommandError, match=re.escape(f"host 'metadata': 169.254.169.254 {LINK_LOCAL}")),
    ):
        call_command("pin_host_key", "metadata", "--timeout", "1")
