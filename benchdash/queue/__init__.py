"""The queue: Celery tasks, their heartbeat and the sending of tasks; the app's bridge from the store's rows to the
engine (workers/). Nothing below it imports it: studies says a trial is due (studies.lifecycle.signals), and this
package sends the task."""
