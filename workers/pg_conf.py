"""The text PostgreSQL reads: postgresql.conf lines, pg_hba.conf addresses, and /proc/net/tcp for free ports.

Pure functions, so the quoting rules can be tested without a server.
"""

import ipaddress
from collections.abc import Iterable, Mapping

from workers.settings_rules import SETTING_NAME_RE

_LISTEN = "0A"  # socket state LISTEN in /proc/net/tcp


class ClusterError(Exception):
    """The cluster did not do what was asked; the message carries the server's own words."""


class RefusedSetting(ClusterError):
    """A study's setting that benchdash or this build refuses (workers/settings_rules.py, describe-config)."""


class UnknownSetting(RefusedSetting):
    pass


class ServerCannotStart(ClusterError):
    """The server did not start for a cause that repeats (workers/repeating_failure.py): its own words."""


def conf_quote(value: str) -> str:
    """A postgresql.conf string literal: quotes doubled, backslashes and line breaks escaped.

    The server's config lexer reads `\\n` back as a newline, so any value stays one line of data.
    """
    if "\x00" in value:
        raise ClusterError("a setting value cannot contain a NUL byte")
    escaped = value.replace("\\", "\\\\").replace("'", "''").replace("\n", "\\n").replace("\r", "\\r")
    return f"'{escaped}'"


def conf_lines(settings: Mapping[str, str]) -> str:
    """`name = 'value'` lines; a name that is not a setting name (it could carry a line break) is refused."""
    bad = [name for name in settings if not SETTING_NAME_RE.fullmatch(name)]
    if bad:
        raise RefusedSetting(f"not a setting name: {bad[0]!r}")
    return "".join(f"{name} = {conf_quote(str(value))}\n" for name, value in settings.items())


def unknown_settings(settings: Iterable[str], known: set[str]) -> list[str]:
    """Names the server would not accept: not a setting name, or not one of `known` (its describe-config)."""
    return [name for name in settings if not SETTING_NAME_RE.fullmatch(name) or name.lower() not in known]


def listening_ports(proc_net_tcp: str) -> set[int]:
    """Ports in state LISTEN in the text of /proc/net/tcp and /proc/net/tcp6."""
    ports = set()
    for line in proc_net_tcp.splitlines():
        fields = line.split()
        if len(fields) > 3 and ":" in fields[1] and fields[3] == _LISTEN:
            ports.add(int(fields[1].rsplit(":", 1)[1], 16))
    return ports


def hba_address(address: str) -> str:
    """A pg_hba.conf address field: an IP gets its host mask, a host name stays as it is."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return address
    return f"{ip}/{ip.max_prefixlen}"


def hba_lines(user: str, client_addresses: Iterable[str], ident_map: str) -> str:
    """The whole pg_hba.conf of a benchmark cluster: no rule trusts anyone.

    The target's own account reaches `user` over the cluster's private socket (peer, through ident_map);
    TCP clients, the loopback included, give the cluster's password (scram-sha-256).
    """
    lines = [
        "# written by benchdash: peer on the cluster's own socket, scram-sha-256 over TCP, no other rule",
        f"local all {user} peer map={ident_map}",
        f"host all {user} 127.0.0.1/32 scram-sha-256",
        f"host all {user} ::1/128 scram-sha-256",
    ]
    lines += [f"host all {user} {hba_address(address)} scram-sha-256" for address in client_addresses]
    return "\n".join(lines) + "\n"


def ident_lines(ident_map: str, os_user: str, user: str) -> str:
    """pg_ident.conf: the target's account (and only it) may connect as the cluster's superuser."""
    return f"# written by benchdash\n{ident_map} {os_user} {user}\n"


def passfile_line(port: int, user: str, password: str) -> str:
    """A .pgpass line for the cluster at this port; ':' and '\\' in the password escaped as libpq reads them."""
    escaped = password.replace("\\", "\\\\").replace(":", "\\:")
    return f"*:{int(port)}:*:{user}:{escaped}\n"
