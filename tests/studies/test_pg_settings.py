"""benchdash/studies/pg_settings.py: the lines a study's settings are typed in, and the allowlist."""

import pytest
from django.core.exceptions import ValidationError
from django.utils import translation

from benchdash.studies.pg_settings import (
    allowed_settings,
    check_settings,
    every_major_problems,
    parse_settings,
    settings_text,
)
from benchdash.studies.seed_data import STUDY_PRESETS
from workers.settings_catalog import catalog_majors, load_catalog
from workers.settings_rules import never_allowed


def problems(text: str) -> str:
    with translation.override("en"), pytest.raises(ValidationError) as refused:
        parse_settings(text)
    with translation.override("en"):
        return " | ".join(refused.value.messages)


def test_it_reads_quoted_values_comments_and_blank_lines():
    text = "# the seeds' settings\n\nwork_mem = 4MB  # per sort\nlog_line_prefix = '%m [%p] it''s # not a comment '\n"
    assert parse_settings(text) == {"work_mem": "4MB", "log_line_prefix": "%m [%p] it's # not a comment "}


def test_settings_text_reads_back_as_the_same_settings():
    settings = {"log_line_prefix": " %m 'x' # y ", "work_mem": "4MB", "application_name": ""}
    assert parse_settings(settings_text(settings)) == settings


def test_it_reports_every_problem_with_its_line_not_only_the_first():
    message = problems("work_mem 4MB\nwork_mem = 4MB\nWork_Mem = 8MB\nport = 1\nx y = 2")
    assert "Line 1 is not 'name = value'." in message
    assert "Work_Mem is set twice (lines 2 and 3)." in message
    assert "port decides where the server listens" in message
    assert "Line 5: x y is not a setting name." in message


@pytest.mark.parametrize(
    "name",
    [
        "shared_buffers",
        "work_mem",
        "maintenance_work_mem",
        "effective_cache_size",
        "max_wal_size",
        "checkpoint_timeout",
        "checkpoint_completion_target",
        "wal_level",
        "synchronous_commit",
        "random_page_cost",
        "enable_seqscan",
        "max_parallel_workers_per_gather",
        "max_worker_processes",
        "autovacuum",
        "autovacuum_naptime",
        "logging_collector",
        "log_checkpoints",
        "log_lock_waits",
        "log_min_duration_statement",
        "log_line_prefix",
        "max_connections",
        "max_wal_senders",
        "track_io_timing",
        "deadlock_timeout",
    ],
)
def test_the_allowlist_takes_performance_and_logging_settings(name):
    assert name in allowed_settings(load_catalog(15))


@pytest.mark.parametrize(
    "name",
    [
        "archive_mode",
        "search_path",
        "log_timezone",
        "cluster_name",
        "primary_conninfo",
        "allow_system_table_mods",
        "default_tablespace",
        "event_source",
        "syslog_ident",
        "log_destination",
        "lc_messages",
        "block_size",
    ],
)
def test_the_allowlist_leaves_out_what_is_not_a_performance_setting(name):
    assert name not in allowed_settings(load_catalog(15))
    with pytest.raises(ValidationError):
        parse_settings(f"{name} = x")


@pytest.mark.parametrize("major", catalog_majors())
def test_no_major_allows_a_setting_of_the_never_allowed_classes(major):
    catalog = load_catalog(major)
    allowed = allowed_settings(catalog)
    assert len(allowed) > 120
    # log_directory and log_filename are allowed inside the cluster only: 'log' is such a value.
    assert [name for name in allowed if never_allowed(name, "log", catalog.get(name))] == []


@pytest.mark.parametrize("preset", STUDY_PRESETS, ids=[preset.slug for preset in STUDY_PRESETS])
def test_every_setting_of_the_seeds_presets_is_allowed_in_every_major(preset):
    assert check_settings(preset.pg_settings) == preset.pg_settings
    assert every_major_problems(preset.pg_settings) == []
    assert "listen_addresses" not in preset.pg_settings


def test_an_administrator_widens_the_allowlist_for_the_site_but_never_past_the_classes(settings):
    settings.STUDY_SETTINGS_EXTRA = ["search_path", "archive_command", "shared_preload_libraries"]
    assert parse_settings("search_path = 'bench, public'") == {"search_path": "bench, public"}
    assert "runs a command" in problems("archive_command = 'true'")
    assert "loads code" in problems("shared_preload_libraries = 'pg_stat_statements'")
