import csv
import io
import os
import re
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from benchdash.inventory.models import Build
from benchdash.studies.models import Scenario, Study, StudyPoint, Trial
from benchdash.trends.importer import ImportRejected, decode_csv
from tests.factories import BuildFactory, ScenarioFactory

HEADER = "study_year,study_title,source,hardware,os,scenario,pg_version,clients,tps,statistic,repetitions,notes\n"
GOOD_ROWS = (
    "2021,定点観測 参照系,PGECons 2021年度WG1,m5a.8xlarge,RHEL 7.9,pgecons-reference,13.4,1,437.2413,median,3,\n"
    "2021,定点観測 参照系,PGECons 2021年度WG1,m5a.8xlarge,RHEL 7.9,pgecons-reference,14.0,1,412.9373,median,3,\n"
    "2021,定点観測 参照系,PGECons 2021年度WG1,m5a.8xlarge,RHEL 7.9,pgecons-reference,14.0,16,4668.131,median,3,\n"
)
SHIPPED_CSV = Path(__file__).resolve().parents[2] / "data" / "published_results.csv"
# The seed documents sit beside the checkout (../shared/seeds) in the team's layout; elsewhere name them.
SEEDS_DIR = os.environ.get("BENCHDASH_SEEDS_DIR") or next(
    (str(path) for path in [Path(__file__).resolve().parents[3] / "shared" / "seeds"] if path.is_dir()), ""
)


@pytest.fixture
def scenarios(db: None) -> None:
    ScenarioFactory(slug="pgecons-reference", builtin="")
    ScenarioFactory(slug="pgecons-update", builtin="")
    ScenarioFactory(slug="pgbench-tpcb", builtin=Scenario.Builtin.TPCB)


def import_results(path: Path, *options: str) -> str:
    out = StringIO()
    call_command("import_results", str(path), *options, stdout=out)
    return out.getvalue()


def write(tmp_path: Path, data: bytes) -> Path:
    path = tmp_path / "results.csv"
    path.write_bytes(data)
    return path


def assert_the_good_rows_were_imported() -> None:
    study = Study.objects.get()
    assert (study.title, study.year, study.kind, study.status) == ("定点観測 参照系", 2021, "published", "done")
    assert (study.hardware, study.os, study.statistic, study.repetitions) == ("m5a.8xlarge", "RHEL 7.9", "median", 3)
    assert study.baseline.name == "PostgreSQL 13.4"
    assert study.client_levels == [1, 16]
    figures = {(trial.build.name, trial.clients): trial.tps for trial in study.trials.all()}
    assert figures == {
        ("PostgreSQL 13.4", 1): 437.2413,
        ("PostgreSQL 14.0", 1): 412.9373,
        ("PostgreSQL 14.0", 16): 4668.131,
    }
    # What the file does not state stays unknown: no threads, repetition or run order of a published figure.
    assert set(study.trials.values_list("published", "status", "threads", "repetition", "position", "statistic")) == {
        (True, "succeeded", None, None, None, "median")
    }
    assert (study.official, study.year_inferred) == (True, False)
    assert set(Build.objects.values_list("kind", "version")) == {("published", "13.4"), ("published", "14.0")}


def test_it_detects_the_encoding_of_a_file() -> None:
    text = HEADER + GOOD_ROWS

    assert decode_csv(text.encode("utf-8")) == text
    assert decode_csv(b"\xef\xbb\xbf" + text.encode("utf-8")) == text
    assert decode_csv(text.encode("cp932")) == text
    assert decode_csv(text.encode("cp932"), "cp932") == text


def test_it_imports_a_utf8_file(scenarios: None, tmp_path: Path) -> None:
    output = import_results(write(tmp_path, (HEADER + GOOD_ROWS).encode("utf-8")))

    assert_the_good_rows_were_imported()
    assert "1 studies created" in output
    assert "3 figures created" in output


def test_it_imports_a_utf8_file_with_a_bom(scenarios: None, tmp_path: Path) -> None:
    import_results(write(tmp_path, (HEADER + GOOD_ROWS).encode("utf-8-sig")))

    assert_the_good_rows_were_imported()


def test_it_imports_a_cp932_file_with_a_japanese_title(scenarios: None, tmp_path: Path) -> None:
    import_results(write(tmp_path, (HEADER + GOOD_ROWS).encode("cp932")))

    assert_the_good_rows_were_imported()


def test_it_reads_the_encoding_it_is_told(scenarios: None, tmp_path: Path) -> None:
    import_results(write(tmp_path, (HEADER + GOOD_ROWS).encode("cp932")), "--encoding", "cp932")

    assert_the_good_rows_were_imported()


