"""The seed data files under data/ (issue 40, point 5): every entry loads, names a seed document and a line of it
that holds the entry's own words, and a malformed file is refused with a message naming the file and the entry."""

import re
import unicodedata
from dataclasses import astuple
from pathlib import Path

import pytest

from benchdash.studies.seed_data import (
    FINDINGS,
    SCENARIOS,
    STUDY_PRESETS,
    VARIANT_PRESETS,
    VARIANT_SCENARIOS,
    SeedDataError,
    load_findings,
    load_presets,
)

SEEDS = Path(__file__).resolve().parents[3] / "shared" / "seeds"
ENTRIES = (*SCENARIOS, *STUDY_PRESETS, *VARIANT_SCENARIOS, *VARIANT_PRESETS, *FINDINGS)
# Eight characters in a row: more than a word or a number that any line might hold.
WINDOW = 8


def squeezed(text: str) -> str:
    """Without blanks (the PDFs broke lines anywhere), `\\set` as the seeds print it, 000's Markdown `\\$` as $."""
    return re.sub(r"\s+", "", unicodedata.normalize("NFKC", text)).replace("¥", "\\").replace("\\$", "$")


def seed_from_line(seed: str, line: int) -> tuple[str, str]:
    """The cited line, and the text from it to the end of the seed."""
    path = SEEDS / seed
    if not SEEDS.exists():
        pytest.skip(f"no seed documents at {SEEDS}")
    assert path.exists(), f"{seed} is not a seed document"
    lines = path.read_text().splitlines()
    assert 1 <= line <= len(lines), f"{seed} has {len(lines)} lines, not {line}"
    return squeezed(lines[line - 1]), squeezed("".join(lines[line - 1 :]))


def anchors(entry: object) -> list[str]:
    """Where an entry can stand in its seed: its quotations, its script, its figure, or the section its source names
    (a built-in script's "procedure modelled on seed 001 検証方法（更新系）"); each by its first characters."""
    fields = astuple(entry)
    text = " ".join(str(value) for value in fields)
    script = getattr(entry, "script", "")
    figure = [str(entry.value)] if getattr(entry, "value", None) is not None else []
    found = [*re.findall(r"「(.*?)」", text), *script.splitlines()[:1], *figure, *re.findall(r"seed \d{3} (\S+)", text)]
    return [squeezed(anchor)[:WINDOW] for anchor in found]


def begins_on_line(anchor: str, cited: str, onwards: str) -> bool:
    """`anchor` begins on the cited line; one shorter than a window must be the whole line."""
    if len(anchor) < WINDOW:
        return anchor == cited
    return any(onwards.startswith(anchor, start) for start in range(len(cited)))


@pytest.mark.parametrize("entry", ENTRIES, ids=lambda entry: f"{entry.seed[:3]}-{entry.line}")
def test_every_entry_names_a_seed_document_and_the_line_where_it_stands_there(entry):
    cited, onwards = seed_from_line(entry.seed, entry.line)
    assert any(begins_on_line(anchor, cited, onwards) for anchor in anchors(entry)), (entry.seed, entry.line, cited)


def test_every_file_holds_its_entries_and_every_slug_is_used_once():
    assert (len(SCENARIOS), len(STUDY_PRESETS), len(VARIANT_SCENARIOS), len(VARIANT_PRESETS)) == (7, 4, 1, 11)
    assert len(FINDINGS) == 33
    slugs = [preset.slug for preset in (*SCENARIOS, *VARIANT_SCENARIOS, *STUDY_PRESETS, *VARIANT_PRESETS)]
    assert len(slugs) == len(set(slugs))


def test_every_study_preset_runs_scenarios_that_the_data_holds():
    scenarios = {scenario.slug for scenario in (*SCENARIOS, *VARIANT_SCENARIOS)}
    named = {slug for preset in (*STUDY_PRESETS, *VARIANT_PRESETS) for slug in preset.scenario_slugs}
    assert named <= scenarios


