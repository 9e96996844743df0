"""The study list in pages of 100 (STUDIES_PER_PAGE), in the list's order, the filters kept from page to page, the
trials counted for the page's studies only (the store holds 100,000 studies at consortium scale)."""

import re

import pytest
from django.urls import reverse

from benchdash.studies.models import Study
from benchdash.studies.views.pages import STUDIES_PER_PAGE

pytestmark = pytest.mark.django_db


def listed(client, **params: str) -> tuple[list[str], str]:
    page = client.get(reverse("studies:list"), params, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    body = re.search(r"<tbody>(.*?)</tbody>", page, re.S).group(1)
    return re.findall(r'<a href="/studies/\d+/">([^<]+)</a>', body), page


def test_the_list_comes_in_pages_in_its_order_with_the_filters_kept(client, django_assert_max_num_queries):
    Study.objects.bulk_create(
        Study(title=f"study {number:03}", year=2000 + number % 2, official=number % 10 == 0)
        for number in range(STUDIES_PER_PAGE + 30)
    )
    everything = sorted(Study.objects.all(), key=lambda study: (-study.year, study.title))

    with django_assert_max_num_queries(12):
        first, page = listed(client)
    second, _ = listed(client, page="2")

    assert STUDIES_PER_PAGE == 100
    assert first + second == [study.title for study in everything]
    assert f"page 1 of 2 ({STUDIES_PER_PAGE + 30} studies)" in page and 'href="?page=2"' in page
    official, page = listed(client, trends="official")
    assert official == [study.title for study in everything if study.official] and "page 1 of" not in page
    _, page = listed(client, kind="measured")
    assert 'href="?kind=measured&amp;page=2"' in page