def test_it_accepts_the_columns_in_any_order(scenarios: None, tmp_path: Path) -> None:
    text = (
        "tps,clients,pg_version,scenario,statistic,study_title,study_year,source,hardware,os,repetitions,notes\n"
        "109,256,9.6.0,pgbench-tpcb,relative,EDB,2018,blog,,OEL 6.4,10,+9%\n"
    )
    import_results(write(tmp_path, text.encode()))

    trial = Trial.objects.get()
    assert (trial.tps, trial.clients, trial.build.name, trial.notes) == (109.0, 256, "PostgreSQL 9.6.0", "+9%")


def test_it_adds_nothing_when_the_same_file_is_imported_again(scenarios: None, tmp_path: Path) -> None:
    path = write(tmp_path, (HEADER + GOOD_ROWS).encode())
    import_results(path)

    output = import_results(path)

    assert (Study.objects.count(), Trial.objects.count(), Build.objects.count()) == (1, 3, 2)
    assert "0 studies created, 1 already present; 0 figures created, 3 already present" in output


def test_it_reuses_an_existing_build_of_the_same_name(scenarios: None, tmp_path: Path) -> None:
    installed = BuildFactory(name="PostgreSQL 14.0", version="14.0")

    import_results(write(tmp_path, (HEADER + GOOD_ROWS).encode()))

    assert Build.objects.count() == 2
    assert Trial.objects.filter(build=installed).count() == 2


def test_it_imports_nothing_when_one_row_is_bad(scenarios: None, tmp_path: Path) -> None:
    bad_row = "2021,定点観測 参照系,PGECons,m5a.8xlarge,RHEL 7.9,no-such-scenario,14.0,32,8193.761,median,3,\n"
    path = write(tmp_path, (HEADER + GOOD_ROWS + bad_row).encode())

    with pytest.raises(CommandError) as rejected:
        import_results(path)

    assert "line 5: unknown scenario 'no-such-scenario'" in str(rejected.value)
    assert (Study.objects.count(), Trial.objects.count(), Build.objects.count()) == (0, 0, 0)


@pytest.mark.parametrize(
    ("row", "reason"),
    [
        ("2021,t,s,h,o,pgecons-reference,14.0,0,1.5,median,3,", "clients '0' is not a positive integer"),
        ("2021,t,s,h,o,pgecons-reference,14.0,2.5,1.5,median,3,", "clients '2.5' is not a positive integer"),
        ("2021,t,s,h,o,pgecons-reference,14.0,1,-3,median,3,", "tps '-3' is not a non-negative number"),
        ("2021,t,s,h,o,pgecons-reference,14.0,３２,5,median,3,", "clients '３２' is not a positive integer"),
        ("2021,t,s,h,o,pgecons-reference,14.0,1,٣,median,3,", "tps '٣' is not a non-negative number"),
        ("2021,t,s,h,o,pgecons-reference,14.0,1,1_000,median,3,", "tps '1_000' is not a non-negative number"),
        ("2021,t,s,h,o,pgecons-reference,１４.０,1,5,median,3,", "pg_version '１４.０' is not like 9.4, 13.4 or 14.0"),
        ("2021,t,s,h,o,pgecons-reference,14.0,1,abc,median,3,", "tps 'abc' is not a non-negative number"),
        ("2021,t,s,h,o,pgecons-reference,14.0,1,5,average,3,", "statistic 'average' is not one of"),
        ("2021,t,s,h,o,pgecons-reference,v14,1,5,median,3,", "pg_version 'v14' is not like 9.4, 13.4 or 14.0"),
        ("2021,,s,h,o,pgecons-reference,14.0,1,5,median,3,", "empty study_title"),
        ("1899,t,s,h,o,pgecons-reference,14.0,1,5,median,3,", "study_year '1899' out of range"),
        ("2021,t,s,h,o,pgecons-reference,14.0,1,5,median", "missing column repetitions"),
        ("2021,t,s,h,o,pgecons-reference,14.0,1,5,median,3,,extra", "1 field(s) more than the header"),
        # values no benchmark produces, past 64 bits, longer than their fields
        ("2021,t,s,h,o,pgecons-reference,14.0,1,1e-300,median,3,", "tps '1e-300' is below"),
        ("2021,t,s,h,o,pgecons-reference,14.0,1,1e300,median,3,", "tps '1e300' is above"),
        ("2021,t,s,h,o,pgecons-reference,14.0,1,0,median,3,", "tps '0' is below"),
        ("2021,t,s,h,o,pgecons-reference,14.0,1,1" + "0" * 400 + ",median,3,", "tps '1000000000"),
        ("2021,t,s,h,o,pgecons-reference,14.0,18446744073709551617,5,median,3,", "clients '18446744073709551617'"),
        ("2021,t,s,h,o,pgecons-reference,14.0,1,5,median,18446744073709551617,", "repetitions '18446744073709551617'"),
        ("18446744073709551617,t,s,h,o,pgecons-reference,14.0,1,5,median,3,", "study_year '18446744073709551617'"),
        ("2021,t,s,h,o,pgecons-reference,14.0,1,18446744073709551617,median,3,", "tps '18446744073709551617' is above"),
        ("2021," + "x" * 301 + ",s,h,o,pgecons-reference,14.0,1,5,median,3,", "study_title has 301 characters"),
        ("2021,t,s," + "h" * 301 + ",o,pgecons-reference,14.0,1,5,median,3,", "hardware has 301 characters"),
        ("2021,t,s,h," + "o" * 201 + ",pgecons-reference,14.0,1,5,median,3,", "os has 201 characters"),
        ("2021,t,s,h,o,pgecons-reference,14.0,1,5,median,3,a\0b", "notes holds a NUL character"),
    ],
)
def test_it_names_the_line_and_the_reason_of_a_bad_row(scenarios: None, tmp_path: Path, row: str, reason: str) -> None:
    path = write(tmp_path, (HEADER + GOOD_ROWS + row + "\n").encode())

    with pytest.raises(CommandError) as rejected:
        import_results(path)

    assert f"line 5: {reason}" in str(rejected.value)
    assert (Study.objects.count(), Trial.objects.count(), Build.objects.count()) == (0, 0, 0)


