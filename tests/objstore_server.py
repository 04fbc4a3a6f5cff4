"""A real S3 protocol server on loopback for the object-storage tests: moto's ``ThreadedMotoServer`` whose WSGI
app is wrapped to record every request (method, key, Range header, status, body bytes sent).

The server runs in the test process (moto's state is this process's), so a test can also turn on moto's IAM
checks (:func:`moto.core.authorization.enable_iam_authentication`) to see access denied.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote

from moto.moto_server.threaded_moto_server import ThreadedMotoServer
from moto.moto_server.werkzeug_app import DomainDispatcherApplication, create_backend_app
from werkzeug.serving import make_server

__all__ = ["Request", "S3Server"]


@dataclass(frozen=True)
class Request:
    method: str
    path: str
    """``/bucket/key`` (unquoted), without the query."""
    query: str
    range: str | None
    """The ``Range`` header as sent, e.g. ``bytes=4096-1052671``."""
    status: int
    sent: int
    """Body bytes the server sent back."""


class S3Server(ThreadedMotoServer):
    """moto's threaded server on 127.0.0.1 with a request log (:attr:`requests`)."""

    def __init__(self, port: int = 0) -> None:
        super().__init__(ip_address="127.0.0.1", port=port, verbose=False)
        self.requests: list[Request] = []
        self._record_lock = threading.Lock()

    @property
    def endpoint(self) -> str:
        host, port = self.get_host_and_port()
        return f"http://{host}:{port}"

    def _server_entry(self) -> None:
        app = DomainDispatcherApplication(create_backend_app)
        self._server = make_server(self._ip_address, self._port, self._recording(app), threaded=True)
        self._port = self._server.server_port  # a restart comes back on the same port
        self._server_ready_event.set()
        self._server.serve_forever()

    def _recording(self, app: Callable[..., Iterable[bytes]]) -> Callable[..., Iterator[bytes]]:
        def wrapped(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterator[bytes]:
            status: list[int] = []

            def recording_start(code: str, headers: Any, *args: Any) -> Any:
                status.append(int(code.split()[0]))
                return start_response(code, headers, *args)

            sent = 0
            try:
                for chunk in app(environ, recording_start):
                    sent += len(chunk)
                    yield chunk
            finally:
                with self._record_lock:
                    self.requests.append(
                        Request(
                            method=environ["REQUEST_METHOD"],
                            path=unquote(environ.get("PATH_INFO", "")),
                            query=environ.get("QUERY_STRING", ""),
                            range=environ.get("HTTP_RANGE"),
                            status=status[0] if status else 0,
                            sent=sent,
                        )
                    )

        return wrapped

    def take_requests(self) -> list[Request]:
        """The requests recorded since the last call."""
        with self._record_lock:
            taken, self.requests = self.requests, []
        return taken
