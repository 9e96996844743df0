"""When a series changed (a study ended: study_ended; published results imported, a study marked official or not:
series_changed), send changes_refresh. Both signals come after commit, so the task reads what changed. A broker that
cannot take it now leaves the change points as they were until the next change or `manage.py refresh_changes`."""

import logging
from typing import Any

from kombu.exceptions import OperationalError as BrokerUnreachable

from benchdash.queue.tasks import changes_refresh


def send_changes_refresh(*, scenario_ids: list[int] | None = None, **_: Any) -> None:
    """The receiver of study_ended (every series: a study's end may move a host's series of any scenario) and of
    series_changed (the series of its scenarios)."""
    try:
        changes_refresh.apply_async((scenario_ids,), ignore_result=True)
    except BrokerUnreachable as error:
        logging.getLogger(__name__).warning("the broker did not take changes_refresh (%s)", error)
