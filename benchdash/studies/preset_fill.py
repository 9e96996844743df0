"""What the study presets fill in of a study's values left empty, as text: the new-study form's and queue_study's
one rule (the page's script fills the same in when a preset is picked)."""

from collections.abc import Mapping
from typing import Any

from django.http import QueryDict

from benchdash.studies.models import HostOrder, StudyPreset
from benchdash.studies.pg_settings import settings_text
from workers.spec import RunOrder


def preset_values(preset: StudyPreset) -> dict[str, Any]:
    """What choosing a study preset fills in: its design and the seed's procedure (scale, duration, run order,
    statistic, host order, warm-up runs)."""
    return {
        "client_levels": ",".join(map(str, preset.client_levels)),
        "pg_settings": settings_text(preset.pg_settings),
        "repetitions": str(preset.repetitions),
        "run_order": preset.run_order,
        "host_order": preset.host_order,
        "duration_s": str(preset.duration_s),
        "scale": str(preset.scale),
        "scenarios": [str(scenario.pk) for scenario in preset.scenarios.all()],
        "vary": preset.vary,
        "statistic": preset.statistic,
        "warmup_runs": str(preset.warmup_runs),
    }


def preset_fills(
    data: Mapping[str, Any], client_preset: StudyPreset | None, settings_preset: StudyPreset | None
) -> dict[str, Any]:
    """What the presets fill in of the values data left empty, as text: the study preset's design and procedure,
    postgresql.conf from the settings preset, else the study preset; the random run order. The form's and
    queue_study's."""
    settings_from = settings_preset or client_preset
    values = preset_values(client_preset) if client_preset else {}
    if settings_from:
        values["pg_settings"] = settings_text(settings_from.pg_settings)
    values["run_order"] = values.get("run_order") or RunOrder.RANDOM.value
    values["host_order"] = values.get("host_order") or HostOrder.TOGETHER.value
    return {name: value for name, value in values.items() if _left_empty(data, name)}


def _left_empty(data: Mapping[str, Any], name: str) -> bool:
    value = data.getlist(name) if isinstance(data, QueryDict) else data.get(name)
    return not any(str(item or "").strip() for item in (value if isinstance(value, list) else [value]))
