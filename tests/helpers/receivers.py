"""Real receivers of alerts on loopback, as a team's services would take them: a JSON webhook (a small HTTP server
that records each POST, as apprise's ``json://`` sends it) and an SMTP server (aiosmtpd, which records each mail,
as apprise's ``mailto://`` sends it). Each can be stopped and started again on the same port, to play a service
that is down for a while.
"""

from __future__ import annotations

import email
import email.policy
import json
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from tests.helpers.server import free_port

__all__ = ["Mail", "SmtpReceiver", "WebhookReceiver", "free_port", "wait_until"]


def wait_until(check: Callable[[], bool], *, timeout_s: float, every_s: float = 0.1) -> bool:
    """Poll ``check`` until it is true (True) or ``timeout_s`` passes (False)."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(every_s)
    return check()


class WebhookReceiver:
    """An HTTP server on 127.0.0.1 that records every JSON POST: ``(path, body)`` in :attr:`posts`, with the
    monotonic time it arrived in :attr:`times`. :attr:`status` is the answer (set 500 to refuse).

    While it is not started (made, or stopped) it holds its port with a bound socket that does not listen, so a
    sender's connection is refused, as by a service that is down, and no other test's server (pytest-xdist runs
    several) that asks for a free port is given it meanwhile and answers in its place (a bind to port 0 passes over
    a bound port; one that names the port with SO_REUSEADDR could still take it, and no test does)."""

    def __init__(self, port: int | None = None) -> None:
        self._held: socket.socket | None = None
        if port is None:
            self._held = _bound(0)
            port = int(self._held.getsockname()[1])
        self.port = port
        self.posts: list[tuple[str, dict[str, Any]]] = []
        self.times: list[float] = []
        self.status = 200
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None

    @property
    def url(self) -> str:
        """The apprise target: ``json://127.0.0.1:PORT/hook``."""
        return f"json://127.0.0.1:{self.port}/hook"

    def start(self) -> WebhookReceiver:
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                if receiver.status == 200:
                    with receiver._lock:
                        receiver.posts.append((self.path, body))
                        receiver.times.append(time.monotonic())
                self.send_response(receiver.status)
                self.end_headers()

            def log_message(self, *_args: Any) -> None:
                return

        if self._held is not None:  # the port it holds: listened on, with no moment another server could take it
            served = ThreadingHTTPServer(("127.0.0.1", self.port), Handler, bind_and_activate=False)
            served.socket.close()
            served.socket, self._held = self._held, None
            served.server_address = served.socket.getsockname()
            served.server_name, served.server_port = "127.0.0.1", self.port
            served.server_activate()
            self._server = served
        else:
            for _ in range(50):  # a port just closed may take a moment to be free again
                try:
                    self._server = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
                    break
                except OSError:
                    time.sleep(0.1)
            else:
                raise OSError(f"port {self.port} stays taken")
        threading.Thread(target=self._server.serve_forever, name="webhook-receiver", daemon=True).start()
        return self

    def stop(self) -> None:
        """Stop serving and hold the port again (refused connections until the next :meth:`start`)."""
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
            try:
                self._held = _bound(self.port)
            except OSError:  # taken in the instant between: start() waits for it as before
                self._held = None

    def close(self) -> None:
        """Stop, and let the port go."""
        self.stop()
        if self._held is not None:
            self._held.close()
            self._held = None

    def titles(self) -> list[str]:
        with self._lock:
            return [body.get("title", "") for _, body in self.posts]

    def messages(self) -> list[dict[str, Any]]:
        with self._lock:
            return [body for _, body in self.posts]


def _bound(port: int) -> socket.socket:
    """A TCP socket bound to 127.0.0.1:``port`` (0: any free one) and not listening: connections to it are refused."""
    held = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    held.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as ThreadingHTTPServer binds
    try:
        held.bind(("127.0.0.1", port))
    except OSError:
        held.close()
        raise
    return held


@dataclass(frozen=True)
class Mail:
    sender: str
    recipients: tuple[str, ...]
    subject: str
    body: str


class SmtpReceiver:
    """aiosmtpd's SMTP server on 127.0.0.1, recording each mail (subject and text decoded) in :attr:`mails`."""

    def __init__(self, port: int | None = None) -> None:
        self.port = port or free_port()
        self.mails: list[Mail] = []
        self._lock = threading.Lock()
        self._controller: Any = None

    def url(self, *, to: str = "team@example.com", sender: str = "rlmon@example.com") -> str:
        """The apprise target for this server (plain SMTP, as on a relay inside the team's network)."""
        return f"mailto://127.0.0.1:{self.port}?from={sender}&to={to}&mode=insecure"

    def start(self) -> SmtpReceiver:
        from aiosmtpd.controller import Controller

        receiver = self

        class Handler:
            async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
                parsed = email.message_from_bytes(envelope.content, policy=email.policy.default)
                body = parsed.get_body(preferencelist=("plain",))
                text = body.get_content() if body is not None else ""
                mail = Mail(
                    sender=envelope.mail_from,
                    recipients=tuple(envelope.rcpt_tos),
                    subject=str(parsed["subject"]),
                    body=text,
                )
                with receiver._lock:
                    receiver.mails.append(mail)
                return "250 OK"

        self._controller = Controller(Handler(), hostname="127.0.0.1", port=self.port, ready_timeout=10)
        self._controller.start()
        return self

    def stop(self) -> None:
        if self._controller is not None:
            self._controller.stop()
            self._controller = None

    def subjects(self) -> list[str]:
        with self._lock:
            return [mail.subject for mail in self.mails]
