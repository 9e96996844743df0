"""Each page loads the smallest plotly.js bundle that holds every trace type it draws (deploy/plotly-bundles.txt),
and the bundles in static/vendor/ are the ones listed there."""

import json
import re
from pathlib import Path

import pytest

from tests.site_pages import site_with_everything

ROOT = Path(__file__).resolve().parents[2]
BUNDLE = re.compile(r'<script src="/static/vendor/plotly-([a-z-]+)\.min\.js"')
FIGURE = re.compile(r'<script id="[^"]+" type="application/json">(.*?)</script>', re.S)


def bundles() -> dict[str, list[str]]:
    """Bundle name -> the trace types it holds, as listed (scatter, in plotly.js's core, first in every one)."""
    lines = (ROOT / "deploy/plotly-bundles.txt").read_text().splitlines()
    named = (line.split(":") for line in lines if line and not line.startswith("#"))
    return {name.strip(): ["scatter", *traces.split()] for name, traces in named}


def drawn_traces(page: str) -> set[str]:
    types = set()
    for text in FIGURE.findall(page):
        figure = json.loads(text)
        if isinstance(figure, dict) and isinstance(figure.get("data"), list):
            types |= {trace.get("type", "scatter") for trace in figure["data"]}
    return types


@pytest.mark.django_db
def test_each_page_loads_the_smallest_bundle_that_draws_all_its_charts(client) -> None:
    pages, member = site_with_everything()
    client.force_login(member)
    held = {name: set(traces) for name, traces in bundles().items()}
    wrong, loaded = {}, {}
    for name, url in pages.items():
        page = client.get(url).content.decode()
        drawn, names = drawn_traces(page), BUNDLE.findall(page)
        if not names:
            assert not drawn, f"{name} draws {drawn} with no plotly.js"
            continue
        loaded[name] = names[0]
        smallest = min((bundle for bundle, traces in held.items() if drawn <= traces), key=lambda b: len(held[b]))
        if names != [smallest]:
            wrong[name] = f"draws {sorted(drawn)}, loads {names}, needs {smallest}"
    assert wrong == {}
    assert loaded["trial"] == "scatter-bar-icicle"  # its perf call tree is an icicle
    assert loaded["trends"] == "scatter-bar"


def test_the_vendor_bundles_are_the_listed_ones_each_naming_its_traces() -> None:
    built = {path.name.removeprefix("plotly-").removesuffix(".min.js"): path
             for path in (ROOT / "static/vendor").glob("plotly-*.min.js")}  # fmt: skip
    assert set(built) == set(bundles())
    for name, traces in bundles().items():
        assert f"traces: {' '.join(traces)};" in built[name].read_text()[:200]
