"""The evidence that explains each difference of a report: for every comparison and client level whose ratio is a
difference (a verdict of faster or slower, or a published ratio), what the collectors saw there: the bottleneck of
both sides and, where the other side is the baseline (against which the evidence measured each line), the wait event
whose share moved most and perf's function that grew most; for every one that the runs could not call (can't tell,
too few runs), why: their spread and the smallest difference so many runs a side can call
(studies/results/power.py), never "nothing to explain" beside a ratio nobody could call."""

from __future__ import annotations

from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from benchdash.studies.evidence.page import EvidenceSection, VerdictRow
from benchdash.studies.models import Study
from benchdash.studies.results.compare import Point
from benchdash.studies.results.comparisons import ComparisonColumn
from benchdash.studies.results.power import uncalled_cell
from benchdash.studies.results.tables import Cell, RatioCell, ScenarioTable
from benchdash.studies.results.uncertainty import Verdict

DIFFERENCES = (Verdict.FASTER, Verdict.SLOWER)
UNCALLED = (Verdict.CANT_TELL, Verdict.TOO_FEW_RUNS)


def difference_evidence(study: Study, table: ScenarioTable, section: EvidenceSection) -> list[str]:
    """A line per difference; a published study's figures come with no evidence, which its line says."""
    if study.is_published:
        return [_("Published figures: benchdash collected no evidence; the source's account is in the conclusions.")]
    lines = []
    for row in table.rows:
        by_line = {cell.column.build_id: cell.point for cell in row.cells}
        for cell in row.compared_cells:
            if cell.point is not None and cell.point.verdict in DIFFERENCES:
                lines.append(_difference_line(row.clients, cell, section))
            elif cell.point is not None and _not_called(cell.point, study.threshold):
                reference = by_line.get(cell.column.reference_line_id)
                lines.append(_uncalled_line(study, row.clients, cell, reference))
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
    return f"{_cell_head(clients, cell)}. {evidence}."


def _not_called(point: Point, threshold: float) -> bool:
    """Can't tell, or too few runs; an interval wholly within the threshold has called it: no such difference."""
    within = point.interval is not None and point.interval.within(threshold)
    return point.verdict in UNCALLED and not within


def _uncalled_line(study: Study, clients: int, cell: RatioCell, reference: Point | None) -> str:
    """Why a cell has no verdict: the spread of the runs (its own and its comparison's reference cell's) and the
    smallest difference so many runs can call."""
    point = cell.point
    figures = None
    if point is not None and reference is not None:
        confidence = study.design.confidence(len(point.runs))
        figures = uncalled_cell(point.runs, reference.runs, study.threshold, confidence)
    if figures is None:
        reason = _("no runs to tell it from")
    elif figures.cv is None or figures.smallest_callable is None:
        reason = _("one run a side has no spread and draws no interval")
    else:
        reason = _("the runs spread %(spread)s; %(runs)s a side cannot call less than %(smallest)s") % {
            "spread": f"{figures.cv:.1%}",
            "runs": figures.runs,
            "smallest": f"{figures.smallest_callable:.1%}",
        }
    return f"{_cell_head(clients, cell)}. {reason}."


def _cell_head(clients: int, cell: RatioCell) -> str:
    head = ngettext("%(clients)s client, %(build)s: %(ratio)s", "%(clients)s clients, %(build)s: %(ratio)s", clients)
    return head % {"clients": clients, "build": cell.column.title, "ratio": ratio_text(cell)}


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
