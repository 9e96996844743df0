"""What a lost attempt left running on its hosts (pgbench, the collectors such as the wait-events loop, a data load,
the server), stopped by whoever noticed the loss rather than by the next attempt, which may never come (the attempt
was the trial's last) or come minutes later.

Behind the lost attempt's own fence: a host that a later attempt already holds refuses every command, so nothing of
that attempt is touched.
"""

import logging
from contextlib import ExitStack

from workers.builds import install_build
from workers.runner import TrialRun
from workers.spec import TrialSpec
from workers.transport import connect
from workers.transport_base import AttemptFenced
from workers.trial_cluster import stop_leftover_servers

logger = logging.getLogger(__name__)


def stop_lost_attempt(spec: TrialSpec) -> list[str]:
    """Stop what spec's attempt left on its hosts and remove its trial files; returns what was running (background
    commands by name, servers by data directory). Nothing when a later attempt holds the host."""
    with ExitStack() as stack:
        db = stack.enter_context(connect(spec.db_host))
        same = spec.client_host == spec.db_host
        client = db if same else stack.enter_context(connect(spec.client_host))
        run = TrialRun(spec, db, client, should_cancel=lambda: False)
        try:
            run.take_fences()
        except AttemptFenced:
            logger.warning("trial %s: a later attempt holds its host; nothing to stop", spec.trial_id)
            return []
        stopped = [name for transport in run.transports() for name in transport.kill_leftovers()]
        stopped += stop_leftover_servers(db, install_build(db, spec.build))
        for transport in run.transports():
            run.remove_trial_dir(transport)
        return stopped
