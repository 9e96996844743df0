"""The engine's notes and reasons are shown in the reader's language where benchdash knows them, as written
otherwise."""

from django.utils import translation

from benchdash.studies.engine_text import engine_text
from benchdash.studies.lifecycle.progress import study_progress
from benchdash.studies.models import FailureKind, Study, Trial
from tests.factories import StudyFactory, TrialFactory


def test_known_lines_are_translated_with_their_values_and_others_kept() -> None:
    notes = "\n".join(
        [
            "perf: from an extra profiled run",
            "sar: skipped, it could not start (sadc: not found)",
            "db-1 stopped answering during the run (timed out); its results were fetched once it answered again",
            "something the engine learned to say later",
        ]
    )
    with translation.override("ja"):
        shown = engine_text(notes).splitlines()
    assert shown == [
        "perf: 別に行ったプロファイル用の実行から",
        "sar: 起動できなかったため省略 (sadc: not found)",
        "db-1 が実行中に応答しなくなった (timed out)。応答が戻ってから結果を取得した",
        "something the engine learned to say later",
    ]


def test_reasons_joined_by_semicolons_are_translated_part_by_part_and_english_stays_english() -> None:
    reason = "wait_events: no data (psql failed); cancelled during run"
    with translation.override("ja"):
        assert engine_text(reason) == "wait_events: データなし (psql failed); run の途中で取り消された"
    with translation.override("en"):
        assert engine_text(reason) == reason


def test_a_failed_studys_reason_is_its_kind_in_the_readers_language_with_the_engines_words_as_detail(db) -> None:
    study = StudyFactory(status=Study.Status.FAILED)
    error = "attempt 1: pgbench exited with status 1"
    TrialFactory(study=study, status=Trial.Status.FAILED, error=error, failure_kind=FailureKind.PGBENCH_FAILED)

    with translation.override("ja"):
        assert study_progress(study).failure_reason == f"pgbench が失敗しました。詳細: {error}"
    with translation.override("en"):
        assert study_progress(study).failure_reason == f"pgbench failed. Detail: {error}"


def test_a_trial_put_back_after_its_pool_process_died_says_so_in_the_readers_language() -> None:
    with translation.override("ja"):
        assert engine_text("attempt 2: worker lost (its pool process died); put back") == (
            "実行回 2: ワーカー消失（プールのプロセスが終了）; 待ちに戻した"
        )
