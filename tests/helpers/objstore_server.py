"""A real S3 protocol server on loopback for the object-storage tests: moto's ``ThreadedMotoServer`` whose WSGI
app is wrapped to record every request (method, key, Range header, status, body bytes sent).

The server runs in the test process (moto's state is this process's), so a test can also turn on moto's IAM
checks (:func:`moto.core.authorization.enable_iam_authentication`) to see access denied.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import unquote

from moto.moto_server.threaded_moto_server import ThreadedMotoServer
from moto.moto_server.werkzeug_app import DomainDispatcherApplication, create_backend_app
from werkzeug.serving import make_server

__all__ = ["Request", "S3Server", "aws_environment", "step_lines"]


def aws_environment(server: S3Server, home: Path) -> dict[str, str]:
    """Credentials and endpoint in the standard environment variables; the machine's ~/.aws is not read."""
    return {
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
        "AWS_DEFAULT_REGION": "us-east-1",
        "AWS_REGION": "us-east-1",
        "AWS_ENDPOINT_URL": server.endpoint,
        "AWS_CONFIG_FILE": str(home / "no-aws-config"),
        "AWS_SHARED_CREDENTIALS_FILE": str(home / "no-aws-credentials"),
        # never ask an instance metadata service for credentials: the tests reach only loopback addresses
        "AWS_EC2_METADATA_DISABLED": "true",
    }


def step_lines(first: int, last: int, *, score: float = 0.5) -> bytes:
    """verl console step lines; steps of the same digit count and one score give lines of one length."""
    return b"".join(
        f"(TaskRunner pid=7) step:{step} - critic/score/mean:{score} - actor/pg_loss:0.25\n".encode()
        for step in range(first, last + 1)
    )


@dataclass
class Request:
    method: str
    path: str
    """``/bucket/key`` (unquoted), without the query."""
    query: str
    range: str | None
    """The ``Range`` header as sent, e.g. ``bytes=4096-1052671``."""
    status: int = 0
    sent: int = 0
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
            # Logged when it arrives and counted before each chunk is written: a client that has read the whole
            # answer finds the request complete in the log.
            request = Request(
                method=environ["REQUEST_METHOD"],
                path=unquote(environ.get("PATH_INFO", "")),
                query=environ.get("QUERY_STRING", ""),
                range=environ.get("HTTP_RANGE"),
            )
            with self._record_lock:
                self.requests.append(request)

            def recording_start(code: str, headers: Any, *args: Any) -> Any:
                request.status = int(code.split()[0])
                return start_response(code, headers, *args)

            for chunk in app(environ, recording_start):
                request.sent += len(chunk)
                yield chunk

        return wrapped

    def take_requests(self) -> list[Request]:
        """The requests recorded since the last call."""
        with self._record_lock:
            taken, self.requests = self.requests, []
        return taken
