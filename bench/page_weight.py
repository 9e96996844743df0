"""What a first visit downloads (issue 43, point 6): each page with its stylesheets, scripts and icon, compressed as
the server sends them, for the tree of `--before` and this checkout, served side by side as `make run` serves them
(hashed, compressed static files; DEBUG on).

Usage:  .venv/bin/python bench/page_weight.py [--before 6eeb137]

Creates (drops first) the database `benchdash_bench_weight`, migrates it and loads the seeds' history, collects each
tree's static files into a var/ of its own, starts gunicorn on each, and asks every page and every file it links with
`Accept-Encoding: gzip, deflate, br` (what Chromium asks; whitenoise answers gzip): the bytes counted are the
bodies as sent, headers left out.
Prints a Markdown table for docs/BENCHMARKS.md.
"""

from __future__ import annotations

import argparse
import gzip
import os
import re
import subprocess
import sys
import tempfile
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from home_first_load import _exported, _server, _wait_for_home  # noqa: E402
from servers import fresh_store  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
BENCH_DB = "benchdash_bench_weight"
REDIS_DB = 14
PORT = 8395
LINKED = re.compile(r'<(?:script[^>]*\bsrc|link[^>]*\bhref)="(/static/[^"]+)"')


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--before", default="6eeb137", help="the commit to compare with (default: 6eeb137)")
    args = parser.parse_args()
    env = _store_env()
    trees = {f"before ({args.before})": _exported(args.before), "now": ROOT}
    servers = [_served(tree, env, PORT + number) for number, tree in enumerate(trees.values())]
    try:
        ports = [PORT + number for number in range(len(servers))]
        for port in ports:
            _wait_for_home(port)
        pages = _pages(ports[-1])
        weights = {label: {name: _weight(port, path) for name, path in pages.items()} for label, port in
                   zip(trees, ports, strict=True)}  # fmt: skip
    finally:
        for server in servers:
            server.terminate()
            server.wait(timeout=30)
    print("| page | " + " | ".join(f"{label}: KiB sent (files)" for label in trees) + " |")
    print("| --- |" + " --- |" * len(trees))
    for name in pages:
        cells = " | ".join(f"{weights[label][name][0] / 1024:.0f} ({weights[label][name][1]})" for label in trees)
        print(f"| {name} | {cells} |")


def _store_env() -> dict[str, str]:
    fresh_store(BENCH_DB, REDIS_DB)
    env = os.environ | {
        "DEBUG": "true",
        "SECRET_KEY": "bench-only-not-a-secret",
        "BENCHDASH_STATIC_FROM_SOURCE": "false",
    }
    env["BENCHDASH_SECRETS_DIR"] = str(ROOT / "var" / "secrets")
    env["BENCHDASH_VAR_DIR"] = tempfile.mkdtemp(prefix="benchdash-bench-weight-")
    for command in (["migrate", "-v", "0"], ["load_presets"]):
        subprocess.run(
            [sys.executable, "manage.py", *command], cwd=ROOT, env=env, check=True, stdout=subprocess.DEVNULL
        )
    return env


def _served(tree: Path, env: dict[str, str], port: int) -> subprocess.Popen:
    """gunicorn on the tree, with the tree's own static files collected into a var/ of its own."""
    own = env | {"BENCHDASH_VAR_DIR": tempfile.mkdtemp(prefix="benchdash-bench-weight-")}
    collect = [sys.executable, "manage.py", "collectstatic", "--noinput", "-v", "0"]
    subprocess.run(collect, cwd=tree, env=own, check=True, stdout=subprocess.DEVNULL)
    return _server(tree, own, port)


def _pages(port: int) -> dict[str, str]:
    """The home page, the newest published study's page and report, and the changes page."""
    home = _get(port, "/")[0].decode()
    study = re.search(r'href="(/studies/\d+/)"', home) or re.search(
        r'href="(/studies/\d+/)"', _get(port, "/studies/")[0].decode()
    )
    assert study, "no study linked from / or /studies/"
    return {"home": "/", "published study": study[1], "its report": f"{study[1]}report/", "changes": "/changes/"}


def _weight(port: int, path: str) -> tuple[int, int]:
    """The bytes a first visit to the page is sent, bodies only, and how many files that was."""
    page, sent = _get(port, path)
    linked = sorted(set(LINKED.findall(page.decode())))
    return sent + sum(_get(port, asset)[1] for asset in linked), 1 + len(linked)


def _get(port: int, path: str) -> tuple[bytes, int]:
    """The body decompressed, to read a page's links, and its length as sent."""
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", headers={"Accept-Encoding": "gzip, deflate, br"})
    with urllib.request.urlopen(request, timeout=30) as answer:  # noqa: S310 (http, to the loopback)
        body = answer.read()
        encoding = answer.headers.get("Content-Encoding", "")
    return _decoded(body, encoding), len(body)


def _decoded(body: bytes, encoding: str) -> bytes:
    return gzip.decompress(body) if encoding == "gzip" else body


if __name__ == "__main__":
    main()
