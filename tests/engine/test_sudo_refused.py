"""A refused sudo (no sudoers rule for the worker's account) fails the trial with a distinct error, and the study
page explains the fix in both languages (issue 19). The refusal is real: `nobody` has no sudoers rule."""

import os
import subprocess

import pytest
from django.utils import translation

from benchdash.studies.templatetags.trial_errors import error_fix
from tests.reachable import BASE_PYTHON, reachable_copy, runs
from tests.sshd import run_user_account

ATTEMPT = """
from workers.local_transport import LocalTransport, SudoRefused
from workers.spec import HostSpec
try:
    LocalTransport(HostSpec(name="local", work_dir="/tmp"), run_as={account!r}).run(["true"])
except SudoRefused as error:
    print(f"attempt 1: {{type(error).__name__}}: {{error}}")
"""


@pytest.fixture(scope="module")
def refused_error() -> str:
    """What a worker running as nobody, which no sudoers rule lets run as the clusters' account, records: the engine
    from a copy nobody can reach (the checkout may be a clone in a directory only root may enter)."""
    if os.geteuid() != 0:
        pytest.skip("running the worker as an account without a sudoers rule needs root")
    if not runs("nobody", [BASE_PYTHON, "-c", ""]):
        pytest.skip(f"nobody cannot run {BASE_PYTHON} (a Python under /root)")
    account = run_user_account().pw_name
    argv = ["runuser", "-u", "nobody", "--", BASE_PYTHON, "-c", ATTEMPT.format(account=account)]
    with reachable_copy("nobody", "workers") as place:
        return subprocess.run(argv, cwd=place, capture_output=True, text=True, check=True, timeout=60).stdout.strip()


def test_the_engine_raises_a_distinct_error_that_names_the_fix(refused_error):
    account = run_user_account().pw_name
    assert refused_error == (
        f"attempt 1: SudoRefused: sudo refused to run commands as {account} without a password: run `make setup` "
        f"as root; it writes /etc/sudoers.d/benchdash-nobody-{account}."
    )


def test_the_study_page_explains_the_fix_in_both_languages(refused_error):
    account = run_user_account().pw_name
    with translation.override("en"):
        english = error_fix(refused_error)
    with translation.override("ja"):
        japanese = error_fix(refused_error)
    assert english == (
        f"The worker may not run commands as {account}: sudo asked for a password, so the sudoers rule is missing. "
        f"Run `make setup` as root; it writes /etc/sudoers.d/benchdash-nobody-{account}."
    )
    assert japanese.startswith(f"ワーカーは {account} としてコマンドを実行できません。")
    assert japanese.endswith(f"/etc/sudoers.d/benchdash-nobody-{account} が書かれます。")


def test_another_error_gets_no_explanation():
    assert error_fix("attempt 1: CommandFailed: pg_ctl start failed") == ""
