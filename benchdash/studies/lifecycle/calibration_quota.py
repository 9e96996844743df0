"""The quota of a calibration's trial, as the engine takes it (workers/cpu_quota.py): apart from the rest of a
calibration's life (calibration.py), since specs.py needs it and calibration.py needs the design."""

import statistics

from benchdash.studies.models import Trial, Variant
from workers.cpu_quota import CpuQuotaError, quota_us
from workers.spec import CpuQuotaSpec


def calibration_quota(trial: Trial, variant: Variant) -> CpuQuotaSpec | None:
    """The engine's quota of a calibration's trial: none for other studies' trials; no limit for A and A'; for a
    slowed one, its size less than the cores the study's unthrottled runs used so far (their mean)."""
    if variant.slowdown_pct is None:
        return None
    if variant.slowdown_pct == 0:
        return CpuQuotaSpec(None)
    used = Trial.objects.filter(
        study_id=trial.study_id, variant__slowdown_pct=0, status=Trial.Status.SUCCEEDED, server_cores__gt=0
    ).values_list("server_cores", flat=True)
    if not used:
        raise CpuQuotaError(f"trial {trial.pk}: no unthrottled run of its study measured the server's CPU use yet")
    return CpuQuotaSpec(quota_us(statistics.fmean(cores for cores in used if cores), variant.slowdown_pct))
