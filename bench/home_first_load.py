"""The home page's first load in a browser (issue 23, point 6): `make run` as it was before (plain names read from
static/ on each request: the full plotly.min.js uncompressed, max-age=0; every chart drawn before the load) against now
(the hashed, compressed files set-up collected, cached for a year; plotly.js's basic bundle; charts off screen drawn
after the load), one run, side by side.

Usage:  .venv/bin/python bench/home_first_load.py [--loads 5] [--before 6be2a50]

Creates (drops first) the database `benchdash_bench_home`, migrates it and loads the seeds' history, collects the
static files into a var/ of its own, then starts gunicorn as `make run` does (deploy/gunicorn.conf.py, DEBUG on)
twice at once: the tree of `--before` (exported with git archive), and this checkout as `make run` serves it now,
loaded in turn. Each load is a fresh headless Chromium (an empty cache: a first visit) opening `/`; timed are the
first paint, the load event, the first screen's charts drawn and every chart drawn. Prints a Markdown table for
docs/BENCHMARKS.md.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from servers import fresh_store  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
BENCH_DB = "benchdash_bench_home"
REDIS_DB = 14
PORT = 8391
ALL_DRAWN = (
    "return document.querySelectorAll('.js-plotly-plot').length === document.querySelectorAll('[data-figure]').length"
)
SCREEN_DRAWN = (
    "return Array.from(document.querySelectorAll('[data-figure]')).filter(e => e.getBoundingClientRect().top <"
    " window.innerHeight).every(e => e.classList.contains('js-plotly-plot'))"
)
FIRST_PAINT = "return performance.getEntriesByName('first-contentful-paint')[0].startTime"
BROWSER_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--window-size=1366,900",
    "--disable-background-networking",
    "--lang=ja",
)
PLOTLY_BYTES = (
    "var r = performance.getEntriesByType('resource').find(e => /plotly(-[a-z-]+)?\\.min/.test(e.name));"
    "return r ? r.transferSize : 0"
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--loads", type=int, default=5)
    parser.add_argument("--before", default="6be2a50", help="the commit `make run` served before (default: 6be2a50)")
    args = parser.parse_args()
    env = _prepared_env()
    before_tree = _exported(args.before)
    setups = {
        f"before ({args.before}): plain names from static/, full plotly.js, every chart at once": (before_tree, "true"),
        "now: hashed and compressed, basic plotly.js, charts off screen after the load": (ROOT, "false"),
    }
    servers = [
        _server(tree, env | {"BENCHDASH_STATIC_FROM_SOURCE": from_source}, PORT + number)
        for number, (tree, from_source) in enumerate(setups.values())
    ]
    try:
        ports = [PORT + number for number in range(len(servers))]
        for port in ports:
            _wait_for_home(port)
            _first_load(port)  # gunicorn's workers warm (imports, templates): a first visit, not a first request
        # Alternated, so that the machine's other work weighs on both alike.
        loads = [[_first_load(port) for port in ports] for _ in range(args.loads)]
    finally:
        for server in servers:
            server.terminate()
            server.wait(timeout=30)
    print(
        "| `make run` | first paint, median (s) | load event, median (s) "
        "| first screen's charts drawn, median (s) | every chart drawn, median (s) | plotly.js transferred (KiB) |"
    )
    print("| --- | --- | --- | --- | --- | --- |")
    for number, label in enumerate(setups):
        paint, load_event, screen, drawn, plotly_bytes = zip(*(load[number] for load in loads), strict=True)
        medians = " | ".join(f"{statistics.median(values):.2f}" for values in (paint, load_event, screen, drawn))
        print(f"| {label} | {medians} | {plotly_bytes[0] / 1024:.0f} |")


def _exported(commit: str) -> Path:
    """The tree of an earlier commit (git archive: the checkout is not touched). Under DEBUG it serves static/ as is."""
    tree = Path(tempfile.mkdtemp(prefix="benchdash-bench-home-before-"))
    archive = subprocess.run(["git", "archive", commit], cwd=ROOT, check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(tree)], input=archive, check=True)
    return tree


def _prepared_env() -> dict[str, str]:
    fresh_store(BENCH_DB, REDIS_DB)
    var = tempfile.mkdtemp(prefix="benchdash-bench-home-")
    env = os.environ | {"DEBUG": "true", "BENCHDASH_VAR_DIR": var, "SECRET_KEY": "bench-only-not-a-secret"}
    env["BENCHDASH_SECRETS_DIR"] = str(ROOT / "var" / "secrets")
    for command in (["migrate", "-v", "0"], ["load_presets"], ["collectstatic", "--noinput", "-v", "0"]):
        subprocess.run(
            [sys.executable, "manage.py", *command], cwd=ROOT, env=env, check=True, stdout=subprocess.DEVNULL
        )
    return env


def _server(tree: Path, env: dict[str, str], port: int) -> subprocess.Popen:
    argv = [str(Path(sys.executable).with_name("gunicorn")), "benchdash.wsgi", "--config", "deploy/gunicorn.conf.py"]
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
    return subprocess.Popen([*argv, "--bind", f"127.0.0.1:{port}"], cwd=tree, env=env, **quiet)  # type: ignore[call-overload]


def _wait_for_home(port: int) -> None:
    import urllib.request

    deadline = time.monotonic() + 60
    while True:
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=10).read()
            return
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.5)


def _first_load(port: int) -> tuple[float, float, float, float, int]:
    """A fresh browser (empty cache) opens the home page: its first paint, the load event, the first screen's charts
    drawn and every chart drawn, in seconds from the request, and the bytes plotly.min.js took."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for flag in BROWSER_FLAGS:
        options.add_argument(flag)
    browser = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    try:
        started = time.perf_counter()
        browser.get(f"http://127.0.0.1:{port}/")  # returns at the load event
        load_event = time.perf_counter() - started
        screen = _when(browser, SCREEN_DRAWN) - started
        every = _when(browser, ALL_DRAWN) - started
        paint = browser.execute_script(FIRST_PAINT) / 1000
        return paint, load_event, screen, every, browser.execute_script(PLOTLY_BYTES)
    finally:
        browser.quit()


def _when(browser, script: str) -> float:  # type: ignore[no-untyped-def]
    while not browser.execute_script(script):
        time.sleep(0.01)
    return time.perf_counter()


if __name__ == "__main__":
    main()
