"""Whether one host reaches another over TCP: a study's pgbench host must reach each DB host it runs pgbench against.

The probe runs on the pgbench host as an argument list (bash's /dev/tcp, under `timeout`): the addresses are data,
never shell text. A DB host that is the worker's own machine (the host `local`) is probed at a port this process
opens for the probe's time: the probe then crosses the same route and firewall a benchmark connection will.
"""

import re
import socket
from collections.abc import Iterator
from contextlib import contextmanager

from workers.transport import Transport

PROBE_TIMEOUT_S = 5
_OPEN_TCP = 'exec 3<>"/dev/tcp/$1/$2"'
_NOT_FOUND = 127  # no bash on the host: nothing was probed
_TIMED_OUT = 124


def tcp_reach_problem(transport: Transport, address: str, port: int, timeout_s: int = PROBE_TIMEOUT_S) -> str:
    """From the transport's host, open a TCP connection to address:port: "" when it opens, else why it did not."""
    argv = ["timeout", str(timeout_s), "bash", "-c", _OPEN_TCP, "reach", address, str(port)]
    result = transport.run(argv, timeout=timeout_s + 15, check=False)
    if result.ok or result.exit_status == _NOT_FOUND:
        return ""
    if result.exit_status == _TIMED_OUT:
        return f"no answer within {timeout_s} s"
    lines = result.stderr.decode(errors="replace").strip().splitlines()
    said = [re.sub(r"^reach: (line \d+: )?", "", line) for line in lines]
    return "; ".join(said) or f"exit status {result.exit_status}"


@contextmanager
def listening_port() -> Iterator[int]:
    """A TCP port of this machine, open on all its addresses while the block runs."""
    dual = socket.has_dualstack_ipv6()
    family = socket.AF_INET6 if dual else socket.AF_INET
    with socket.create_server(("", 0), family=family, dualstack_ipv6=dual) as listener:
        yield int(listener.getsockname()[1])
