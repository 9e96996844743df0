"""No network or disk I/O inside a transaction: every atomic block, @transaction.atomic function and
select_for_update() of benchdash/ is read (tests/io_in_transactions.py), and a call that reaches SSH, EC2, S3, HTTP,
a file or the broker, or a yield, inside one fails this test.

A finding that was reviewed and is harmless goes into REVIEWED below, keyed by the file of the call, the chain of
functions from the transaction to it, and the call (no line number, so that edits around it keep it), with the reason
in a comment; an entry whose finding is gone fails too."""

from pathlib import Path

import pytest

from tests.io_in_transactions import Finding, findings_in_source, findings_in_tree

ROOT = Path(__file__).resolve().parent.parent

REVIEWED = {
    # The generator's only reader is study_table_health's loop, in the same call, which does no I/O and returns a
    # list: the transaction (for SET LOCAL cursor_tuple_fraction) ends before any byte leaves the process.
    ("benchdash/studies/evidence/table_health.py", "_evidence_rows", "yield"),
}


@pytest.fixture(scope="module")
def benchdash_findings() -> list[Finding]:
    """benchdash/ read once for the module's two tests of it (a second each, on a quiet machine)."""
    return findings_in_tree(ROOT / "benchdash", ROOT)


def test_no_code_in_benchdash_does_io_or_yields_inside_a_transaction(benchdash_findings):
    found = benchdash_findings

    unreviewed = [finding for finding in found if (finding.path, finding.function, finding.what) not in REVIEWED]

    if unreviewed:
        listed = "\n".join(str(finding) for finding in unreviewed)
        pytest.fail(f"I/O inside a transaction: commit first, then do it (or review it):\n{listed}", pytrace=False)


def test_every_reviewed_finding_is_still_found(benchdash_findings):
    found = {(finding.path, finding.function, finding.what) for finding in benchdash_findings}

    assert REVIEWED - found == set()


LAUNCH_UNDER_A_ROW_LOCK = """
def launch_once(ec2, cloud):
    with transaction.atomic():
        locked = CloudStudy.objects.select_for_update().get(pk=cloud.pk)
        launch_instances(ec2, cloud)

def launch_instances(ec2, cloud):
    for instance in cloud.instances.all():
        instance.instance_id = aws.run_instance(ec2, cloud.template, tags=aws.instance_tags(study_id=cloud.pk))
        instance.save()
"""

COPY_ACROSS_A_YIELD = """
def copy_csv_chunks(rows):
    with transaction.atomic(), connection.cursor() as cursor, cursor.cursor.copy(statement) as copy:
        for row in copy:
            yield row
"""


def test_a_launch_that_calls_ec2_while_it_holds_the_row_lock_is_found_through_the_function_it_calls():
    found = findings_in_source(LAUNCH_UNDER_A_ROW_LOCK, "launch.py")

    assert [(finding.line, finding.function, finding.what) for finding in found] == [
        (9, "launch_once > launch_instances", "aws.run_instance")
    ]


def test_a_copy_that_yields_its_rows_inside_an_atomic_block_is_found():
    found = findings_in_source(COPY_ACROSS_A_YIELD, "csv_copy.py")

    assert [(finding.line, finding.what) for finding in found] == [(5, "yield")]


def test_ssh_storage_file_and_broker_calls_are_found_in_an_atomic_function_and_under_select_for_update():
    source = """
@transaction.atomic
def finish(trial, transport):
    transport.run(["pg_ctl", "stop"])
    default_storage.save(name, content)
    with open(path, "w") as out:
        out.write("x")
    path.write_bytes(b"x")

def claim(host):
    Host.objects.select_for_update().get(pk=host.pk)
    with connect(spec) as transport:
        pass
    run_trial.apply_async(args=[1])
"""
    found = findings_in_source(source, "x.py")

    assert [(finding.line, finding.function, finding.what) for finding in found] == [
        (4, "finish", "transport.run"),
        (5, "finish", "default_storage.save"),
        (6, "finish", "open"),
        (8, "finish", "path.write_bytes"),
        (12, "claim", "connect"),
        (14, "claim", "run_trial.apply_async"),
    ]


def test_what_runs_after_the_commit_and_the_pure_aws_helpers_are_not_found():
    source = """
def queue(study):
    with transaction.atomic():
        study.save()
        transaction.on_commit(lambda: run_trial.delay(study.pk))
        transaction.on_commit(partial(send_trial, study.pk))
        tags = aws.instance_tags(study_id=study.pk)
        def later():
            transport.run(["true"])
    aws.run_instance(ec2, template, tags=tags)
"""
    assert findings_in_source(source, "x.py") == []


def test_a_call_is_followed_into_the_functions_other_modules_of_the_tree_define(tmp_path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "views.py").write_text(
        "from pkg.files import keep\nfrom pkg import feed\n\n"
        "def save(content):\n    with transaction.atomic():\n        keep(content)\n        feed.rows()\n"
    )
    (tmp_path / "pkg" / "files.py").write_text("def keep(content):\n    default_storage.save('name', content)\n")
    (tmp_path / "pkg" / "feed.py").write_text("def rows():\n    yield from urlopen(URL)\n")

    found = findings_in_tree(tmp_path / "pkg", tmp_path)

    assert [(finding.path, finding.line, finding.function, finding.what) for finding in found] == [
        ("pkg/feed.py", 2, "save > pkg.feed.rows", "urlopen"),
        ("pkg/files.py", 2, "save > pkg.files.keep", "default_storage.save"),
    ]
