"""The site's icon: named by every page, and at /favicon.ico for the pages that name none (the API's docs)."""

from pathlib import Path

import pytest
from django.templatetags.static import static
from django.test import override_settings
from django.urls import reverse

STATIC = Path(__file__).resolve().parents[2] / "static"


@pytest.mark.django_db
@override_settings(PUBLIC_READ=False)
def test_favicon_ico_leads_to_the_icon_even_for_a_visitor_not_logged_in(client) -> None:
    answer = client.get("/favicon.ico")
    assert answer.status_code == 302
    assert answer["Location"] == static("favicon.svg")


@pytest.mark.django_db
def test_every_page_names_the_icon_which_is_an_svg(client) -> None:
    page = client.get(reverse("trends:index")).content.decode()
    assert f'<link rel="icon" type="image/svg+xml" href="{static("favicon.svg")}">' in page
    assert (STATIC / "favicon.svg").read_text().startswith("<svg ")
