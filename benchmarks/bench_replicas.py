"""Memory per app replica behind the deployment recipe's nginx (README, "Several replicas").

    python -m benchmarks.bench_replicas            # the demo root and a generated 20 x 2,000-step root
    python -m benchmarks.bench_replicas --quick    # the demo root only
    python -m benchmarks.bench_replicas --replicas 3 --json

For each root: N replicas (``streamlit run``, as deploy/rlmon@.service starts them: loopback, headless) share
one empty cache folder and one cookie secret; Debian's nginx runs deploy/nginx-rlmon.conf rendered for their
ports. The resident memory (RSS, the process and its children, from /proc) of every replica is read

1. once all answer ``/_stcore/health`` (idle: Streamlit and rlmon imported, no page opened);
2. after headless Chromium opened, through the proxy, the overview (``/``) and one experiment's page, each
   drawn (no running indicator, a chart on screen) and left 3 s to settle.

The proxy hashes the client address, so one replica serves every page of this one browser: the table says
which (nginx's access log records the upstream of each request), and the others show an idle replica's
memory. The generated root is tests/helpers/benchmark_root.py's (20 experiments x 2,000 steps x 150 keys).
Prints a markdown table on standard output, progress on standard error.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import re
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from benchmarks.bench_scaling import tree_rss_mb
from benchmarks.bench_vs_tensorboard import rlmon_command, rlmon_env
from tests.helpers import benchmark_root
from tests.helpers.server import CHROMIUM, CHROMIUM_ARGS, Server, free_port, serve_command

ROOT = Path(__file__).resolve().parent.parent
NGINX = Path("/usr/sbin/nginx")
DEMO_PAGE = "4b-e2-dapo-4b"
"""The demo's experiment ``4b/e2_dapo_4b``, by its page path."""
GENERATED_PAGE = benchmark_root.BIG_EXPERIMENT.replace("_", "-")
TIMEOUT_S = 300.0
TEMP_PATHS = ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")


def say(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def nginx_conf(folder: Path, *, listen: int, replica_ports: list[int]) -> Path:
    """deploy/nginx-rlmon.conf with these ports (one ``server`` line per replica), in a minimal nginx.conf whose
    files all live in ``folder``; the access log records each request's upstream."""
    recipe = (ROOT / "deploy" / "nginx-rlmon.conf").read_text().replace("listen 80;", f"listen 127.0.0.1:{listen};")
    template = re.search(r"^(\s*)server 127\.0\.0\.1:\d+ (.*);$", recipe, flags=re.MULTILINE)
    if template is None:
        raise SystemExit("deploy/nginx-rlmon.conf: no `server 127.0.0.1:PORT ...;` line in its upstream")
    servers = "\n".join(f"{template.group(1)}server 127.0.0.1:{port} {template.group(2)};" for port in replica_ports)
    recipe = re.sub(r"^\s*server 127\.0\.0\.1:\d+ .*;\n", "", recipe, flags=re.MULTILINE)
    recipe = recipe.replace("    keepalive", servers + "\n    keepalive", 1)
    (folder / "rlmon.conf").write_text(recipe)
    (folder / "nginx.conf").write_text(
        f"pid {folder}/nginx.pid;\nerror_log {folder}/error.log;\nworker_processes 1;\n"
        "events { worker_connections 256; }\nhttp {\n"
        "    log_format upstream '$request_uri $status $upstream_addr';\n"
        f"    access_log {folder}/access.log upstream;\n"
        + "".join(f"    {kind}_temp_path {folder}/{kind};\n" for kind in TEMP_PATHS)
        + f"    include {folder}/rlmon.conf;\n}}\n"
    )  # fmt: skip
    return folder / "nginx.conf"


@contextlib.contextmanager
def proxy(folder: Path, replica_ports: list[int]) -> Iterator[str]:
    """nginx on a free loopback port in front of the replicas; yields its URL once its health path answers."""
    if not NGINX.exists():
        raise SystemExit(f"{NGINX} not found: apt-get install nginx")
    port = free_port()
    conf = nginx_conf(folder, listen=port, replica_ports=replica_ports)
    process = subprocess.Popen([str(NGINX), "-c", str(conf), "-p", str(folder), "-g", "daemon off;"])
    url = f"http://127.0.0.1:{port}"
    try:
        wait_healthy(url, timeout_s=30)
        yield url
    finally:
        process.terminate()
        process.wait(timeout=10)


def wait_healthy(url: str, *, timeout_s: float) -> None:
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=5) as response:
                if response.read() == b"ok":
                    return
        except OSError:
            pass
        if time.monotonic() > deadline:
            raise SystemExit(f"{url} did not answer its health check in {timeout_s:.0f} s")
        time.sleep(0.2)


