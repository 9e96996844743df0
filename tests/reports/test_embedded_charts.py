"""Embedded charts (issue 43, point 3): a study's and the trends' chart of a scenario as PNG, SVG and an iframe page at
stable addresses, stamped with what made them, cheap to fetch again, and read only by whom the pages let read."""

import io
import xml.etree.ElementTree as ET
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone
from PIL import Image

from benchdash.api.tokens import issue_token
from benchdash.studies.models import Study
from tests.factories import BuildFactory, HostFactory, ScenarioFactory, StudyFactory, TrialFactory, succeeded_runs

pytestmark = pytest.mark.django_db

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
RUNS = [1000.0, 1010.0, 990.0, 1005.0, 995.0]


@pytest.fixture
def study() -> Study:
    """An official study of two versions on a named host, one scenario, a 3% threshold."""
    scenario = ScenarioFactory(slug="embed-reference", name="Reference", name_ja="参照系")
    old, new = BuildFactory(version="13.4", name="PostgreSQL 13.4"), BuildFactory(version="14.0", name="PG 14.0")
    host = HostFactory(name="bench-db-1", facts={"cpu_model": "Xeon Gold 6338"})
    study = StudyFactory(
        title="Embed study",
        year=2024,
        db_host=host,
        builds=[old, new],
        baseline=old,
        scenarios=[scenario],
        status=Study.Status.DONE,
        official=True,
        threshold=0.03,
        finished_at=timezone.now() - timedelta(days=2),
    )
    succeeded_runs(study, scenario, {(old, 1): RUNS, (new, 1): [run * 0.9 for run in RUNS]})
    return study


def svg_texts(data: bytes) -> list[str]:
    root = ET.fromstring(data)  # noqa: S314 (our own SVG)
    return ["".join(element.itertext()) for element in root.iter() if element.tag.endswith("text")]


def study_url(name: str, study: Study, scenario: str = "embed-reference") -> str:
    return reverse(f"embeds:study_{name}", args=[study.pk, scenario])


def test_the_study_svg_is_an_image_stamped_with_what_made_it(client, study):
    response = client.get(study_url("svg", study), {"lang": "en"})

    assert response.status_code == 200 and response["Content-Type"] == "image/svg+xml"
    texts = svg_texts(response.content)
    assert "Reference: TPS (median) by clients" in texts and "2024 Embed study" in texts
    assert "statistic: median" in texts and "threshold: 3%" in texts
    assert "DB host: bench-db-1 (Xeon Gold 6338)" in texts
    assert f"source: benchdash study {study.pk}: 2024 Embed study" in texts
    [method] = [text for text in texts if text.startswith("interval method: ")]
    assert method != "interval method: —"  # two versions with five runs each: an interval was drawn
    # The date of the last change (the trials finished now), not of the request.
    scenario_id = study.scenarios.get().pk
    page = f"http://testserver/studies/{study.pk}/#chart-{scenario_id}"
    assert f"benchdash {page} {timezone.now().date().isoformat()}" in texts


def test_the_study_png_is_a_png_of_the_drawn_size(client, study):
    response = client.get(study_url("png", study), {"lang": "en"})

    assert response.status_code == 200 and response["Content-Type"] == "image/png"
    assert response.content.startswith(PNG_MAGIC)
    image = Image.open(io.BytesIO(response.content))
    assert image.format == "PNG" and image.width == 1600 and 900 < image.height < 1000
    assert len(image.convert("L").getcolors(maxcolors=256)) > 20  # drawn lines and text, not a blank page


def test_the_stamp_speaks_japanese_with_lang_ja(client, study):
    texts = svg_texts(client.get(study_url("svg", study), {"lang": "ja"}).content)

    assert any(text.startswith("参照系") for text in texts)
    assert not any(text.startswith(("statistic:", "threshold:", "source:")) for text in texts)


def test_the_trends_index_is_stamped_with_its_studies(client, study):
    response = client.get(reverse("embeds:trend_svg", args=["embed-reference"]), {"lang": "en"})

    assert response.status_code == 200
    texts = svg_texts(response.content)
    assert "Version index across studies · Reference" in texts
    assert "source: official studies: 2024 Embed study" in texts and "threshold: 3%" in texts
    assert any(text.startswith("benchdash http://testserver/#trend-embed-reference ") for text in texts)
    png = client.get(reverse("embeds:trend_png", args=["embed-reference"]))
    assert png.status_code == 200 and png.content.startswith(PNG_MAGIC)


