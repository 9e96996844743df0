"""The webhook's JSON and its signature, the e-mail's subject (pure)."""

import hashlib
import hmac
from dataclasses import replace

from benchdash.alerts.messages import (
    ChangeFacts,
    VerdictFacts,
    change_message,
    change_segments,
    signature,
    verdict_message,
    webhook_payload,
)

LINK = "http://benchdash.example.org/changes/7/"
STEP = ChangeFacts("pgecons-reference · 16 clients", "17.2", "17.3", 1000.0, 920.0, "-8.0%", "99.9%", False)


def test_a_change_alert_names_the_series_both_sides_the_size_and_its_confidence():
    message = change_message(STEP, LINK)
    assert message.subject == "pgecons-reference · 16 clients: slowdown of -8.0% between 17.2 and 17.3"
    assert "Before: 17.2, level 1000.0" in message.text
    assert "After: 17.3, level 920.0" in message.text
    assert "Change -8.0%, confidence 99.9%" in message.text
    assert message.text.endswith(LINK)


def test_an_improvement_alerts_as_an_improvement():
    faster = ChangeFacts("s", "17.2", "17.3", 920.0, 1000.0, "+8.7%", "99.9%", True)
    message = change_message(faster, LINK)
    assert "improvement of +8.7%" in message.subject
    assert webhook_payload(message)["themeColor"] == "2EB67D"


def test_a_verdict_alert_gives_each_verdict_with_its_sides_ratio_and_interval():
    slower = VerdictFacts("PostgreSQL 17.0", "PostgreSQL 16.0", "pgecons-update", 8, 80, 0.78, 0.82, 0.95, False)
    message = verdict_message("2025 yearly", [slower], LINK)
    assert message.subject == "2025 yearly: 1 slower, 0 faster"
    assert (
        "PostgreSQL 17.0 against PostgreSQL 16.0, pgecons-update at 8 clients: 80% (78.0%-82.0% at 95% confidence), "
        "slower" in message.text
    )
    assert not message.improvement


def test_the_webhook_json_carries_slacks_text_and_teams_message_card_fields():
    payload = webhook_payload(change_message(STEP, LINK))
    assert payload["text"].startswith("pgecons-reference · 16 clients: slowdown")
    assert (payload["@type"], payload["@context"]) == ("MessageCard", "https://schema.org/extensions")
    assert payload["title"] == payload["summary"] == change_message(STEP, LINK).subject
    assert payload["potentialAction"][0]["targets"][0]["uri"] == LINK
    assert "Confidence" not in payload["sections"][0]["text"] and "17.3" in payload["sections"][0]["text"]


def test_the_signature_is_the_hmac_sha256_of_the_body_under_the_secret():
    body = b'{"text": "x"}'
    expected = hmac.new(b"secret", body, hashlib.sha256).hexdigest()
    assert signature("secret", body) == f"sha256={expected}"


def test_a_change_alert_gives_the_interval_of_after_over_before_and_its_confidence():
    message = change_message(replace(STEP, interval=(0.91, 0.93, 0.95)), LINK)
    assert "After / before: 91.0%-93.0% at 95% confidence" in message.text
    assert "too few runs" in change_message(STEP, LINK).text


def test_the_segments_of_a_change_end_at_the_series_other_changes():
    values = [1.0, 1.0, 2.0, 2.0, 2.0, 3.0, 3.0]
    assert change_segments(values, 2, [2, 5]) == ([1.0, 1.0], [2.0, 2.0, 2.0])
    assert change_segments(values, 5, [2, 5]) == ([2.0, 2.0, 2.0], [3.0, 3.0])