def wait_drawn(page: Any, *, text: str | None = None) -> None:
    """Until the page shows ``text`` (if given), a chart, and no running indicator; then 3 s to settle."""
    if text is not None:
        page.get_by_text(text).first.wait_for(timeout=TIMEOUT_S * 1000)
    page.locator('[data-testid="stVegaLiteChart"]').first.wait_for(timeout=TIMEOUT_S * 1000)
    deadline = time.monotonic() + TIMEOUT_S
    while page.locator('[data-testid="stStatusWidget"]').count() and time.monotonic() < deadline:
        page.wait_for_timeout(200)
    page.wait_for_timeout(3000)
    if page.locator('[data-testid="stException"]').count():
        raise SystemExit(f"the page {page.url} shows an exception")


def measure(name: str, log_root: Path, experiment_page: str, work: Path, *, replicas: int) -> list[dict[str, Any]]:
    """RSS of every replica, idle and after the overview and one experiment page (see the module docstring)."""
    from playwright.sync_api import sync_playwright

    cache = work / f"cache-{name}"
    cache.mkdir()
    env = rlmon_env(log_root, cache) | {
        "STREAMLIT_SERVER_ENABLE_XSRF_PROTECTION": "true",
        "STREAMLIT_SERVER_COOKIE_SECRET": "one secret shared by every replica",
    }
    with contextlib.ExitStack() as stack:
        servers: list[Server] = []
        for index in range(replicas):
            port = free_port()
            log_path = work / f"server-{name}-{index}.log"
            servers.append(
                stack.enter_context(
                    serve_command(f"replica {index}", rlmon_command(port), port=port, env=env, log_path=log_path)
                )
            )
        for server in servers:
            wait_healthy(server.url, timeout_s=120)
        idle = [tree_rss_mb(server.process.pid) for server in servers]
        folder = work / f"nginx-{name}"
        folder.mkdir()
        url = stack.enter_context(proxy(folder, [int(server.url.rsplit(":", 1)[1]) for server in servers]))
        say(f"{name}: {replicas} replicas and nginx up; opening the overview and {experiment_page} through {url}")
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
            page = browser.new_context(viewport={"width": 1500, "height": 1100}, locale="en-US").new_page()
            page.goto(url + "/", timeout=TIMEOUT_S * 1000)
            wait_drawn(page)
            page.goto(f"{url}/{experiment_page}", timeout=TIMEOUT_S * 1000)
            wait_drawn(page, text="Training curves")
            after = [tree_rss_mb(server.process.pid) for server in servers]
            browser.close()
        upstreams = {line.split()[-1] for line in (folder / "access.log").read_text().splitlines() if line.strip()}
    rows = []
    for index, server in enumerate(servers):
        served = server.url.removeprefix("http://") in upstreams
        rows.append({"root": name, "replica": index, "served_pages": served, "idle_rss_mb": idle[index],
                     "rss_mb": after[index]})  # fmt: skip
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="the demo root only")
    parser.add_argument("--replicas", type=int, default=2)
    parser.add_argument("--json", action="store_true", help="print JSON rows as well")
    args = parser.parse_args()
    from rlmon.demo import write_demo_root

    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="rlmon-replicas-") as temporary:
        work = Path(temporary)
        demo = write_demo_root(work / "demo")
        rows += measure("demo", demo, DEMO_PAGE, work, replicas=args.replicas)
        if not args.quick:
            generated = work / "generated"
            say(f"writing {benchmark_root.EXPERIMENTS} x {benchmark_root.STEPS} steps x {benchmark_root.KEYS} keys ...")
            benchmark_root.write_benchmark_root(generated)
            rows += measure("generated", generated, GENERATED_PAGE, work, replicas=args.replicas)
    print("| root | replica | served the pages | RSS idle (MB) | RSS after overview + experiment page (MB) |")
    print("|---|---|---|---|---|")
    for row in rows:
        print(f"| {row['root']} | {row['replica']} | {'yes' if row['served_pages'] else 'no'} | "
              f"{row['idle_rss_mb']:.0f} | {row['rss_mb']:.0f} |")  # fmt: skip
    if args.json:
        print(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
