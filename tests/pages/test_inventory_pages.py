"""Hosts and builds: lists, and a host's facts as a readable table."""

import re
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from benchdash.inventory.models import Build, Installation
from tests.factories import BuildFactory, HostFactory, StudyFactory, TrialFactory

FACTS = {
    "cpu_model": "AMD EPYC 7571",
    "cpu_sockets": 1,
    "cpu_cores": 16,
    "cpu_threads": 32,
    "memory_bytes": 128 * 2**30,
    "kernel": "6.1.0-18-amd64",
    "os_release": "Debian GNU/Linux 12 (bookworm)",
    "fs_type": "xfs",
    "disk_rotational": False,
    "cpu_governor": None,
    "transparent_hugepages": "madvise",
    "load_average": [0.5, 0.25, 0.1],
    "pgbench": "pgbench (PostgreSQL) 15.14",
    "perf": None,
    "pgbench_path": "/usr/bin/pgbench",
}
EXPECTED_ROWS = {
    "CPU model": "AMD EPYC 7571",
    "sockets": "1",
    "cores": "16",
    "threads": "32",
    "memory": "128.0 GiB",
    "kernel": "6.1.0-18-amd64",
    "OS": "Debian GNU/Linux 12 (bookworm)",
    "filesystem": "xfs",
    "rotational disk": "no",
    "CPU frequency governor": "not found",
    "transparent huge pages": "madvise",
    "load average (1, 5, 15 min)": "0.5, 0.25, 0.1",
    "pgbench": "pgbench (PostgreSQL) 15.14",
    "perf": "not found",
    "pgbench path": "/usr/bin/pgbench",
}


def fact_table(page: str) -> dict[str, str]:
    table = re.search(r'<table class="data facts">(.*?)</table>', page, re.S).group(1)
    return dict(re.findall(r"<tr><th>(.*?)</th><td>(.*?)</td></tr>", table))


@pytest.mark.django_db
def test_a_host_page_shows_its_facts_as_a_readable_table(client):
    host = HostFactory(name="aws-m5a", facts=FACTS)
    page = client.get(reverse("inventory:host_detail", args=[host.pk]), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert list(fact_table(page).items()) == list(EXPECTED_ROWS.items())


@pytest.mark.django_db
def test_a_host_without_facts_of_its_own_shows_those_its_newest_trial_read(client):
    host = HostFactory(name="local", address="")
    study = StudyFactory(db_host=host)
    finished = timezone.now()
    TrialFactory(study=study, host=host, clients=1, host_facts={"cpu_threads": 2}, finished_at=finished)
    TrialFactory(study=study, host=host, clients=2, host_facts=FACTS, finished_at=finished + timedelta(seconds=5))
    page = client.get(reverse("inventory:host_detail", args=[host.pk]), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert list(fact_table(page).items()) == list(EXPECTED_ROWS.items())


@pytest.mark.django_db
@pytest.mark.parametrize(("language", "days_text"), [("en", "stays 14 days after"), ("ja", "14 日間残ります")])
def test_a_host_page_shows_its_pristine_data_and_how_long_it_stays(client, language, days_text):
    usage = {"clusters": 3 << 20, "snapshots": 0, "pristine": 41 << 20, "builds": 0}
    host = HostFactory(name="db1", work_dir_usage=usage, work_dir_measured_at=timezone.now())
    page = client.get(reverse("inventory:host_detail", args=[host.pk]), HTTP_ACCEPT_LANGUAGE=language).content.decode()
    assert f'data-bytes="{41 << 20}">41.0\xa0MB</dd>' in page and days_text in page


@pytest.mark.django_db
def test_the_host_list_links_each_host_with_its_cpu(client):
    host = HostFactory(name="aws-m5a", facts=FACTS)
    page = client.get(reverse("inventory:hosts"), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert f'<a href="/hosts/{host.pk}/">aws-m5a</a>' in page
    assert "AMD EPYC 7571 (32 threads)" in page
    assert "benchdash@127.0.0.1:22" in page


@pytest.mark.django_db
def test_the_build_list_shows_kind_version_and_location(client):
    BuildFactory(version="15.14", name="debian-15", bin_dir="/usr/lib/postgresql/15/bin")
    BuildFactory(version="13.23", name="archive-13", kind=Build.Kind.ARCHIVE, bin_dir="", archive_path="/var/b/13.tgz")
    page = client.get(reverse("inventory:builds"), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    rows = re.findall(r"<tr>\s*<td>(.*?)</td>\s*<td>(.*?)</td>\s*<td>(.*?)</td>\s*<td>\s*(.*?)\s*</td>", page, re.S)
    assert [tuple(re.sub(r"<(?!/?code)[^>]+>", "", cell) for cell in row) for row in rows] == [
        ("debian-15", "15.14 (15)", "installed bin directory", "<code>/usr/lib/postgresql/15/bin</code>"),
        ("archive-13", "13.23 (13)", "binary archive", "<code>/var/b/13.tgz</code>"),
    ]
    assert '<a href="/versions/15.14/">debian-15</a>' in page and '<a href="/versions/13/">13</a>' in page


@pytest.mark.django_db
def test_an_anonymous_visitor_is_sent_to_login_for_hosts_and_builds_when_reading_is_not_public(client, settings):
    settings.PUBLIC_READ = False
    host = HostFactory(name="aws-m5a")
    for url in (
        reverse("inventory:hosts"),
        reverse("inventory:host_detail", args=[host.pk]),
        reverse("inventory:builds"),
    ):
        response = client.get(url)
        assert response.status_code == 302 and response["Location"].startswith("/accounts/login/")


@pytest.mark.django_db
@pytest.mark.parametrize(("language", "label"), [("en", "This installation's part"), ("ja", "このインストールの領域")])
def test_a_host_page_names_this_installation_s_part_of_the_work_dir_and_whom_the_host_is_busy_with(
    client, language, label
):
    other = "6f1d3a52-0000-4000-8000-00000000000b"
    host = HostFactory(name="db1", work_dir="/srv/bench", busy_with=other, busy_since=timezone.now())
    page = client.get(reverse("inventory:host_detail", args=[host.pk]), HTTP_ACCEPT_LANGUAGE=language).content.decode()
    own_part = f"/srv/bench/{Installation.current_token()}"
    assert f"<dt>{label}</dt><dd><code>{own_part}</code></dd>" in page.replace("&#x27;", "'")
    assert f"<code>{other}</code>" in page
