"""The worker's check of a host's address (issue 39): link-local, metadata and this machine in disguise are refused
in every spelling, and in whatever a name resolves to, when it connects; an administrator's allowance lets them by.

Names resolve through a hosts file of the test's own (tests/hosts_file.py)."""

import dataclasses
import json
from ipaddress import ip_address

import pytest

from tests.hosts_file import in_namespace_with_hosts
from workers.addresses import AddressProblem, embedded_ipv4, ip_problem, resolve
from workers.spec import HostSpec
from workers.transport import HostRefused, HostUnreachable, SSHTransport, connect, fetch_host_key

# Teredo 2001:0:4136:e378:8000:63bf:.. carries its client's address inverted: 5601:5601 is 169.254.169.254.
TEREDO_METADATA = "2001:0:4136:e378:8000:63bf:5601:5601"
SPELLINGS = [
    ("169.254.169.254", AddressProblem.LINK_LOCAL),
    ("fe80::1", AddressProblem.LINK_LOCAL),
    ("fe80::1%eth0", AddressProblem.LINK_LOCAL),
    ("::ffff:169.254.169.254", AddressProblem.LINK_LOCAL),
    ("::169.254.169.254", AddressProblem.LINK_LOCAL),
    ("::ffff:0:169.254.169.254", AddressProblem.LINK_LOCAL),
    ("64:ff9b::169.254.169.254", AddressProblem.LINK_LOCAL),
    ("64:ff9b:1::a9fe:a9fe", AddressProblem.LINK_LOCAL),
    ("2002:a9fe:a9fe::1", AddressProblem.LINK_LOCAL),
    (TEREDO_METADATA, AddressProblem.LINK_LOCAL),
    ("fd00:ec2::254", AddressProblem.METADATA),
    ("100.100.100.200", AddressProblem.METADATA),
    ("::ffff:100.100.100.200", AddressProblem.METADATA),
    ("64:ff9b::100.100.100.200", AddressProblem.METADATA),
    ("0.0.0.0", AddressProblem.DISGUISED),  # noqa: S104 (an address refused, not one bound)
    ("0.1.2.3", AddressProblem.DISGUISED),
    ("::", AddressProblem.DISGUISED),
    ("::ffff:127.0.0.1", AddressProblem.DISGUISED),
    ("::127.0.0.1", AddressProblem.DISGUISED),
    ("64:ff9b::127.0.0.1", AddressProblem.DISGUISED),
    ("64:ff9b::7f00:1", AddressProblem.DISGUISED),
    ("::ffff:0.0.0.0", AddressProblem.DISGUISED),
    ("2002:7f00:1::1", AddressProblem.DISGUISED),
]
ACCEPTED = ["127.0.0.1", "127.0.0.2", "::1", "192.0.2.10", "10.0.0.1", "2001:db8::1", "::ffff:192.0.2.10", "fd00::1"]


@pytest.mark.parametrize(("address", "problem"), SPELLINGS)
def test_it_refuses_each_spelling_with_its_reason(address, problem):
    assert ip_problem(ip_address(address)) == problem


@pytest.mark.parametrize("address", ACCEPTED)
def test_it_takes_loopback_as_itself_and_ordinary_addresses(address):
    assert ip_problem(ip_address(address)) is None


def test_it_finds_the_ipv4_address_inside_each_ipv6_spelling():
    carried = [embedded_ipv4(ip_address(address)) for address, _ in SPELLINGS[3:10]]
    assert carried == [ip_address("169.254.169.254")] * 7
    assert embedded_ipv4(ip_address("::1")) is None and embedded_ipv4(ip_address("2001:db8::1")) is None


def test_it_resolves_a_name_to_every_address_and_an_ip_to_itself():
    assert resolve("localhost") == [ip_address("127.0.0.1")]
    assert resolve("::ffff:169.254.169.254") == [ip_address("::ffff:169.254.169.254")]
    assert resolve("nothing.invalid") == []


@pytest.mark.parametrize("address", ["fd00:ec2::254", "::ffff:169.254.169.254", "64:ff9b::169.254.169.254"])
def test_the_worker_refuses_the_address_before_it_connects(address):
    with pytest.raises(HostRefused, match=r"BENCHDASH_ALLOW_LINK_LOCAL_HOSTS=true"):
        connect(HostSpec(name="metadata", address=address, port=80, work_dir="/tmp/bd"))
    with pytest.raises(HostRefused, match=r"^fd00:ec2::254 is a cloud metadata address"):
        fetch_host_key("fd00:ec2::254", 80, timeout=1)


def test_loopback_in_disguise_reaches_the_server_only_when_an_administrator_allows_it(ssh_target):
    """::ffff:127.0.0.1 does reach the test's sshd on 127.0.0.1: refused, the worker never gets there."""
    with pytest.raises(HostRefused, match=r"^::ffff:127.0.0.1 is this machine in disguise"):
        fetch_host_key("::ffff:127.0.0.1", ssh_target.port, timeout=5)
    offered = fetch_host_key("::ffff:127.0.0.1", ssh_target.port, timeout=5, allow_link_local=True)
    assert offered.split()[:2] == ssh_target.host_key.split()[:2]


CONNECT = """
import json, sys
from workers.spec import HostSpec
from workers.transport import HostRefused, connect
for spec in json.loads(sys.argv[1]):
    try:
        print("ran", connect(HostSpec(**spec)).run(["echo", "ok"]).text.strip())
    except HostRefused as refused:
        print("refused", refused)
"""


def test_the_worker_checks_what_a_name_resolves_to_and_connects_to_that(tmp_path, ssh_target):
    """metadata.test and sneaky.test resolve to refused addresses, target.test to the sshd's 127.0.0.1."""
    hosts = "127.0.0.1 localhost\n169.254.169.254 metadata.test\n::ffff:127.0.0.1 sneaky.test\n127.0.0.1 target.test\n"
    names = ["metadata.test", "sneaky.test", "target.test"]
    specs = [dataclasses.asdict(dataclasses.replace(ssh_target, name=name, address=name)) for name in names]
    child = in_namespace_with_hosts(tmp_path, hosts, CONNECT, json.dumps(specs))
    assert child.returncode == 0, child.stderr
    assert child.stdout.splitlines() == [
        "refused metadata.test (resolves to 169.254.169.254) is a link-local address (169.254.0.0/16, fe80::/10), "
        "where cloud machines answer with their credentials: benchdash refuses it unless an administrator sets "
        "BENCHDASH_ALLOW_LINK_LOCAL_HOSTS=true",
        "refused sneaky.test (resolves to ::ffff:7f00:1) is this machine in disguise (0.0.0.0, ::, or loopback "
        "inside an IPv6 address; write loopback as 127.0.0.1 or ::1): benchdash refuses it unless an administrator "
        "sets BENCHDASH_ALLOW_LINK_LOCAL_HOSTS=true",
        "ran ok",
    ]


def test_an_ssh_transport_connects_to_the_checked_address(ssh_target):
    transport = connect(dataclasses.replace(ssh_target, address="localhost"))
    try:
        assert isinstance(transport, SSHTransport) and transport.run(["echo", "ok"]).text == "ok\n"
    finally:
        transport.close()


def test_a_name_that_does_not_resolve_is_waited_for_and_a_refused_address_is_not():
    """HostUnreachable makes the attempt wait for the host (workers/host_wait.py); HostRefused fails it at once."""
    with pytest.raises(HostUnreachable, match=r"^cannot resolve nothing\.invalid$"):
        connect(HostSpec(name="gone", address="nothing.invalid", work_dir="/tmp/bd"))
    assert not issubclass(HostRefused, HostUnreachable)