def test_it_refuses_a_duplicate_row(scenarios: None, tmp_path: Path) -> None:
    path = write(tmp_path, (HEADER + GOOD_ROWS + GOOD_ROWS.splitlines(keepends=True)[1]).encode())

    with pytest.raises(CommandError) as rejected:
        import_results(path)

    assert "line 5: duplicate row (same figure as line 3)" in str(rejected.value)
    assert Trial.objects.count() == 0


def test_it_refuses_a_file_without_a_column(scenarios: None, tmp_path: Path) -> None:
    row = b"2021,t,s,h,o,pgecons-reference,14.0,1,5,median,3\n"
    path = write(tmp_path, HEADER.replace(",notes", "").encode() + row)

    with pytest.raises(CommandError) as rejected:
        import_results(path)

    assert "line 1: missing column(s) notes" in str(rejected.value)


def test_the_shipped_history_gives_the_2021_ratio_at_one_client(scenarios: None) -> None:
    import_results(SHIPPED_CSV)

    study = Study.objects.get(year=2021)
    at_one_client = dict(study.trials.filter(clients=1).values_list("build__version", "tps"))
    assert study.baseline.version == "13.4"
    assert at_one_client == {"13.4": 437.2413, "14.0": 412.9373}
    assert at_one_client["14.0"] / at_one_client["13.4"] == pytest.approx(0.944, abs=0.0005)
    assert study.trials.count() == 16


def test_the_shipped_history_holds_every_published_study(scenarios: None) -> None:
    import_results(SHIPPED_CSV)

    studies = [
        (study.year, study.year_inferred, study.statistic, study.repetitions, study.baseline.version, study.official)
        for study in Study.objects.order_by("year", "title")
    ]
    assert studies == [
        (2008, True, "mean", 10, "8.1.4", True),  # DoRuby by clients: 「10回行い、その平均値を算出」, no date
        (2008, True, "mean", 10, "8.1.4", True),  # DoRuby by transactions per client
        (2014, False, "relative", None, "9.3", True),  # 1.7x at 384 sessions
        (2014, False, "peak", None, "9.3", True),  # 34,000 and 41,000: the highest, statistic unstated
        (2018, True, "relative", 10, "9.4.3", True),  # EDB: relative to 9.4 of the mean of 10 runs, no date
        (2021, False, "median", 3, "13.4", True),
    ]
    edb = {
        (version, conditions): tps
        for version, conditions, tps in Trial.objects.filter(study__year=2018).values_list(
            "build__version", "conditions", "tps"
        )
    }
    assert edb == {
        ("9.4.3", ""): 100.0,
        ("9.6.0", ""): 109.0,
        ("11.0", ""): 117.0,  # excluding connections establishing
        ("9.4.3", "including connections establishing"): 100.0,
        ("11.0", "including connections establishing"): 118.0,
    }
    assert set(Trial.objects.filter(study__year=2018).values_list("threads", flat=True)) == {32}  # -j 32
    peaks = Trial.objects.filter(study__statistic="peak").values_list("build__version", "clients", "conditions", "tps")
    assert set(peaks) == {("9.3", 192, "15 cores", 34000.0), ("9.4rc1", 320, "15 cores", 41000.0)}


