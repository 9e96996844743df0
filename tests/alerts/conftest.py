from collections.abc import Iterator

import pytest
from django.test import override_settings

from tests.alerts.receivers import HttpReceiver, SmtpServer, serving


@pytest.fixture
def smtp_server() -> Iterator[SmtpServer]:
    """A local SMTP server, and Django's SMTP backend pointed at it."""
    server = SmtpServer()
    serving(server)
    smtp = "django.core.mail.backends.smtp.EmailBackend"
    with override_settings(EMAIL_BACKEND=smtp, EMAIL_HOST="127.0.0.1", EMAIL_PORT=server.port, EMAIL_USE_TLS=False):
        yield server
    server.shutdown()
    server.server_close()


@pytest.fixture
def http_receiver() -> Iterator[HttpReceiver]:
    server = HttpReceiver()
    serving(server)
    yield server
    server.shutdown()
    server.server_close()


@pytest.fixture(autouse=True)
def in_english() -> Iterator[None]:
    """Alerts are written in the site's language (Japanese by default); these tests read them in English, and
    test_alert_in_japanese.py in Japanese."""
    from django.utils import translation

    with translation.override("en"):
        yield
