"""What we run and what came out: scenarios, study presets, studies, their variants, trials and their raw files."""

from benchdash.studies.models.calibration import Calibration, DesignKind
from benchdash.studies.models.failure import FailureKind
from benchdash.studies.models.outputs import Artifact, StudyPoint, TrialEvidence
from benchdash.studies.models.scenario import RUN_ORDER_LABELS, HostOrder, Scenario, StudyPreset
from benchdash.studies.models.study import DUETS, MEASURED_STATISTICS, Arrangement, Attempt, Statistic, Study, Trial
from benchdash.studies.models.variant import Load, Variant

__all__ = [
    "DUETS",
    "MEASURED_STATISTICS",
    "RUN_ORDER_LABELS",
    "Arrangement",
    "Artifact",
    "Attempt",
    "Calibration",
    "DesignKind",
    "FailureKind",
    "HostOrder",
    "Load",
    "Scenario",
    "Statistic",
    "Study",
    "StudyPoint",
    "StudyPreset",
    "Trial",
    "TrialEvidence",
    "Variant",
]
