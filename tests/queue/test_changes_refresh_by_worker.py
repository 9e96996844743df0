"""Change points kept current by a real worker: marking a study official (or not), importing published results
and a study's end each send changes_refresh after commit, and the worker stores what changed; with the broker down
the mark stands and the changes wait for the next refresh."""

import io
from pathlib import Path

import pytest
from django.contrib.auth.models import Permission
from django.core.management import call_command
from django.db import transaction
from django.urls import reverse

from benchdash.changes.models import ChangePoint, SeriesKind
from benchdash.studies.lifecycle.signals import send_study_ended_after_commit
from benchdash.studies.models import Study
from tests.changes.test_changes_refresh import STEP, minor_series
from tests.factories import ScenarioFactory
from tests.queue.support import wait_for

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

HEADER = "study_year,study_title,source,hardware,os,scenario,pg_version,clients,tps,statistic,repetitions,notes\n"
# One published study of eight versions, 13 and after 20% above 12.
STEPPED_ROWS = "".join(
    f"2024,定点観測 参照系,PGECons 2024年度WG1,m5a.8xlarge,RHEL 9,pgecons-reference,{major}.0,16,{tps},median,3,\n"
    for major, tps in zip(range(9, 17), (1000, 1004, 996, 1001, 1200, 1205, 1198, 1202), strict=True)
)


def test_marking_a_study_official_and_back_moves_its_changes_into_and_out_of_the_feed(client, member, shared_worker):
    member.user_permissions.add(Permission.objects.get(codename="mark_official"))
    study = minor_series(STEP, status=Study.Status.DONE)
    response = client.post(
        reverse("studies:official", args=[study.pk]),
        {"official": "true", "confirm": "1", "reason": "three runs a minor"},
    )
    assert response.status_code == 302
    official = wait_for(lambda: ChangePoint.objects.filter(official=True).first(), 60, "the worker's refresh")
    assert (official.before_label, official.after_label) == ("17.2", "17.3")

    client.post(reverse("studies:official", args=[study.pk]), {"official": "false"})
    wait_for(lambda: not ChangePoint.objects.filter(official=True).exists(), 60, "the worker's second refresh")
    assert ChangePoint.objects.get().pk == official.pk


def test_importing_published_results_finds_their_step_without_refresh_changes(shared_worker, tmp_path: Path):
    ScenarioFactory(slug="pgecons-reference", builtin="")
    path = tmp_path / "stepped.csv"
    path.write_text(HEADER + STEPPED_ROWS, encoding="utf-8")
    call_command("import_results", str(path))
    change = wait_for(lambda: ChangePoint.objects.filter(series_kind=SeriesKind.STUDY).first(), 60, "the refresh")
    assert (change.before_label, change.after_label, change.official) == ("12.0", "13.0", True)
    assert change.size == pytest.approx(0.20, abs=0.01)


def test_a_studys_end_has_the_worker_recompute_the_change_points(shared_worker):
    study = minor_series(STEP)
    with transaction.atomic():
        send_study_ended_after_commit(study.pk)
    change = wait_for(lambda: ChangePoint.objects.first(), 60, "the worker's refresh")
    assert (change.before_label, change.after_label) == ("17.2", "17.3")


def test_a_study_is_marked_official_with_the_broker_down_and_its_changes_wait_for_the_next_refresh(
    client, member, redis_server, caplog
):
    member.user_permissions.add(Permission.objects.get(codename="mark_official"))
    study = minor_series(STEP, status=Study.Status.DONE)
    redis_server.stop(keep_data=False)
    response = client.post(
        reverse("studies:official", args=[study.pk]), {"official": "true", "confirm": "1", "reason": "three runs"}
    )
    assert response.status_code == 302
    assert Study.objects.get(pk=study.pk).official
    assert "the broker did not take changes_refresh" in caplog.text
    assert not ChangePoint.objects.exists()
    call_command("refresh_changes", stdout=io.StringIO())
    assert ChangePoint.objects.get().official
