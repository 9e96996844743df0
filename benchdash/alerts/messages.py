"""What an alert says: its subject, its text (e-mail body and Slack's `text`), the webhook's JSON (Slack's `text`,
Teams' MessageCard fields) and the signature of that JSON. Pure functions over plain data."""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from django.utils.translation import gettext as _

SIGNATURE_HEADER = "X-Benchdash-Signature"
_SLOWER_COLOUR, _FASTER_COLOUR = "D13438", "2EB67D"


@dataclass(frozen=True)
class ChangeFacts:
    series_title: str
    before: str
    after: str
    level_before: float
    level_after: float
    size_percent: str
    confidence_percent: str
    improvement: bool
    # The interval of after / before from the runs of the segments on either side (low, high, its confidence).
    interval: tuple[float, float, float] | None = None


@dataclass(frozen=True)
class VerdictFacts:
    side: str
    reference: str
    scenario: str
    clients: int
    ratio_percent: int
    low: float
    high: float
    confidence: float
    faster: bool


@dataclass(frozen=True)
class AlertMessage:
    subject: str
    lines: tuple[str, ...]
    link: str
    improvement: bool

    @property
    def text(self) -> str:
        return "\n".join((*self.lines, self.link))


def change_message(facts: ChangeFacts, link: str) -> AlertMessage:
    """A new change point: the series, both sides with their levels, the size and its confidence."""
    direction = _("improvement") if facts.improvement else _("slowdown")
    subject = _("%(series)s: %(direction)s of %(size)s between %(before)s and %(after)s") % {
        "series": facts.series_title,
        "direction": direction,
        "size": facts.size_percent,
        "before": facts.before,
        "after": facts.after,
    }
    lines = (
        subject,
        _("Before: %(side)s, level %(level).1f") % {"side": facts.before, "level": facts.level_before},
        _("After: %(side)s, level %(level).1f") % {"side": facts.after, "level": facts.level_after},
        _("Change %(size)s, confidence %(confidence)s")
        % {"size": facts.size_percent, "confidence": facts.confidence_percent},
        _interval_line(facts.interval),
    )
    return AlertMessage(subject, lines, link, facts.improvement)


def _interval_line(interval: tuple[float, float, float] | None) -> str:
    if interval is None:
        return _("After / before: too few runs for an interval")
    low, high, confidence = interval
    return _("After / before: %(low).1f%%-%(high).1f%% at %(confidence).0f%% confidence") % {
        "low": low * 100,
        "high": high * 100,
        "confidence": confidence * 100,
    }


def change_segments(values: Sequence[float], index: int, boundaries: Sequence[int]) -> tuple[list[float], list[float]]:
    """The values on either side of the change at `index`, each side up to the series' next change (`boundaries`:
    the indexes of its changes) or its end."""
    start = max((at for at in boundaries if at < index), default=0)
    end = min((at for at in boundaries if at > index), default=len(values))
    return list(values[start:index]), list(values[index:end])


def verdict_message(study_title: str, verdicts: Sequence[VerdictFacts], link: str) -> AlertMessage:
    """An official study's faster and slower verdicts, one line each with both sides, ratio and interval."""
    slower = sum(1 for one in verdicts if not one.faster)
    subject = _("%(study)s: %(slower)d slower, %(faster)d faster") % {
        "study": study_title,
        "slower": slower,
        "faster": len(verdicts) - slower,
    }
    return AlertMessage(subject, (subject, *map(_verdict_line, verdicts)), link, slower == 0)


def _verdict_line(facts: VerdictFacts) -> str:
    verdict = _("faster") if facts.faster else _("slower")
    return _(
        "%(side)s against %(reference)s, %(scenario)s at %(clients)d clients: %(ratio)d%% (%(low).1f%%-%(high).1f%% "
        "at %(confidence).0f%% confidence), %(verdict)s"
    ) % {
        "side": facts.side,
        "reference": facts.reference,
        "scenario": facts.scenario,
        "clients": facts.clients,
        "ratio": facts.ratio_percent,
        "low": facts.low * 100,
        "high": facts.high * 100,
        "confidence": facts.confidence * 100,
        "verdict": verdict,
    }


def webhook_payload(message: AlertMessage) -> dict[str, Any]:
    """JSON that Slack (`text`) and Teams (a MessageCard: `@type`, `summary`, `title`, `sections`,
    `potentialAction`) both accept."""
    return {
        "text": message.text,
        "@type": "MessageCard",
        "@context": "https://schema.org/extensions",
        "summary": message.subject,
        "title": message.subject,
        "themeColor": _FASTER_COLOUR if message.improvement else _SLOWER_COLOUR,
        "sections": [{"text": "\n\n".join(message.lines[1:])}],
        "potentialAction": [
            {"@type": "OpenUri", "name": _("Open the comparison"), "targets": [{"os": "default", "uri": message.link}]}
        ],
        "link": message.link,
        "improvement": message.improvement,
    }


def signature(secret: str, body: bytes) -> str:
    """The header's value: sha256=<hex HMAC-SHA256 of the body under the shared secret>."""
    return "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()