SCENARIO = """\
[[scenario]]
slug = "a-scenario"
seed = "000_1f0a192de1715233.txt"
line = 94
name = "a scenario"
description = "what it does"
source = "seed 000"
"""


def presets_file(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "presets.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_a_well_formed_file_loads_with_the_defaults_of_what_it_leaves_out(tmp_path):
    [scenario], presets = load_presets(presets_file(tmp_path, SCENARIO))
    assert (scenario.slug, scenario.seed, scenario.line, scenario.scale, scenario.fillfactor) == (
        "a-scenario",
        "000_1f0a192de1715233.txt",
        94,
        2000,
        None,
    )
    assert presets == ()


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (("line = 94", 'line = "94"'), "line must be an integer, not '94'"),
        (("line = 94", "line = 0"), "line must be a line number of the seed, 1 or more, not 0"),
        (('seed = "000_1f0a192de1715233.txt"', 'seed = "report.pdf"'), "seed must name a seed document"),
        (('name = "a scenario"\n', ""), "missing field 'name'"),
        (('source = "seed 000"', 'source = "seed 000"\nscael = 25'), "unknown field 'scael'"),
        (('source = "seed 000"', 'source = "seed 000"\nreset = "weekly"'), "reset must be one of once, round, trial"),
        (('source = "seed 000"', "source = \"seed 000\"\ncheckpoint_vacuum = 'yes'"), "must be true or false"),
    ],
)
def test_a_malformed_entry_is_refused_naming_the_file_the_entry_and_the_fault(tmp_path, change, message):
    path = presets_file(tmp_path, SCENARIO + "\n" + SCENARIO.replace("a-scenario", "second").replace(*change))
    with pytest.raises(SeedDataError) as refused:
        load_presets(path)
    assert str(refused.value).startswith(f"{path}, [[scenario]] 2 (second): ")
    assert message in str(refused.value)


def test_a_file_that_is_not_toml_is_refused_with_its_name_and_line(tmp_path):
    path = presets_file(tmp_path, SCENARIO + 'name = "twice"\n')
    with pytest.raises(SeedDataError, match=rf"^{re.escape(str(path))}: .*line 8"):
        load_presets(path)


def test_a_misspelt_table_is_refused_rather_than_read_as_no_entries(tmp_path):
    path = presets_file(tmp_path, SCENARIO.replace("[[scenario]]", "[[scenarios]]"))
    with pytest.raises(SeedDataError, match=r"unknown table 'scenarios'; expected scenario, study_preset"):
        load_presets(path)


def test_a_finding_whose_seed_has_no_title_is_refused(tmp_path):
    path = tmp_path / "published_findings.toml"
    finding = dict(axis="host", workload="w", versions="v", compared="c", measure="m", unit="%", qualifier="q")
    lines = [f'{key} = "{value}"' for key, value in {**finding, "quote": "「q」", "unstated": "u"}.items()]
    text = '[[finding]]\nseed = "004_efa41cc6e0969691.txt"\nline = 92\n' + "\n".join(lines) + "\n"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(SeedDataError, match=r"\[\[finding\]\] 1: seed '004_efa41cc6e0969691.txt' has no \[sources\]"):
        load_findings(path)
    path.write_text('[sources."004_efa41cc6e0969691.txt"]\ntitle = "t"\npublished_as = "p"\n\n' + text)
    [loaded] = load_findings(path)
    assert (loaded.source, loaded.published_as, loaded.value, loaded.figure) == ("t", "p", None, "")


def test_every_scenario_and_study_preset_has_its_name_in_japanese_and_every_scenario_its_description():
    presets = (*SCENARIOS, *VARIANT_SCENARIOS, *STUDY_PRESETS, *VARIANT_PRESETS)
    assert [preset.slug for preset in presets if not preset.name_ja] == []
    described = (*SCENARIOS, *VARIANT_SCENARIOS)
    assert [scenario.slug for scenario in described if scenario.description and not scenario.description_ja] == []
