"""The README stays a front door, and the docs' links lead somewhere (issue 40, point 7).

The README says what benchdash is, its two commands, a first study and where to read more; reference lives in docs/.
The links of every Markdown file are checked as GitHub renders them: a relative link names a file of the checkout,
and its #anchor a heading of that file."""

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
CONTRIBUTING = ROOT / "CONTRIBUTING.md"
DOCS = sorted((ROOT / "docs").glob("*.md"))
README_MOST_LINES = 250

FENCE = re.compile(r"^```.*?^```", re.MULTILINE | re.DOTALL)
CODE_SPAN = re.compile(r"`[^`\n]*`")
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*#*\s*$", re.MULTILINE)


def prose(text: str) -> str:
    """The text a reader sees as Markdown: code blocks and code spans hold no links."""
    return CODE_SPAN.sub("", FENCE.sub("", text))


def slug(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation dropped (letters of any script kept), spaces to '-'."""
    return re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-")


def anchors(path: Path) -> set[str]:
    """Every anchor GitHub gives the headings of a file; a repeated heading gets -1, -2 ..."""
    seen: dict[str, int] = {}
    found = set()
    for heading in HEADING.findall(prose(path.read_text())):
        base = slug(heading)
        found.add(f"{base}-{seen[base]}" if base in seen else base)
        seen[base] = seen.get(base, 0) + 1
    return found


def broken_links(path: Path) -> list[str]:
    """The relative links of a file whose file or anchor does not exist, each with the reason."""
    broken = []
    for target in LINK.findall(prose(path.read_text())):
        if re.match(r"[a-z]+:", target):
            continue
        name, _, anchor = target.partition("#")
        linked = (path.parent / name).resolve() if name else path
        if not linked.exists():
            broken.append(f"{target}: no such file")
        elif anchor and linked.suffix == ".md" and anchor not in anchors(linked):
            broken.append(f"{target}: no heading #{anchor} in {linked.name}")
    return broken


def readme_section(title: str) -> str:
    """One '## ' section of the README, up to the next."""
    text = README.read_text()
    start = text.index(f"\n## {title}\n")
    end = text.find("\n## ", start + 1)
    return text[start : end if end != -1 else len(text)]


def tracked_files(*patterns: str) -> list[str]:
    """The checkout's files that git tracks, as paths from its top."""
    listed = subprocess.run(["git", "ls-files", *patterns], cwd=ROOT, capture_output=True, text=True, check=True)
    return listed.stdout.splitlines()


def top_level_directories() -> list[str]:
    """Every directory at the top of the checkout that git tracks a file in."""
    return sorted({name.split("/")[0] for name in tracked_files() if "/" in name and not name.startswith(".")})


def apps() -> list[str]:
    """Every Django app under benchdash/."""
    return sorted(path.parent.name for path in (ROOT / "benchdash").glob("*/apps.py"))


def test_the_readme_is_a_front_door_of_at_most_250_lines() -> None:
    lines = len(README.read_text().splitlines())
    assert lines <= README_MOST_LINES, f"README.md has {lines} lines: move reference to docs/"


def test_the_readme_names_its_two_commands_and_what_each_does() -> None:
    text = README.read_text()
    assert "make run " in text and "serve http://127.0.0.1:8000" in text
    assert "make test " in text and "the whole pytest suite" in text


@pytest.mark.parametrize("name", tracked_files("*.md"))
def test_every_relative_link_leads_to_a_file_and_heading_that_exist(name: str) -> None:
    assert broken_links(ROOT / name) == []


def test_every_docs_file_is_linked_from_the_readme_s_read_more() -> None:
    read_more = readme_section("Read more")
    assert [doc.name for doc in DOCS if f"](docs/{doc.name})" not in read_more] == []


def test_every_app_and_top_level_directory_is_in_the_readme_s_layout() -> None:
    layout = readme_section("Layout")
    assert [name for name in [*apps(), *top_level_directories()] if f"{name}/" not in layout] == []


def test_every_app_is_named_in_contributing() -> None:
    text = CONTRIBUTING.read_text()
    assert [app for app in apps() if f"`{app}/`" not in text] == []


def test_the_checks_find_a_missing_file_a_missing_heading_and_an_app_left_out(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text("# A page\n\n## Set-up\n\n[ok](#set-up) [gone](#layout) [none](nowhere.md) `[code](x.md)`\n")
    assert [reason.split(":")[0] for reason in broken_links(page)] == ["#layout", "nowhere.md"]
    assert "changes" in apps() and "cloud" in apps()
