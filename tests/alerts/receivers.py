"""Local servers that alerts are sent to in the tests: an SMTP server that keeps each message, and an HTTP receiver
that keeps each request (and answers with the status, or the redirect, a test sets). Both on loopback, in threads."""

from __future__ import annotations

import email
import email.policy
import json
import socketserver
import threading
from dataclasses import dataclass, field
from email.message import Message
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Mailbox:
    messages: list[Message] = field(default_factory=list)
    recipients: list[list[str]] = field(default_factory=list)


class _SmtpHandler(socketserver.StreamRequestHandler):
    """Enough of SMTP (RFC 5321) for smtplib: EHLO/HELO, MAIL, RCPT, DATA, RSET, NOOP, QUIT."""

    def handle(self) -> None:
        mailbox: Mailbox = self.server.mailbox  # type: ignore[attr-defined]
        recipients: list[str] = []
        self._reply("220 localhost test SMTP")
        while line := self.rfile.readline():
            verb = line.decode().strip().split(" ", 1)[0].upper()
            if verb in ("EHLO", "HELO"):
                self._reply("250 localhost")
            elif verb == "RCPT":
                recipients.append(line.decode().split(":", 1)[1].strip().strip("<>"))
                self._reply("250 OK")
            elif verb == "DATA":
                self._reply("354 end with <CR><LF>.<CR><LF>")
                mailbox.messages.append(email.message_from_bytes(self._data(), policy=email.policy.default))
                mailbox.recipients.append(recipients)
                recipients = []
                self._reply("250 OK")
            elif verb == "QUIT":
                self._reply("221 bye")
                return
            else:  # MAIL, RSET, NOOP
                self._reply("250 OK")

    def _data(self) -> bytes:
        lines = []
        while (line := self.rfile.readline()) not in (b".\r\n", b""):
            lines.append(line[1:] if line.startswith(b"..") else line)
        return b"".join(lines)

    def _reply(self, text: str) -> None:
        self.wfile.write(text.encode() + b"\r\n")


class SmtpServer(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _SmtpHandler)
        self.mailbox = Mailbox()

    @property
    def port(self) -> int:
        return self.server_address[1]


@dataclass
class Received:
    path: str
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)


class _HttpHandler(BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        server: HttpReceiver = self.server  # type: ignore[assignment]
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        server.received.append(Received(self.path, dict(self.headers.items()), body))
        self.send_response(server.status)
        if server.redirect_to:
            self.send_header("Location", server.redirect_to)
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"ok")

    def log_message(self, *args: Any) -> None:
        pass


class HttpReceiver(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _HttpHandler)
        self.received: list[Received] = []
        self.status = 200
        self.redirect_to = ""

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/hook"


def serving(server: socketserver.BaseServer) -> threading.Thread:
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    return thread
