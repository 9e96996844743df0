"""Which addresses benchdash connects to: not link-local, not a cloud's metadata service, not this machine in
disguise, in any spelling.

A cloud machine answers on 169.254.169.254 (and EC2 on fd00:ec2::254) with its credentials. The same address
can be written inside an IPv6 one (::ffff:169.254.169.254, ::169.254.169.254, 64:ff9b::169.254.169.254, 6to4,
Teredo), or hide behind a name that resolves to it. So a name is resolved and every address it stands for is
checked, each with the IPv4 address it carries; loopback and 0.0.0.0 are accepted only as themselves (127.0.0.1,
::1), never inside an IPv6 address. The form, the admin and the commands check an address when it is saved
(benchdash/inventory/validators.py); the worker checks it again when it connects, and connects to the addresses
it checked, so that a name answering otherwise the second time reaches nothing unchecked.
"""

import socket
from collections.abc import Callable, Sequence
from enum import StrEnum
from ipaddress import IPv4Address, IPv6Address, ip_address, ip_network

IPAddress = IPv4Address | IPv6Address
Resolver = Callable[[str], list[IPAddress]]

METADATA_ADDRESSES = frozenset({ip_address("fd00:ec2::254"), ip_address("100.100.100.200")})  # EC2's, Alibaba's
_THIS_NETWORK = ip_network("0.0.0.0/8")  # 0.0.0.0 reaches this machine
_NAT64_PREFIXES = (ip_network("64:ff9b::/96"), ip_network("64:ff9b:1::/48"))
_IPV4_COMPATIBLE = ip_network("::/96")
_IPV4_TRANSLATED = ip_network("::ffff:0:0:0/96")


class AddressProblem(StrEnum):
    LINK_LOCAL = "link_local"
    METADATA = "metadata"
    DISGUISED = "disguised"


_REASONS = {
    AddressProblem.LINK_LOCAL: "a link-local address (169.254.0.0/16, fe80::/10), where cloud machines answer with "
    "their credentials",
    AddressProblem.METADATA: "a cloud metadata address (fd00:ec2::254, 100.100.100.200), where cloud machines answer "
    "with their credentials",
    AddressProblem.DISGUISED: "this machine in disguise (0.0.0.0, ::, or loopback inside an IPv6 address; write "
    "loopback as 127.0.0.1 or ::1)",
}


def embedded_ipv4(ip: IPAddress) -> IPv4Address | None:
    """The IPv4 address an IPv6 address carries: IPv4-mapped, -compatible or -translated, NAT64, 6to4, Teredo."""
    if isinstance(ip, IPv4Address):
        return None
    if ip.ipv4_mapped or ip.sixtofour:
        return ip.ipv4_mapped or ip.sixtofour
    if ip.teredo:
        return ip.teredo[1]
    low_bits = any(ip in network for network in (*_NAT64_PREFIXES, _IPV4_COMPATIBLE, _IPV4_TRANSLATED))
    return IPv4Address(int(ip) & 0xFFFFFFFF) if low_bits and int(ip) > 1 else None


def ip_problem(ip: IPAddress) -> AddressProblem | None:
    """Why benchdash refuses to connect to `ip`, or None."""
    carried = embedded_ipv4(ip)
    if ip.is_unspecified or ip in _THIS_NETWORK or (carried and (carried.is_loopback or carried in _THIS_NETWORK)):
        return AddressProblem.DISGUISED
    candidates = [ip, carried] if carried else [ip]
    if any(candidate.is_link_local for candidate in candidates):
        return AddressProblem.LINK_LOCAL
    if any(candidate in METADATA_ADDRESSES for candidate in candidates):
        return AddressProblem.METADATA
    return None


def resolve(address: str) -> list[IPAddress]:
    """Every address `address` stands for: itself when it is an IP, else what the resolver answers (nothing when
    the name does not resolve)."""
    try:
        return [ip_address(address)]
    except ValueError:
        pass
    try:
        answers = socket.getaddrinfo(address, None, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError):
        return []
    return list(dict.fromkeys(ip_address(str(answer[4][0])) for answer in answers))


def address_problem(ips: Sequence[IPAddress]) -> tuple[IPAddress, AddressProblem] | None:
    """The first of `ips` that benchdash refuses, and why."""
    return next(((ip, problem) for ip in ips if (problem := ip_problem(ip))), None)


def written_as_ip(address: str, ip: IPAddress) -> bool:
    """Whether `address` is `ip` itself, in any spelling, rather than a name that resolved to it."""
    try:
        return ip_address(address) == ip
    except ValueError:
        return False


def refused_reason(address: str, ip: IPAddress, problem: AddressProblem) -> str:
    """The sentence the worker fails with, naming the address it resolved where that is not the one written."""
    written = address if written_as_ip(address, ip) else f"{address} (resolves to {ip})"
    return (
        f"{written} is {_REASONS[problem]}: benchdash refuses it unless an administrator sets "
        f"BENCHDASH_ALLOW_LINK_LOCAL_HOSTS=true"
    )
