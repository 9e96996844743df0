"""pgbench's thread count (-j): a study's choice, written as a rule or a number, and pgbench's rule on it.

A study takes each scenario's rule (""), or sets one for all its trials: "one" (pgbench's default), "same" (as many
threads as clients), "half" (clients / 2, at least 1), or a fixed number (seed 002: -c 256 -j 32). pgbench 9.x refuses
a client count that is not a multiple of the threads ("number of clients (N) must be a multiple of number of threads
(M)"), and no pgbench runs more threads than clients: a study's own choice is held to both, at every client level, so
that the same design runs on any pgbench.
"""

from collections.abc import Iterable

from django.core.exceptions import ValidationError
from django.utils.translation import gettext_lazy as _

RULES = ("one", "same", "half")
MAX_THREADS = 4096
_WRITTEN = {"1": "one", "one": "one", "same": "same", "clients": "same", "half": "half"}


def threads_choice(text: str) -> str:
    """The written choice as the study stores it: "" (each scenario's rule), a rule, or a whole number; a clear
    ValidationError for anything else."""
    written = text.strip().lower()
    if not written or written in _WRITTEN:
        return _WRITTEN.get(written, "")
    if written.isascii() and written.isdigit() and 1 <= int(written) <= MAX_THREADS:
        return str(int(written))
    message = _("%(value)s: write half, same (as the clients), one, or a number of threads from 1 to %(maximum)s.")
    raise ValidationError(message, params={"value": text, "maximum": MAX_THREADS})


def threads_text(choice: str) -> str:
    """The choice as the pages write it."""
    texts = {"": _("each scenario's rule"), "one": "1", "same": _("as many as the clients"), "half": _("clients / 2")}
    return str(texts.get(choice, choice))


def thread_count(choice: str, clients: int) -> int:
    """The -j of one run: the rule's count for these clients, or the fixed number."""
    if choice == "one":
        return 1
    if choice == "same":
        return clients
    if choice == "half":
        return max(1, clients // 2)
    return int(choice)


def threads_problems(choice: str, client_levels: Iterable[int]) -> list[ValidationError]:
    """Each client level at which pgbench would refuse the chosen threads (none for each scenario's own rule)."""
    if not choice:
        return []
    refused = [clients for clients in client_levels if not _pgbench_takes(clients, thread_count(choice, clients))]
    if not refused:
        return []
    message = _(
        "-j %(threads)s at %(clients)s clients: pgbench needs at least as many clients as threads, and the clients a "
        "multiple of the threads."
    )
    return [
        ValidationError(message, params={"threads": thread_count(choice, clients), "clients": clients})
        for clients in refused
    ]


def _pgbench_takes(clients: int, threads: int) -> bool:
    return threads <= clients and clients % threads == 0
