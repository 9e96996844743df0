"""Django's system checks: the test Celery workers skip them at start (tests/queue/conftest.py), so they run here,
once. A check's error raises SystemCheckError; a warning shows in the output."""

import io

from django.core.management import call_command


def test_the_system_checks_find_nothing() -> None:
    output = io.StringIO()
    call_command("check", stdout=output)
    assert output.getvalue().strip() == "System check identified no issues (0 silenced)."
