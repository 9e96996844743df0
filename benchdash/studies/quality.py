"""How good a study is before it counts in the trends: the figures the "mark official" screen shows first, each
against the documented rule for an official study (docs/STATISTICS.md, "Before a study counts in the trends").

A study below any rule may still be marked official, but only with a written reason (Study.official_reason),
which its page and the trends page show beside its links.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass

from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _

from benchdash.inventory.noise_display import VERDICT_WORDS
from benchdash.studies.calibration_match import design_kind_of, matching_calibration
from benchdash.studies.calibration_text import detections_text, replace_detections
from benchdash.studies.lifecycle.noise import study_noise_checks
from benchdash.studies.models import Study, StudyPreset, Trial
from benchdash.studies.results.compare import Point
from benchdash.studies.results.queries import study_results
from benchdash.studies.results.uncertainty import Verdict

# The rules: the spread a trend may rest on, and the share of compared cells that must have said something (faster
# or slower: "can't tell" and "too few runs" say nothing).
MAX_MEDIAN_CV = 0.10
MIN_VERDICT_SHARE = 0.5
# With a calibration of the design on the host (or its kind), the evidence that the study could tell: at the
# study's runs a side, some injected size called in this share of the resampled studies, with false alarms at most
# the other share (issue 42's goal: 8 of 10, at most 1 in 20).
MIN_CALLED_SHARE = 0.8
MAX_FALSE_ALARM_SHARE = 0.05


@dataclass(frozen=True)
class QualityCheck:
    """One figure of a study against its rule; `met` None where the rule cannot be applied (nothing to compare)."""

    name: str | Promise
    value: str
    rule: str | Promise
    met: bool | None


@dataclass(frozen=True)
class StudyQuality:
    checks: list[QualityCheck]

    @property
    def meets_rules(self) -> bool:
        return all(check.met is not False for check in self.checks)

    @property
    def below(self) -> list[QualityCheck]:
        return [check for check in self.checks if check.met is False]


def study_quality(study: Study) -> StudyQuality:
    """The study's figures against the rules (module description)."""
    points = study_results(study)
    preset = study.preset
    return StudyQuality(
        [
            _noise_check(study),
            *_against_preset(study, preset),
            _spread_check(points),
            _calibration_check(study) or _verdict_share_check(points),
            _failed_check(study),
        ]
    )


def _noise_check(study: Study) -> QualityCheck:
    """Every DB host's check must say not noisy; on several hosts the value names each."""
    checks = study_noise_checks(study)
    verdicts = [(host, report.get("verdict") or "") for host, report in checks]
    met = all(verdict in ("quiet", "some_noise") for _host, verdict in verdicts)
    if len(verdicts) == 1:
        value = _verdict_word(verdicts[0][1])
    else:
        value = ", ".join(f"{host.name if host else '—'}: {_verdict_word(verdict)}" for host, verdict in verdicts)
    return QualityCheck(_("noise check of the DB host"), value, _("not noisy"), met)


def _verdict_word(verdict: str) -> str:
    return str(VERDICT_WORDS.get(verdict, verdict or "—"))


def _seconds(seconds: int) -> str:
    return _("%(seconds)s s") % {"seconds": seconds}


def _against_preset(study: Study, preset: StudyPreset | None) -> list[QualityCheck]:
    if preset is None:  # another preset that runs the same scenarios (2014's checksums for 2021's) is no rule
        rule = _("made without a study preset")
        return [
            QualityCheck(_("duration"), _seconds(study.duration_s), rule, None),
            QualityCheck(_("scale"), str(study.scale), rule, None),
        ]
    named = {"preset": preset.display_name}
    return [
        QualityCheck(
            _("duration"),
            _seconds(study.duration_s),
            _("at least %(preset)s's %(value)s s") % {**named, "value": preset.duration_s},
            study.duration_s >= preset.duration_s,
        ),
        QualityCheck(
            _("scale"),
            str(study.scale),
            _("at least %(preset)s's %(value)s") % {**named, "value": preset.scale},
            study.scale >= preset.scale,
        ),
    ]


def _spread_check(points: list[Point]) -> QualityCheck:
    spreads = [point.cv for point in points if point.cv is not None]
    median = statistics.median(spreads) if spreads else None
    value = "—" if median is None else f"{median:.1%}"
    rule = _("median CV of the cells at most %(limit)s") % {"limit": f"{MAX_MEDIAN_CV:.0%}"}
    return QualityCheck(_("run-to-run spread"), value, rule, median is not None and median <= MAX_MEDIAN_CV)


def _verdict_share_check(points: list[Point]) -> QualityCheck:
    compared = [point for point in points if point.verdict is not None]
    told = [point for point in compared if point.verdict in (Verdict.FASTER, Verdict.SLOWER)]
    share = len(told) / len(compared) if compared else None
    value = "—" if share is None else f"{len(told)} / {len(compared)} ({share:.0%})"
    rule = _("at least %(share)s of the compared cells") % {"share": f"{MIN_VERDICT_SHARE:.0%}"}
    return QualityCheck(_("cells with a verdict"), value, rule, share is not None and share >= MIN_VERDICT_SHARE)


def _calibration_check(study: Study) -> QualityCheck | None:
    """A calibration's measure of what the study's design detects, where one matches (calibration_match.py): the
    largest calibrated runs a side not above the study's; None without a calibration (the verdict share decides)."""
    cells = [
        (scenario_id, clients)
        for scenario_id in study.scenarios.values_list("pk", flat=True)
        for clients in study.client_levels
    ]
    match = matching_calibration(
        study.db_host,
        cells,
        duration_s=study.duration_s,
        threshold=study.threshold,
        design_kind=design_kind_of(study.arrangement),
    )
    if match is None or not match.calibration.detections:
        return None
    detections = match.calibration.detections
    detection = ([one for one in detections if one["runs"] <= study.repetitions] or detections[:1])[-1]
    studies = detection["studies"]
    best = max(detection["called"].values(), default=0)
    met = best >= MIN_CALLED_SHARE * studies and detection["false_alarms"] <= MAX_FALSE_ALARM_SHARE * studies
    value = detections_text(replace_detections(match.calibration, [detection]))
    rule = _(
        "calibration %(pk)s (%(when)s): a slowdown called in at least %(called)s of studies, false alarms at most "
        "%(alarms)s; this calibration is the evidence used, in place of the share of cells with a verdict"
    ) % {
        "pk": match.calibration.pk,
        "when": match.calibration.measured_at.date() if match.calibration.measured_at else "—",
        "called": f"{MIN_CALLED_SHARE:.0%}",
        "alarms": f"{MAX_FALSE_ALARM_SHARE:.0%}",
    }
    return QualityCheck(_("what the design detects, measured"), value, rule, met)


def _failed_check(study: Study) -> QualityCheck:
    failed = study.trials.filter(status=Trial.Status.FAILED).count()
    return QualityCheck(_("failed trials"), str(failed), _("none"), failed == 0)
