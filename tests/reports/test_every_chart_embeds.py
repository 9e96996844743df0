"""Every chart of the pages as an embed (issue 43, point 3): each page offers its charts' embed addresses, every chart
of the registry is reached that way and drawn, a stranger is refused where the page refuses, and the chart's own state
(a perf level, a zoom, a comparison's sides) is drawn and stamped."""

import html
import io
import re
import xml.etree.ElementTree as ET

import pytest
from django.urls import resolve, reverse
from PIL import Image

from benchdash.reports.embed_registry import CHARTS
from tests.site_pages import site_with_everything

pytestmark = pytest.mark.django_db

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
OFFERED = re.compile(r'<img src="http://testserver(/embed/[^"]+?\.png(?:\?[^"]*)?)"')


def svg_texts(data: bytes) -> list[str]:
    root = ET.fromstring(data)  # noqa: S314 (our own SVG)
    return ["".join(element.itertext()) for element in root.iter() if element.tag.endswith("text")]


def offered_images(client, url: str) -> list[str]:
    """The PNG addresses a page's Embed controls give, as a reader copies them."""
    response = client.get(url, HTTP_ACCEPT_LANGUAGE="en")
    assert response.status_code == 200, url
    return OFFERED.findall(html.unescape(response.content.decode()))


def chart_name(url: str) -> str:
    return resolve(url.split("?")[0]).url_name.removesuffix("_png")


def test_every_registered_chart_is_offered_on_its_page_drawn_and_refused_to_a_stranger(
    client,
    settings,
    cpu_study,
    evidence_study,
):
    pages, member = site_with_everything()
    pages |= {
        "scalability": reverse("studies:detail", args=[cpu_study.pk]),
        "evidence with perf": reverse("studies:detail", args=[evidence_study.pk]),
        "minors": reverse("changes:minors", args=[evidence_study.pk]),
    }
    client.force_login(member)
    offered = {url for page in pages.values() for url in offered_images(client, page)}
    client.logout()
    first_of = {}
    for url in sorted(offered):
        first_of.setdefault(chart_name(url), url)

    assert set(first_of) == {chart.name for chart in CHARTS}
    for url in first_of.values():
        response = client.get(url)
        image = Image.open(io.BytesIO(response.content))
        assert response.status_code == 200 and response.content.startswith(PNG_MAGIC), url
        assert image.width == 1600 and len(image.convert("L").getcolors(maxcolors=4096) or range(4097)) > 20, url
    settings.PUBLIC_READ = False
    for url in first_of.values():
        frame = url.split("?")[0].removesuffix(".png") + "/"
        assert client.get(url).status_code == 401, url
        assert client.get(url.replace(".png", ".svg")).status_code == 401, url
        assert client.get(frame).status_code == 302, frame


def test_a_perf_chart_is_drawn_at_the_level_asked_for_and_says_so(client, evidence_study):
    urls = offered_images(client, reverse("studies:detail", args=[evidence_study.pk]))
    [differential] = [url for url in urls if "/evidence/perf-diff-" in url]

    texts = svg_texts(client.get(differential.replace(".png", ".svg"), {"lang": "en"}).content)

    assert "perf: change in self share of samples" in texts and "scenario: 参照系" in texts
    assert any(text.startswith("clients: ") for text in texts)
    assert any(text.startswith("builds: ") and "→" in text for text in texts)
    assert any("index_fetch_heap" in text for text in texts)  # the grown function, named on its bar


def test_a_zoom_is_drawn_stamped_and_refused_when_malformed(client, evidence_study):
    url = reverse("embeds:study_svg", args=[evidence_study.pk, "pgecons-reference"])

    zoomed = svg_texts(client.get(url, {"lang": "en", "zoom": "0,2,0,2000"}).content)
    whole = svg_texts(client.get(url, {"lang": "en"}).content)
    bad = client.get(url, {"zoom": "2,0,0,1"})

    assert "zoom: x 0 – 2, y 0 – 2000" in zoomed and not any(text.startswith("zoom:") for text in whole)
    assert "4" in whole and "4" not in zoomed  # the tick of 4 clients lies outside the zoom
    assert bad.status_code == 400 and b"x0 < x1" in bad.content


def test_a_comparison_embed_names_its_sides_and_refuses_a_bad_ref_with_its_reason(client, evidence_study):
    url = reverse("embeds:compare_svg")
    sides = {"a": f"study:{evidence_study.pk}", "b": f"study:{evidence_study.pk}", "lang": "en"}

    texts = svg_texts(client.get(url, sides).content)
    bad = client.get(url, {"a": "nonsense", "b": f"study:{evidence_study.pk}"})

    assert f"a: study:{evidence_study.pk}/line:" in " ".join(texts)
    assert any(text.startswith("b against a: ") for text in texts)
    assert bad.status_code == 400 and b"a: nonsense" in bad.content


def test_a_new_chart_answers_304_to_its_etag(client, evidence_study):
    [cpu] = [u for u in offered_images(client, reverse("studies:detail", args=[evidence_study.pk])) if "-cpu." in u]

    first = client.get(cpu)
    again = client.get(cpu, HTTP_IF_NONE_MATCH=first["ETag"])

    assert first.status_code == 200 and again.status_code == 304


def test_the_iframe_of_a_flame_graph_loads_the_plotly_bundle_that_draws_an_icicle(client, evidence_study):
    urls = offered_images(client, reverse("studies:detail", args=[evidence_study.pk]))
    [flame] = [url for url in urls if "/evidence/flame-" in url][:1]
    [cpu] = [url for url in urls if url.split("?")[0].endswith("-cpu.png")]

    def frame(url: str) -> str:
        path, _mark, query = url.partition("?")
        return client.get(path.removesuffix(".png") + "/?" + query).content.decode()

    assert "plotly-scatter-bar-icicle.min.js" in frame(flame)
    assert "plotly-scatter-bar.min.js" in frame(cpu) and "icicle" not in frame(cpu)