def test_every_shipped_figure_quotes_its_seed() -> None:
    rows = list(csv.DictReader(io.StringIO(SHIPPED_CSV.read_text(encoding="utf-8"))))

    assert len(rows) == 41
    assert all(row["source"] for row in rows)
    assert all("「" in row["notes"] and "」" in row["notes"] for row in rows)
    # where the source states no year, the row says it is inferred and why
    assert all(("inferred from" in row["notes"]) == (row["year_inferred"] == "true") for row in rows)
    # the statistic the seed states, never a median where it states none
    assert {row["statistic"] for row in rows if row["study_year"] == "2014"} == {"peak", "relative"}


@pytest.mark.skipif(not SEEDS_DIR, reason="no ../shared/seeds beside the checkout, and no BENCHDASH_SEEDS_DIR")
def test_every_quote_in_the_shipped_history_is_the_seeds_own_wording() -> None:
    seeds = "".join(path.read_text(encoding="utf-8") for path in Path(SEEDS_DIR).glob("0*.txt"))
    squeezed = re.sub(r"\s+", "", seeds)
    notes = [row["notes"] for row in csv.DictReader(io.StringIO(SHIPPED_CSV.read_text(encoding="utf-8")))]
    quotes = {quote for note in notes for quote in re.findall(r"「(.*?)」", note)}
    assert len(quotes) > 30
    assert [quote for quote in sorted(quotes) if re.sub(r"\s+", "", quote) not in squeezed] == []


def test_figures_that_differ_only_in_conditions_are_separate_points(scenarios: None, tmp_path: Path) -> None:
    header = HEADER.replace(",clients,", ",clients,conditions,")
    rows = "".join(
        f"2008,by -t,blog,,,pgbench-tpcb,{version},10,-t {transactions},{tps},mean,10,\n"
        for version, transactions, tps in (("8.1.4", 10, 452.4), ("8.1.4", 100, 151.0), ("8.3.1", 10, 368.7))
    )
    import_results(write(tmp_path, (header + rows).encode()))

    points = StudyPoint.objects.values_list("build__version", "clients", "conditions", "median", "n")
    assert set(points) == {
        ("8.1.4", 10, "-t 10", 452.4, 10),
        ("8.1.4", 10, "-t 100", 151.0, 10),
        ("8.3.1", 10, "-t 10", 368.7, 10),
    }


def test_it_refuses_two_figures_at_one_point_without_conditions(scenarios: None, tmp_path: Path) -> None:
    rows = (
        "2008,by -t,blog,,,pgbench-tpcb,8.1.4,10,452.4,mean,10,-t 10\n"
        "2008,by -t,blog,,,pgbench-tpcb,8.1.4,10,151.0,mean,10,-t 100\n"
    )

    with pytest.raises(CommandError) as rejected:
        import_results(write(tmp_path, (HEADER + rows).encode()))

    assert "line 3: a second figure for the study, scenario, version and clients of line 2" in str(rejected.value)
    assert Trial.objects.count() == 0


def test_it_reads_the_optional_columns(scenarios: None, tmp_path: Path) -> None:
    header = HEADER.replace(",notes", ",notes,threads,year_inferred,official")
    rows = (
        "2018,EDB,blog,,OEL 6.4,pgbench-tpcb,9.4.3,256,100,relative,10,baseline,32,true,false\n"
        "2018,EDB,blog,,OEL 6.4,pgbench-tpcb,9.6.0,256,109,relative,10,+9%,32,true,false\n"
    )
    import_results(write(tmp_path, (header + rows).encode()))

    study = Study.objects.get()
    assert (study.year_inferred, study.official, study.repetitions) == (True, False, 10)
    assert set(study.trials.values_list("threads", flat=True)) == {32}


@pytest.mark.parametrize(
    ("cells", "reason"),
    [
        ("0,true,true", "threads '0' is not a positive integer"),
        (",maybe,true", "year_inferred 'maybe' is not true or false"),
        (",false,yes", "official 'yes' is not true or false"),
    ],
)
def test_it_checks_the_optional_columns(scenarios: None, tmp_path: Path, cells: str, reason: str) -> None:
    header = HEADER.replace(",notes", ",notes,threads,year_inferred,official")
    row = f"2018,EDB,blog,,,pgbench-tpcb,9.4.3,256,100,relative,10,baseline,{cells}\n"

    with pytest.raises(CommandError) as rejected:
        import_results(write(tmp_path, (header + row).encode()))

    assert f"line 2: {reason}" in str(rejected.value)


