"""The study's one validation (form, queue_study, admin, imports: benchdash/studies/pg_settings.py) refuses a log
written among the server's own files, in English and in Japanese (issue 19)."""

import pytest
from django.core.exceptions import ValidationError
from django.utils import translation

from benchdash.studies.pg_settings import parse_settings
from tests.engine.test_log_into_config import FILES_THE_SERVER_READS

ATTACK = "logging_collector = on\nlog_directory = '{directory}'\nlog_filename = '{filename}'\nlog_line_prefix = '# '"


def messages(text: str, language: str) -> list[str]:
    with translation.override(language), pytest.raises(ValidationError) as refused:
        parse_settings(text)
    with translation.override(language):
        return refused.value.messages


@pytest.mark.parametrize("filename", FILES_THE_SERVER_READS)
@pytest.mark.parametrize("directory", [".", "", "./", "global", "pg_wal"])
def test_a_log_among_the_servers_files_is_refused_in_both_languages(directory, filename):
    text = ATTACK.format(directory=directory, filename=filename)
    english, japanese = messages(text, "en"), messages(text, "ja")
    assert english[0] == (
        f"log_directory = {directory}: the server's log may only go to its own log directory, never among the files "
        "it reads at start: give log, or a directory below it (log/benchdash) named with letters, digits and . _ -."
    )
    assert japanese[0].startswith(f"log_directory = {directory}: サーバのログは専用のログディレクトリにしか書けません")


@pytest.mark.parametrize("filename", ["global/pg_control", "log/../postgresql.conf"])
def test_a_log_file_name_with_a_directory_is_refused(filename):
    english = messages(ATTACK.format(directory="log", filename=filename), "en")
    assert english == [
        f"log_filename = {filename} points outside the cluster: give a relative path without '..' "
        "(and, for a file name, without '/')."
    ]


def test_a_log_file_name_that_is_not_plain_is_refused_in_both_languages():
    text = ATTACK.format(directory="log", filename=".x;id")
    assert messages(text, "en") == [
        "log_filename = .x;id: give a plain file name of letters, digits, strftime escapes (%Y, %a ...) and . _ -, "
        "not starting with a dot; the file goes in log_directory."
    ]
    assert messages(text, "ja")[0].startswith("log_filename = .x;id: 英数字、strftime のエスケープ (%Y、%a など)")


def test_the_log_in_its_own_directory_is_allowed():
    text = ATTACK.format(directory="log/benchdash", filename="postgresql-%Y-%m-%d.log")
    assert parse_settings(text)["log_directory"] == "log/benchdash"
