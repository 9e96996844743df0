"""The noise check on the host page (with its button) and on the study page, from a recorded check's report."""

import re
from pathlib import Path

import pytest
from django.contrib.auth.models import Permission, User
from django.urls import reverse

from benchdash.studies.lifecycle.noise import noise_check_keep, study_needs_noise_check
from benchdash.studies.models import Variant
from benchdash.studies.quality import study_quality
from tests.factories import BuildFactory, HostFactory, StudyFactory, TrialFactory
from workers.preflight import parse_preflight, preflight_report

pytestmark = pytest.mark.django_db

RECORDED = Path(__file__).parents[1] / "engine" / "preflight_outputs" / "shared-2-cpu-vm.txt"


def text_of(page: str, section_id: str) -> str:
    section = page.split(f'id="{section_id}"')[1].split("</section>")[0]
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", section))


def test_the_host_page_gives_the_verdict_and_each_finding_in_words(client):
    host = HostFactory(name="db1", address="10.0.0.5")
    noise_check_keep(report=preflight_report(parse_preflight(RECORDED.read_text())), host_id=host.pk)
    page = client.get(reverse("inventory:host_detail", args=[host.pk]), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    text = text_of(page, "noise-check")
    assert "Noisy: other work on the host now" in text
    assert "Load average 4.16 on 2 CPUs: other work runs on the host." in text
    assert "4 busy processes during the sampled window: python3 (54%), postgres (41%), postgres (33%)" in text
    assert "Spread of the micro-run: 15.2% over 10 runs" in text
    assert "Transparent huge pages madvise" in text and "CPU frequency governor not exposed" in text
    assert "Check noise now" not in text  # an anonymous visitor reads, but cannot run a check


def test_a_host_never_checked_says_when_it_will_be(client):
    host = HostFactory(name="db2", address="10.0.0.6")
    page = client.get(reverse("inventory:host_detail", args=[host.pk]), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "Not checked yet: a study checks its DB host before its first trial." in text_of(page, "noise-check")


def test_the_study_page_keeps_the_verdict_its_host_had_before_it_ran(client):
    study = StudyFactory()
    report = preflight_report(parse_preflight(RECORDED.read_text()))
    noise_check_keep(report=report, host_id=study.db_host_id, study_id=study.pk)
    page = client.get(reverse("studies:detail", args=[study.pk]), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "Noisy: other work on the host now" in text_of(page, "noise-check")


def test_the_button_needs_a_login_and_the_permission_to_queue_studies(client):
    host = HostFactory(name="db3", address="10.0.0.7")
    url = reverse("queue:host_noise_check", args=[host.pk])
    assert "login" in client.post(url)["Location"]
    client.force_login(User.objects.create_user("reader", password="pw-reader-1"))
    assert client.post(url).status_code == 403
    user = User.objects.create_user("member", password="pw-member-1")
    user.user_permissions.add(Permission.objects.get(codename="add_study"))
    client.force_login(user)
    page = client.get(reverse("inventory:host_detail", args=[host.pk])).content.decode()
    assert "noise-check/" in page


def test_a_study_on_two_hosts_keeps_and_shows_each_host_s_check_and_the_quality_screen_weighs_both(client):
    study = StudyFactory()
    other = HostFactory(name="guest-2")
    Variant.objects.create(study=study, build=BuildFactory(), label="on guest-2", db_host=other)
    on_study_host, on_other = (TrialFactory(study=study, host=host) for host in (study.db_host, other))
    assert [study_needs_noise_check(trial) for trial in (on_study_host, on_other)] == [True, True]
    quiet = {"verdict": "quiet", "findings": [], "facts": {}}

    noise_check_keep(report=quiet, host_id=study.db_host_id, study_id=study.pk)

    assert [study_needs_noise_check(trial) for trial in (on_study_host, on_other)] == [False, True]
    page = client.get(reverse("studies:detail", args=[study.pk]), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    section = text_of(page, "noise-check")
    assert "guest-2 Runs on this DB host before its first trial of the study." in section
    assert study_quality(study).checks[0].met is False  # a host not checked yet is not a quiet one

    noisy = preflight_report(parse_preflight(RECORDED.read_text()))
    noise_check_keep(report=noisy, host_id=other.pk, study_id=study.pk)

    study.refresh_from_db()
    assert (study.noise_check["verdict"], study.host_noise_checks[str(other.pk)]["verdict"]) == ("quiet", "noisy")
    assert not study_needs_noise_check(on_other)
    page = client.get(reverse("studies:detail", args=[study.pk]), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    section = text_of(page, "noise-check")
    assert section.index("Quiet: nothing found") < section.index("guest-2") < section.index("Noisy: other work")
    check = study_quality(study).checks[0]
    assert (check.value, check.met) == (f"{study.db_host.name}: quiet, guest-2: noisy", False)
