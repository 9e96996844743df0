"""Alerts raised and sent by a real worker: marking a study official has the worker's refresh find its change point,
raise the alerts of the member who watches its scenario (the change point, and the study's verdicts where one is
faster or slower) and POST each, signed, to a local HTTP receiver; a trial subscription's alerts are recorded and
nothing more reaches the receiver."""

import pytest
from django.contrib.auth.models import Permission, User
from django.urls import reverse

from benchdash.alerts.messages import SIGNATURE_HEADER, signature
from benchdash.alerts.models import Alert, Watch
from benchdash.studies.models import Study
from tests.alerts.helpers import SECRET, subscribe
from tests.alerts.receivers import HttpReceiver, serving
from tests.changes.test_changes_refresh import STEP, minor_series
from tests.queue.support import wait_for

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def test_a_study_marked_official_alerts_its_scenarios_watchers_through_the_worker(client, member, shared_worker):
    receiver = HttpReceiver()
    serving(receiver)
    try:
        member.user_permissions.add(Permission.objects.get(codename="mark_official"))
        study = minor_series(STEP, status=Study.Status.DONE)
        watcher = User.objects.create_user("watcher", email="watcher@example.org")
        scenario = study.scenarios.get()
        subscribe(watcher, watch=Watch.SCENARIO, scenario=scenario, by_email=False, webhook_url=receiver.url)
        subscribe(
            watcher, watch=Watch.SCENARIO, scenario=scenario, by_email=False, webhook_url=receiver.url, trial=True
        )
        form = {"official": "true", "confirm": "1", "reason": "three runs a minor"}
        assert client.post(reverse("studies:official", args=[study.pk]), form).status_code == 302

        wait_for(lambda: Alert.objects.filter(kind=Alert.Kind.CHANGE, status=Alert.Status.SENT).exists(), 90, "alert")
        wait_for(lambda: not Alert.objects.filter(status=Alert.Status.PENDING).exists(), 60, "every alert sent")
        sent = Alert.objects.filter(status=Alert.Status.SENT)
        assert len(receiver.received) == sent.count()
        assert all(one.headers[SIGNATURE_HEADER] == signature(SECRET, one.body) for one in receiver.received)
        change = sent.get(kind=Alert.Kind.CHANGE)
        assert "17.2" in change.subject and "17.3" in change.subject
        assert change.subject in {one.json()["title"] for one in receiver.received}
        recorded = Alert.objects.filter(status=Alert.Status.RECORDED)
        assert sorted(recorded.values_list("kind", flat=True)) == sorted(sent.values_list("kind", flat=True))
    finally:
        receiver.shutdown()
        receiver.server_close()
