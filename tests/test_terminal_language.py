"""`manage.py` commands speak the terminal's language (benchdash/terminal_language.py), not always LANGUAGE_CODE's."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from benchdash.terminal_language import terminal_language

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize(
    ("environ", "language"),
    [
        ({"LANG": "en_US.UTF-8"}, "en"),
        ({"LANG": "ja_JP.UTF-8"}, "ja"),
        ({"LANG": "C.UTF-8"}, "en"),
        ({"LANG": "POSIX"}, "en"),
        ({"LANG": "ja_JP.UTF-8", "LC_ALL": "en_GB.UTF-8"}, "en"),
        ({"LANG": "en_US.UTF-8", "LANGUAGE": "ja:en"}, "ja"),
        ({"LANG": "fr_FR.UTF-8"}, "ja"),  # a language benchdash does not speak: LANGUAGE_CODE
        ({}, "ja"),
    ],
)
def test_the_terminal_s_locale_names_the_language(environ, language):
    assert terminal_language(environ) == language


LANGS = {"en_US.UTF-8": "Japanese", "ja_JP.UTF-8": "日本語"}


@pytest.fixture(scope="module")
def printed_under() -> dict[str, subprocess.CompletedProcess]:
    """What `manage.py shell` prints for gettext('Japanese') under each LANG, the commands started at once: each is a
    Django start, and `make check` runs its tests one at a time."""
    environ = {key: value for key, value in os.environ.items() if not key.startswith(("LC_", "LANGUAGE"))}
    script = "from django.utils.translation import gettext; print(gettext('Japanese'))"
    shell = [sys.executable, "manage.py", "shell", "-v", "0", "-c", script]
    started = {
        lang: subprocess.Popen(
            shell, cwd=ROOT, env={**environ, "LANG": lang}, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        for lang in LANGS
    }
    ended = {}
    for lang, process in started.items():
        stdout, stderr = process.communicate(timeout=60)
        ended[lang] = subprocess.CompletedProcess(shell, process.returncode, stdout, stderr)
    return ended


@pytest.mark.parametrize(("lang", "printed"), LANGS.items())
def test_a_command_prints_in_the_terminal_s_language(printed_under, lang, printed):
    done = printed_under[lang]
    assert done.stdout.strip() == printed, done.stderr
