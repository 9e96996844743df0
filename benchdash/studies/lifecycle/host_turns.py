"""Which of a study's pending trials to send now, by how the study runs its DB hosts (services._next_pending).

- together (the default): each DB host runs its own trials one after another, the hosts at the same time: the next
  trial of the host that just ran one, or the first of each host that runs none;
- one after another (HostOrder.IN_TURN): every trial of the first host (in the host axis' order) before the first of
  the next. The next host may be down (the other OS of a dual-boot server): its trial waits for it within the host's
  patience (workers/host_wait.py), and the study page says it waits;
- a study that varies the load (Load): one slot at a time, nothing else of the study running beside it: a trial of an
  `alone` variant by itself, or a trial of an `at_once` variant with the same trial (scenario, clients, repetition) of
  each partner variant (the same but for its DB host), all sent at the same moment;
- a duet study (Study.is_duet): one round at a time, only its leader's trial sent; the leader's task runs its partner
  with it (duet_partner), both sides at once on the one DB host (workers/duet.py).
"""

import json
from collections.abc import Iterable

from django.conf import settings
from django.db.models import QuerySet

from benchdash.studies.models import HostOrder, Load, Study, Trial, Variant


def next_trials(study_id: int, pending: QuerySet[Trial], host_id: int | None = None) -> list[Trial]:
    """The pending trials to send now (pending: the study's, in an active study)."""
    study = Study.objects.only("host_order", "db_host_id", "arrangement").filter(pk=study_id).first()
    if study is None:  # deleted meanwhile: nothing of it to send
        return []
    if study.is_duet:
        return _next_duet_round(study, pending)
    variants = list(Variant.objects.filter(study_id=study_id).order_by("position", "pk"))
    if any(variant.load for variant in variants):
        return _next_slot(study, pending, variants)
    if study.host_order == HostOrder.IN_TURN:
        return _next_in_turn(study, pending, variants)
    return _next_together(study, pending, host_id)


def _next_together(study: Study, pending: QuerySet[Trial], host_id: int | None) -> list[Trial]:
    """The next trial on host_id, or (None) the first of each DB host that runs none of the study's trials now."""
    if host_id is not None:
        return list(pending.filter(host_id=host_id).order_by("position")[:1])
    busy = _running(study).values("host_id")
    firsts = pending.exclude(host_id__in=busy).order_by("host_id", "position").distinct("host_id")
    return sorted(firsts, key=lambda trial: trial.position or 0)


def _next_in_turn(study: Study, pending: QuerySet[Trial], variants: list[Variant]) -> list[Trial]:
    """The next trial of the first host that has any left, once its running one (if any) ended."""
    unfinished = Trial.objects.filter(study=study, status__in=(Trial.Status.PENDING, Trial.Status.RUNNING))
    hosts_left = set(unfinished.values_list("host_id", flat=True))
    turn = next((host for host in host_turns(study, variants) if host in hosts_left), None)
    if turn is None or _running(study).filter(host_id=turn).exists():
        return []
    return list(pending.filter(host_id=turn).order_by("position")[:1])


def host_turns(study: Study, variants: Iterable[Variant]) -> list[int | None]:
    """The study's DB hosts in the order their variants come (the host axis' order)."""
    return list(dict.fromkeys(variant.db_host_id or study.db_host_id for variant in variants))


def _next_slot(study: Study, pending: QuerySet[Trial], variants: list[Variant]) -> list[Trial]:
    """The first pending trial, with its partners' same trials when it runs at once; nothing while a slot runs.
    The study's row is locked first, so that of two partners ending together, the later one sees the other ended
    and sends the next slot."""
    Study.objects.select_for_update().filter(pk=study.pk).first()
    if _running(study).exists():
        return []
    first = pending.order_by("position").first()
    if first is None:
        return []
    by_id = {variant.pk: variant for variant in variants}
    own = by_id[first.variant_id] if first.variant_id is not None else None
    if own is None or own.load != Load.AT_ONCE:
        return [first]
    partners = [
        variant.pk
        for variant in variants
        if variant.load == Load.AT_ONCE and variant.pk != own.pk and _partner_key(variant) == _partner_key(own)
    ]
    same_trial = {"scenario_id": first.scenario_id, "clients": first.clients, "repetition": first.repetition}
    if first.attempts:
        _again_with(study, partners, same_trial)
    others = pending.filter(variant_id__in=partners, **same_trial).order_by("position")
    firsts_of_partners = {trial.variant_id: trial for trial in reversed(list(others))}
    return [first, *sorted(firsts_of_partners.values(), key=lambda trial: trial.position or 0)]


def _again_with(study: Study, partners: list[int], same_trial: dict[str, int | None]) -> None:
    """An at-once trial tried before (retried, or put back after its worker was lost) ran beside its partners' same
    trials: those that succeeded go back to pending and run again with it, the pair retried together, so that its
    figure is never measured alone. A partner with no attempt left keeps its figure (the retried one then runs
    without it). Their points follow when they finish again (outcome.trial_finish)."""
    done = Trial.objects.filter(
        study=study,
        variant_id__in=partners,
        status=Trial.Status.SUCCEEDED,
        attempts__lt=settings.TRIAL_MAX_ATTEMPTS,
        **same_trial,
    )
    done.update(status=Trial.Status.PENDING, finished_at=None)


def _next_duet_round(study: Study, pending: QuerySet[Trial]) -> list[Trial]:
    """The first pending leader, once no round of the study runs (a round runs as its leader's one trial)."""
    if _running(study).exists():
        return []
    leading = _leading_variant(study)
    return [] if leading is None else list(pending.filter(variant_id=leading).order_by("position")[:1])


def duet_partner(leader: Trial) -> Trial | None:
    """The other side of the leader's duet round: the same cell and round, of the study's other variant."""
    same_round = {"scenario_id": leader.scenario_id, "clients": leader.clients, "repetition": leader.repetition}
    partners = Trial.objects.filter(study_id=leader.study_id, **same_round).exclude(pk=leader.pk)
    return partners.filter(status=Trial.Status.PENDING).first()


def _leading_variant(study: Study) -> int | None:
    """The variant whose trials lead the rounds: the first saved (plan.py pairs the lower id first)."""
    return Variant.objects.filter(study=study).order_by("pk").values_list("pk", flat=True).first()


def _partner_key(variant: Variant) -> str:
    """What a variant is, but for its DB host: variants of the same key run at once."""
    conditions = {name: getattr(variant, name) for name in Variant.CONDITIONS if name != "db_host_id"}
    return json.dumps([variant.build_id, conditions], sort_keys=True, default=str)


def _running(study: Study) -> QuerySet[Trial]:
    return Trial.objects.filter(study=study, status=Trial.Status.RUNNING)
