"""The text PostgreSQL reads: postgresql.conf lines, pg_hba.conf addresses, and /proc/net/tcp for free ports.

Pure functions, so the quoting rules can be tested without a server.
"""

import ipaddress
import re
from collections.abc import Iterable, Mapping

_SETTING_NAME_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)?$")
_LISTEN = "0A"  # socket state LISTEN in /proc/net/tcp


class ClusterError(Exception):
    """The cluster did not do what was asked; the message carries the server's own words."""


class UnknownSetting(ClusterError):
    pass


def conf_quote(value: str) -> str:
    """A postgresql.conf string literal: quotes doubled, backslashes and line breaks escaped.

    The server's config lexer reads `\\n` back as a newline, so any value stays one line of data.
    """
    if "\x00" in value:
        raise ClusterError("a setting value cannot contain a NUL byte")
    escaped = value.replace("\\", "\\\\").replace("'", "''").replace("\n", "\\n").replace("\r", "\\r")
    return f"'{escaped}'"


def conf_lines(settings: Mapping[str, str]) -> str:
    return "".join(f"{name} = {conf_quote(str(value))}\n" for name, value in settings.items())


def unknown_settings(settings: Iterable[str], known: set[str], preload_libraries: str = "") -> list[str]:
    """Names the server would not accept. A dotted name is allowed when its prefix is a preloaded library."""
    libraries = {part.strip().strip("'\"") for part in preload_libraries.split(",") if part.strip()}
    unknown = []
    for name in settings:
        if not _SETTING_NAME_RE.match(name):
            unknown.append(name)
        elif "." in name:
            if name.split(".", 1)[0] not in libraries:
                unknown.append(name)
        elif name.lower() not in known:
            unknown.append(name)
    return unknown


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
