"""The note, never a refusal, on a TPC-B-like design with more clients than its scale.

TPC-B-like updates one row of pgbench_branches per transaction, and the scale is the number of branches: with more
clients than branches the clients wait on each other's branch row. The seeds ran exactly that (seed 003: -c 50 and
-c 100 on -s 25; seed 002: -c 256), so such a design is allowed, and the form's preview and the study's page say what
its figures include.
"""

from collections.abc import Iterable

from django.utils.translation import gettext_lazy as _

from benchdash.studies.models.scenario import Scenario


def contention_note(scenarios: Iterable[Scenario], scale: int, client_levels: Iterable[int]) -> str | None:
    """The note for these scenarios, scale and client levels; None when no TPC-B-like run has more clients than
    branches."""
    levels = [clients for clients in client_levels if clients > scale]
    if not levels or not any(scenario.builtin == Scenario.Builtin.TPCB for scenario in scenarios):
        return None
    message = _(
        "TPC-B-like at %(clients)s clients on scale %(scale)s: more clients than branches, so the clients wait on "
        "each other's branch row, and the figures measure that contention too."
    )
    return str(message % {"clients": ", ".join(map(str, levels)), "scale": scale})
