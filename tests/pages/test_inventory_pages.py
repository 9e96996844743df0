"""Hosts and builds: lists, and a host's facts as a readable table."""

import re

import pytest
from django.urls import reverse

from benchdash.inventory.models import Build
from tests.factories import BuildFactory, HostFactory

FACTS = {
    "cpu_model": "AMD EPYC 7571",
    "cpu_sockets": 1,
    "cpu_cores": 16,
    "cpu_threads": 32,
    "memory_bytes": 128 * 2**30,
    "kernel": "6.1.0-18-amd64",
    "os": "Debian GNU/Linux 12 (bookworm)",
    "filesystem": "xfs",
    "governor": None,
    "thp": "madvise",
    "tools": {"pgbench": "pgbench (PostgreSQL) 15.14", "perf": None},
}


def fact_table(page: str) -> dict[str, str]:
    table = re.search(r'<table class="data facts">(.*?)</table>', page, re.S).group(1)
    return dict(re.findall(r"<tr><th>(.*?)</th><td>(.*?)</td></tr>", table))


@pytest.mark.django_db
def test_a_host_page_shows_its_facts_as_a_readable_table(client):
    host = HostFactory(name="aws-m5a", facts=FACTS)
    page = client.get(reverse("inventory:host_detail", args=[host.pk]), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert fact_table(page) == {
        "CPU model": "AMD EPYC 7571",
        "sockets": "1",
        "cores": "16",
        "threads": "32",
        "memory": "128.0 GiB",
        "kernel": "6.1.0-18-amd64",
        "OS": "Debian GNU/Linux 12 (bookworm)",
        "filesystem": "xfs",
        "CPU frequency governor": "not found",
        "transparent huge pages": "madvise",
        "tools": "perf: not found, pgbench: pgbench (PostgreSQL) 15.14",
    }


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
    assert rows == [
        ("debian-15", "15.14", "installed bin directory", "<code>/usr/lib/postgresql/15/bin</code>"),
        ("archive-13", "13.23", "binary archive", "<code>/var/b/13.tgz</code>"),
    ]


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
        assert response.status_code == 302 and response["Location"].startswith("/admin/login/")
