"""What the changes app tells others: change points were found that were not stored before (sent after the refresh
commits, with change_ids). The alerts are raised from it (benchdash/queue/alerts.py sends their task): changes sends
no task itself."""

from django.dispatch import Signal

changes_found = Signal()