def test_it_refuses_a_conditions_value_longer_than_its_field(scenarios: None, tmp_path: Path) -> None:
    header = HEADER.replace(",clients,", ",clients,conditions,")
    row = "2008,t,blog,,,pgbench-tpcb,8.1.4,10," + "c" * 201 + ",452.4,mean,10,\n"

    with pytest.raises(CommandError) as rejected:
        import_results(write(tmp_path, (header + row).encode()))

    assert "line 2: conditions has 201 characters, at most 200" in str(rejected.value)
    assert Trial.objects.count() == 0


@pytest.mark.parametrize("stray", ["\r", "\r\r"])
def test_it_refuses_a_stray_carriage_return_inside_a_line(scenarios: None, tmp_path: Path, stray: str) -> None:
    row = f"2021,t,s,h{stray}x,o,pgecons-reference,14.0,1,5,median,3,\n"
    path = write(tmp_path, (HEADER + GOOD_ROWS + row).encode())

    with pytest.raises(CommandError) as rejected:
        import_results(path)

    assert "line 5: a line break inside a field that is not quoted" in str(rejected.value)
    assert Trial.objects.count() == 0


def test_it_reads_crlf_line_ends(scenarios: None, tmp_path: Path) -> None:
    import_results(write(tmp_path, (HEADER + GOOD_ROWS).replace("\n", "\r\n").encode()))

    assert_the_good_rows_were_imported()


def test_it_refuses_a_field_past_the_csv_readers_limit(scenarios: None, tmp_path: Path) -> None:
    row = '2021,t,s,h,o,pgecons-reference,14.0,1,5,median,3,"' + "n" * 200_000 + '"\n'

    with pytest.raises(CommandError) as rejected:
        import_results(write(tmp_path, (HEADER + GOOD_ROWS + row).encode()))

    assert "line 5: a field longer than" in str(rejected.value)
    assert Trial.objects.count() == 0


@pytest.mark.parametrize(
    "title",
    ["Société Générale", "Müller à Zürich", "café, naïve", "résumé", "Señor ± 5 µs × 2 °C", "épée"],
)
def test_it_refuses_a_latin1_file_instead_of_guessing(scenarios: None, tmp_path: Path, title: str) -> None:
    row = f"2021,{title},s,h,o,pgecons-reference,14.0,1,5,median,3,\n"
    ascii_rows = GOOD_ROWS.replace("定点観測 参照系", "Fixed-point").replace("年度", "")
    path = write(tmp_path, (HEADER + ascii_rows + row).encode("latin-1"))

    with pytest.raises(CommandError) as rejected:
        import_results(path)

    message = str(rejected.value)
    assert "line 5: not UTF-8" in message
    assert "neither UTF-8, UTF-8 with a BOM nor cp932" in message
    assert Trial.objects.count() == 0


def test_it_names_the_line_of_a_byte_the_encoding_it_was_told_cannot_read(scenarios: None, tmp_path: Path) -> None:
    path = write(tmp_path, HEADER.encode() + GOOD_ROWS.encode() + "2021,é\n".encode("latin-1"))

    with pytest.raises(CommandError) as rejected:
        import_results(path, "--encoding", "utf-8")

    assert "line 5: cannot be read as utf-8 (byte 0xe9)" in str(rejected.value)


def test_it_reads_only_the_encodings_it_can_detect(scenarios: None, tmp_path: Path) -> None:
    path = write(tmp_path, (HEADER + GOOD_ROWS).encode())

    with pytest.raises(CommandError) as rejected:
        import_results(path, "--encoding", "latin-1")

    assert "invalid choice: 'latin-1'" in str(rejected.value)


def test_a_cp932_file_that_does_not_read_as_japanese_is_read_only_when_named() -> None:
    latin1 = "épée\n".encode("latin-1")  # valid cp932 too: 駱馥, two second-level kanji

    with pytest.raises(ImportRejected) as rejected:
        decode_csv(latin1)

    assert "line 1: not UTF-8 (byte 0xe9)" in str(rejected.value)
    assert decode_csv(latin1, "cp932") == "駱馥\n"


def test_it_refuses_a_stray_carriage_return_in_the_header(scenarios: None, tmp_path: Path) -> None:
    path = write(tmp_path, (HEADER.replace(",os,", ",o\rs,") + GOOD_ROWS).encode())

    with pytest.raises(CommandError) as rejected:
        import_results(path)

    assert "line 1: a line break inside a field that is not quoted" in str(rejected.value)
    assert Trial.objects.count() == 0
