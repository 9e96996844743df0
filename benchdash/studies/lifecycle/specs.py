"""From rows to the engine's plain data (workers/spec.py): built here, and only here, for the Celery
glue and `manage.py run_trial`.

The scheduling choices that need the store are made here too: whether a trial hands its server to
the next one, and whether it reads the host's facts again.
"""

from dataclasses import replace

from django.db import connection
from django.db.models import F

from benchdash.inventory.models import Build, Host
from benchdash.studies.lifecycle.calibration_quota import calibration_quota
from benchdash.studies.models import Attempt, Scenario, Study, Trial, Variant
from workers.initdb_options import InitdbOptions
from workers.spec import BuildSpec, HostSpec, ScenarioSpec, TrialSpec, spec_from_row


def host_spec(host: Host) -> HostSpec:
    return host.installation_spec()


def build_spec(build: Build) -> BuildSpec:
    return build.spec()


def scenario_spec(scenario: Scenario) -> ScenarioSpec:
    return spec_from_row(ScenarioSpec, scenario)


def trial_spec(trial: Trial) -> TrialSpec:
    """The plain data the engine runs from; a retried attempt starts from fresh data and reads the facts again.
    The trial's variant (if it has one) gives its host, cluster options, settings on top of the study's,
    fillfactor, CPUs and workload."""
    related = ("study__db_host", "study__client_host", "study__pgbench_build", "host", "build", "scenario", "variant")
    trial = Trial.objects.select_related(*related).get(pk=trial.pk)
    study: Study = trial.study
    variant = trial.variant or Variant(label=trial.build.name)
    known_facts = {} if trial.attempts > 1 else _known_facts(trial)
    db_host = trial.host or study.db_host
    assert db_host is not None, "a measured study has a DB host"
    assert trial.threads is not None and trial.repetition is not None, "a measured trial has its plan's threads"
    return TrialSpec(
        trial_id=trial.pk,
        study_id=study.pk,
        db_host=host_spec(db_host),
        client_host=host_spec(_client_host(study, db_host)),
        build=build_spec(trial.build),
        scenario=scenario_spec(trial.scenario),
        clients=trial.clients,
        threads=trial.threads,
        duration_s=study.duration_s,
        repetition=trial.repetition,
        attempt=trial.attempts,
        fence=_fencing_token(trial),
        scale=study.scale,
        fillfactor=trial.scenario.data_fillfactor(variant.fillfactor or study.fillfactor),
        pg_settings={name: str(value) for name, value in variant.settings_over(study.pg_settings).items()},
        collect_sar=study.collect_sar,
        collect_perf=study.collect_perf,
        collect_wait_events=study.collect_wait_events,
        reset_data=trial.reset_data or trial.attempts > 1,
        prewarm=trial.prewarm,
        keep_server=_next_takes_the_server(trial),
        collect_facts=not known_facts,
        known_facts=known_facts,
        variant=variant.label,
        initdb_options=InitdbOptions(
            variant.data_checksums, variant.wal_segment_mb, variant.locale, variant.encoding, variant.wal_dir
        ),
        cpus=variant.cpus,
        transactions=variant.transactions,
        connect_each_transaction=variant.connect_each_transaction,
        pgbench_vacuum=study.pgbench_vacuum,
        pgbench_build=build_spec(study.pgbench_build) if study.pgbench_build else None,
        duet_half=trial.duet_half,
        cpu_quota=calibration_quota(trial, variant),
    )


def duet_specs(leader: Trial, partner: Trial) -> tuple[TrialSpec, TrialSpec]:
    """A duet round's two sides: the partner's is run as the leader's attempt (its number, its fence, fresh data on
    a retry), since it is claimed only when the round's outcome is stored (outcome.duet_round_finish)."""
    first, second = trial_spec(leader), trial_spec(partner)
    retried = partner.reset_data or leader.attempts > 1
    return first, replace(second, attempt=first.attempt, fence=first.fence, reset_data=retried)


def _client_host(study: Study, db_host: Host) -> Host:
    """pgbench runs on the study's pgbench host, or on the trial's own DB host (a variant's host runs its pgbench
    when the study's pgbench host is its DB host)."""
    if study.client_host is None or study.client_host_id == study.db_host_id:
        return db_host
    return study.client_host


def _fencing_token(trial: Trial) -> str:
    """ "<store>.<attempt id>" of the trial's latest attempt: every later attempt on its host has a larger id
    (models.Attempt). The store is "<cluster's system identifier>-<database's OID>", so that a store made anew (its
    ids counting from 1 again) is not refused by the fence an earlier store left on a host: the OID alone is the
    same in every fresh cluster (16385), and two checkouts' `make run` on one machine share the local work dir."""
    attempt_id = Attempt.objects.latest_of(trial.pk, trial.attempts).values_list("pk", flat=True).first()
    if attempt_id is None:
        return ""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT system_identifier || '-' || oid FROM pg_control_system(), pg_database"
            " WHERE datname = current_database()"
        )
        (store,) = cursor.fetchone()
    return f"{store}.{attempt_id}"


def cancelled_trial_spec(trial_id: int) -> TrialSpec | None:
    """The spec of a cancelled trial whose host runs no trial now: a task that finds its trial cancelled
    was sent after the previous trial, which may have kept the server running for it (keep_server)."""
    trial = Trial.objects.filter(pk=trial_id, status=Trial.Status.CANCELLED).first()
    if trial is None or trial.host_id is None:
        return None
    if Trial.objects.filter(host_id=trial.host_id, status=Trial.Status.RUNNING).exists():
        return None
    return trial_spec(trial)


def _next_takes_the_server(trial: Trial) -> bool:
    """Whether the trial study_continue sends after this one (the first pending on its host by position) runs on the
    same cluster (variant, build, scenario and fillfactor; the study fixes scale) with no data reset,
    so it can take this trial's server over. A reset restarts the server anyway (a restore needs it
    stopped; fresh pgbench -i data leaves nothing warm to keep), and a retry (attempts > 0) resets."""
    following = (
        Trial.objects.filter(study_id=trial.study_id, host=trial.host, status=Trial.Status.PENDING)
        .exclude(pk=trial.pk)
        .select_related("scenario")
        .order_by("position")
        .first()
    )
    if following is None or following.reset_data or following.attempts > 0:
        return False
    if (following.variant_id, following.build_id, following.scenario_id) != (
        trial.variant_id,
        trial.build_id,
        trial.scenario_id,
    ):
        return False
    chosen = trial.study.fillfactor
    return following.scenario.data_fillfactor(chosen) == trial.scenario.data_fillfactor(chosen)


def _known_facts(trial: Trial) -> dict[str, object]:
    """The facts the study's latest trial on the same DB host read (a host's facts are read once per study and host:
    a study on several hosts reads each one's)."""
    facts = (
        Trial.objects.filter(study_id=trial.study_id, host=trial.host, published=False)
        .exclude(pk=trial.pk)
        .exclude(host_facts={})
        .order_by(F("finished_at").desc(nulls_last=True), "-pk")
        .values_list("host_facts", flat=True)
        .first()
    )
    return dict(facts) if isinstance(facts, dict) else {}
