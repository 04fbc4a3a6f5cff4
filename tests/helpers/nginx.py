"""The deployment recipe's proxy (deploy/nginx-rlmon.conf) in front of test replicas: its config with the test's
ports inside a minimal nginx.conf whose files all live in the test's folder, nginx started and stopped, and the
access log read back (which replica served each request)."""

from __future__ import annotations

import contextlib
import re
import subprocess
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.helpers.paths import REPO_ROOT
from tests.helpers.server import stop, wait_for_health

NGINX = Path("/usr/sbin/nginx")


def require_nginx() -> None:
    """Skip, with the reason, without Debian's nginx."""
    if not NGINX.exists():
        pytest.skip(f"{NGINX} not found (CI installs Debian's nginx with apt)")


def render_nginx_conf(folder: Path, *, listen: int, replica_ports: list[int]) -> Path:
    """deploy/nginx-rlmon.conf with this test's ports, inside a minimal nginx.conf whose files are all in
    ``folder``. The access log names the replica (upstream) that answered each request."""
    recipe = (REPO_ROOT / "deploy" / "nginx-rlmon.conf").read_text()
    assert "listen 80;" in recipe
    recipe = recipe.replace("listen 80;", f"listen 127.0.0.1:{listen};")
    servers = re.findall(r"^\s*server 127\.0\.0\.1:\d+ .*;$", recipe, flags=re.MULTILINE)
    assert len(servers) == 2, servers
    for line, port in zip(servers, replica_ports, strict=True):
        recipe = recipe.replace(line, re.sub(r":\d+ ", f":{port} ", line))
    (folder / "rlmon.conf").write_text(recipe)
    main = f"""
pid {folder}/nginx.pid;
error_log {folder}/error.log info;
worker_processes 1;
events {{ worker_connections 256; }}
http {{
    log_format upstream '$remote_addr "$request" $status upstream=$upstream_addr';
    access_log {folder}/access.log upstream;
    client_body_temp_path {folder}/body;
    proxy_temp_path {folder}/proxy;
    fastcgi_temp_path {folder}/fastcgi;
    uwsgi_temp_path {folder}/uwsgi;
    scgi_temp_path {folder}/scgi;
    include {folder}/rlmon.conf;
}}
"""
    (folder / "nginx.conf").write_text(main)
    return folder / "nginx.conf"


def health(url: str) -> tuple[int, str]:
    with urllib.request.urlopen(f"{url}/_stcore/health", timeout=5) as response:
        return response.status, response.read().decode()


@contextlib.contextmanager
def run_nginx(folder: Path, *, listen: int, replica_ports: list[int]) -> Iterator[str]:
    """nginx with the recipe in front of ``replica_ports``, listening on ``listen``; yields the proxy's URL once its
    health check answers ``ok``. Skips without nginx."""
    require_nginx()
    conf = render_nginx_conf(folder, listen=listen, replica_ports=replica_ports)
    checked = subprocess.run(
        [str(NGINX), "-t", "-c", str(conf), "-p", str(folder)], capture_output=True, text=True, timeout=30
    )
    assert checked.returncode == 0, checked.stderr
    nginx = subprocess.Popen(
        [str(NGINX), "-c", str(conf), "-p", str(folder), "-g", "daemon off;"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    proxy = f"http://127.0.0.1:{listen}"
    try:
        assert wait_for_health(nginx, proxy, timeout_s=20), (folder / "error.log").read_text()
        assert health(proxy) == (200, "ok")
        yield proxy
    finally:
        stop(nginx)


def served_by(folder: Path) -> list[tuple[str, int, str]]:
    """(request line, status, replica ``127.0.0.1:port``) of each request nginx logged, in order. A request is logged
    when it ends (a websocket when it closes); when nginx tried several replicas, the last one answered."""
    access = (folder / "access.log").read_text()
    return [
        (match.group(1), int(match.group(2)), match.group(3).split(",")[-1].strip())
        for match in re.finditer(r'"([^"]*)" (\d{3}) upstream=(\S+(?:, \S+)*)$', access, flags=re.MULTILINE)
    ]