def test_a_second_fetch_with_the_etag_is_a_304_until_a_figure_changes(client, study):
    first = client.get(study_url("png", study), {"lang": "en"})
    etag = first["ETag"]

    again = client.get(study_url("png", study), {"lang": "en"}, HTTP_IF_NONE_MATCH=etag)
    head = client.head(study_url("png", study), {"lang": "en"}, HTTP_IF_NONE_MATCH=etag)
    other_language = client.get(study_url("png", study), {"lang": "ja"}, HTTP_IF_NONE_MATCH=etag)
    Study.objects.filter(pk=study.pk).update(threshold=0.05)
    changed = client.get(study_url("png", study), {"lang": "en"}, HTTP_IF_NONE_MATCH=etag)

    assert first["Last-Modified"] and "no-cache" in first["Cache-Control"]
    assert again.status_code == 304 and again.content == b""
    assert head.status_code == 304  # a wiki may ask with HEAD
    assert other_language.status_code == 200
    assert changed.status_code == 200 and changed["ETag"] != etag


def test_the_iframe_page_has_the_chart_the_stamp_and_may_be_framed(client, study):
    response = client.get(reverse("embeds:study_frame", args=[study.pk, "embed-reference"]), {"lang": "en"})
    page = response.content.decode()

    assert response.status_code == 200 and "X-Frame-Options" not in response
    assert '<script id="embed-figure" type="application/json">' in page
    assert "threshold: 3%" in page and "DB host: bench-db-1" in page
    assert 'class="site-header"' not in page  # no site chrome
    assert client.get(reverse("studies:detail", args=[study.pk]))["X-Frame-Options"] == "DENY"


def test_the_study_and_trends_pages_offer_the_embed_snippets(client, study):
    study_page = client.get(reverse("studies:detail", args=[study.pk])).content.decode()
    trends_page = client.get(reverse("trends:index")).content.decode()

    assert f"&lt;img src=&quot;http://testserver/embed/studies/{study.pk}/embed-reference.png" in study_page
    assert f"&lt;iframe src=&quot;http://testserver/embed/studies/{study.pk}/embed-reference/" in study_page
    assert "&lt;img src=&quot;http://testserver/embed/trends/embed-reference.png" in trends_page


@pytest.mark.parametrize(
    "path",
    ["/embed/studies/999999/embed-reference.png", "/embed/studies/{pk}/no-such-scenario.svg", "/embed/trends/nope/"],
)
def test_an_unknown_study_or_scenario_is_a_404(client, study, path):
    assert client.get(path.format(pk=study.pk)).status_code == 404


def test_a_language_other_than_ja_or_en_is_refused_with_a_message(client, study):
    response = client.get(study_url("png", study), {"lang": "fr"})

    assert response.status_code == 400 and b"ja or en" in response.content


def test_with_public_read_off_images_answer_401_and_the_iframe_sends_to_login(client, study, settings):
    settings.PUBLIC_READ = False

    image = client.get(study_url("png", study))
    trend_image = client.get(reverse("embeds:trend_svg", args=["embed-reference"]))
    frame = client.get(reverse("embeds:trend_frame", args=["embed-reference"]))

    assert image.status_code == 401 and image["WWW-Authenticate"] == "Bearer"
    assert trend_image.status_code == 401 and b"<svg" not in trend_image.content
    assert frame.status_code == 302 and frame["Location"].startswith("/accounts/login/?next=")


def test_with_public_read_off_a_member_or_a_members_token_gets_the_image(client, study, settings, django_user_model):
    settings.PUBLIC_READ = False
    member = django_user_model.objects.create_user("reader")
    _row, token = issue_token(member, "wiki")

    by_token = client.get(study_url("png", study), HTTP_AUTHORIZATION=f"Bearer {token}")
    bad_token = client.get(study_url("png", study), HTTP_AUTHORIZATION="Bearer bd_wrong")
    client.force_login(member)
    by_session = client.get(study_url("svg", study))

    assert by_token.status_code == 200 and by_token.content.startswith(PNG_MAGIC)
    assert bad_token.status_code == 401
    assert by_session.status_code == 200 and "private" in by_session["Cache-Control"]


def test_a_published_study_is_stamped_with_its_source_and_hardware_and_no_interval(client):
    scenario = ScenarioFactory(slug="embed-published", name="Update")
    study = StudyFactory(
        title="Published pair",
        year=2019,
        kind=Study.Kind.PUBLISHED,
        status=Study.Status.DONE,
        db_host=None,
        client_host=None,
        hardware="2 x Xeon E5-2690",
        source="PGECons 2019 WG1 report, p. 12 " + "x" * 200,
        statistic="peak",
    )
    for version, tps in (("11.0", 1000.0), ("12.0", 1100.0)):
        build = BuildFactory(version=version, name=f"PostgreSQL {version}")
        TrialFactory(
            study=study,
            build=build,
            scenario=scenario,
            host=None,
            clients=8,
            published=True,
            status="succeeded",
            tps=tps,
        )

    texts = svg_texts(client.get(study_url("svg", study, "embed-published"), {"lang": "en"}).content)

    assert "DB host: 2 x Xeon E5-2690" in texts and "interval method: —" in texts
    assert any(text.startswith("statistic: peak") for text in texts)
    [source] = [text for text in texts if text.startswith("source: ")]
    assert (
        source.startswith("source: PGECons 2019 WG1 report, p. 12 xxx") and source.endswith("…") and len(source) < 160
    )
