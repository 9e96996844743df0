"""The evidence that explains each difference of a report: for every comparison and client level whose ratio is a
difference (a verdict of faster or slower, or a published ratio), what the collectors saw there: the bottleneck of
both sides and, where the other side is the baseline (against which the evidence measured each line), the wait event
whose share moved most and perf's function that grew most."""

from __future__ import annotations

from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from benchdash.studies.evidence.page import EvidenceSection, VerdictRow
from benchdash.studies.models import Study
from benchdash.studies.results.comparisons import ComparisonColumn
from benchdash.studies.results.tables import Cell, RatioCell, ScenarioTable
from benchdash.studies.results.uncertainty import Verdict

DIFFERENCES = (Verdict.FASTER, Verdict.SLOWER)


def difference_evidence(study: Study, table: ScenarioTable, section: EvidenceSection) -> list[str]:
    """A line per difference; a published study's figures come with no evidence, which its line says."""
    if study.is_published:
        return [_("Published figures: benchdash collected no evidence; the source's account is in the conclusions.")]
    lines = [
        _difference_line(row.clients, cell, section)
        for row in table.rows
        for cell in row.compared_cells
        if cell.point is not None and cell.point.verdict in DIFFERENCES
    ]
    return lines or [_("No difference lies beyond the threshold: nothing to explain.")]


def ratio_text(cell: Cell) -> str:
    """'96% (94.1% – 97.3%, rank interval), slower': the ratio to the baseline, its interval, the method that drew
    it and its verdict."""
    if cell.point is None or cell.point.ratio_percent is None:
        return "—"
    parts = [f"{cell.point.ratio_percent}%"]
    if cell.interval_text:
        parts.append(f"({cell.interval_text}, {cell.method_label})")
    text = " ".join(parts)
    return f"{text}, {cell.verdict_label}" if cell.verdict_label else text


def _difference_line(clients: int, cell: RatioCell, section: EvidenceSection) -> str:
    found = [
        text
        for text in (
            _bottlenecks(clients, cell.column, section),
            _wait_change(clients, cell.column, section),
            _perf_change(clients, cell.column, section),
        )
        if text
    ]
    evidence = "; ".join(found) if found else _("no evidence was collected at this level")
    head = ngettext("%(clients)s client, %(build)s: %(ratio)s", "%(clients)s clients, %(build)s: %(ratio)s", clients)
    head %= {"clients": clients, "build": cell.column.title, "ratio": ratio_text(cell)}
    return f"{head}. {evidence}."


def _bottlenecks(clients: int, column: ComparisonColumn, section: EvidenceSection) -> str:
    row = next((row for row in section.verdict_rows if row.clients == clients), None)
    baseline_label, other_label = _label(row, column.reference_line_id), _label(row, column.line_id)
    if not (baseline_label or other_label):
        return ""
    return _("bottleneck %(baseline)s → %(other)s") % {"baseline": baseline_label or "—", "other": other_label or "—"}


def _label(row: VerdictRow | None, build_id: int) -> str:
    cells = row.cells if row else []
    return next((cell.label for cell in cells if cell.column.build_id == build_id and cell.label), "")


def _wait_change(clients: int, column: ComparisonColumn, section: EvidenceSection) -> str:
    if not _against_baseline(column, section):  # the evidence's changes are each line's against the baseline
        return ""
    changes = next((changes for other, changes in section.changes if other.build_id == column.build_id), [])
    change = next((change for change in changes if change.clients == clients), None)
    if change is None or round(change.change_points, 1) == 0:  # the same share on both sides explains nothing
        return ""
    event = _("on CPU") if change.wait_event_type == "CPU" else f"{change.wait_event_type}: {change.wait_event}"
    return _("wait event %(event)s %(change)+.1f points") % {"event": event, "change": change.change_points}


def _perf_change(clients: int, column: ComparisonColumn, section: EvidenceSection) -> str:
    if not _against_baseline(column, section):
        return ""
    perf = section.perf
    if perf is None or perf.clients != clients:
        return ""
    differential = next((diff for diff in perf.differentials if diff.other.build_id == column.build_id), None)
    if differential is None or not differential.rows:
        return ""
    top = differential.rows[0]  # a share is a fraction of the samples: 100 x its change is in points
    return _("perf: %(function)s %(change)+.1f points of samples") % {
        "function": top.function,
        "change": 100 * top.change,
    }


def _against_baseline(column: ComparisonColumn, section: EvidenceSection) -> bool:
    """Whether the comparison's reference is the baseline, against which the evidence measured each line's change."""
    return any(other.is_baseline and other.build_id == column.reference_line_id for other in section.columns)
