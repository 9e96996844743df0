"""A refused sudo (no sudoers rule for the worker's account) fails the trial with a distinct error and failure kind,
and the trial page explains the fix in both languages (issue 19), from the kind (issue 40). The refusal is real:
`nobody` has no sudoers rule."""

import os
import subprocess

import pytest
from django.urls import reverse

from benchdash.studies.models import FailureKind, Trial
from tests.factories import TrialFactory
from tests.reachable import BASE_PYTHON, reachable_copy, runs
from tests.sshd import run_user_account
from workers.error_kinds import failure_kind_of
from workers.local_transport import SudoRefused

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


def test_the_engine_raises_a_distinct_error_that_names_the_fix_and_has_its_own_failure_kind(refused_error):
    account = run_user_account().pw_name
    assert refused_error == (
        f"attempt 1: SudoRefused: sudo refused to run commands as {account} without a password: run `make setup` "
        f"as root; it writes /etc/sudoers.d/benchdash-nobody-{account}."
    )
    assert failure_kind_of(SudoRefused(account)) == "sudo_refused"


@pytest.mark.django_db
def test_the_trial_page_explains_the_fix_in_both_languages_with_the_engines_words_beside_it(
    refused_error, client, member
):
    trial = TrialFactory(status=Trial.Status.FAILED, error=refused_error, failure_kind=FailureKind.SUDO_REFUSED)
    page = reverse("studies:trial", args=[trial.pk])

    english = client.get(page, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    japanese = client.get(page, HTTP_ACCEPT_LANGUAGE="ja").content.decode()

    assert "the sudoers rule is missing. Run `make setup` as root" in english.replace("&#x27;", "'")
    assert "ワーカーはクラスタのアカウントとしてコマンドを実行できません。" in japanese
    account = run_user_account().pw_name
    assert all(f"/etc/sudoers.d/benchdash-nobody-{account}" in text for text in (english, japanese))


@pytest.mark.django_db
def test_another_failure_gets_no_explanation_of_sudo(client, member):
    failed = {"error": "attempt 1: CommandFailed: pg_ctl start failed", "failure_kind": FailureKind.TARGET_FAILED}
    trial = TrialFactory(status=Trial.Status.FAILED, **failed)

    page = client.get(reverse("studies:trial", args=[trial.pk]), HTTP_ACCEPT_LANGUAGE="en").content.decode()

    assert "sudoers" not in page and "a target failed" in page
