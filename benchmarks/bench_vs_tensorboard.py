"""rlmon and TensorBoard side by side: the same data, the same machine, the same headless Chromium, in one run.

    python -m benchmarks.bench_vs_tensorboard                      # 20 x 2,000 steps x 150 keys, 3 repeats
    python -m benchmarks.bench_vs_tensorboard --experiments 3 --steps 300 --keys 40 --repeats 1
    python -m benchmarks.bench_vs_tensorboard --data /tmp/bench-data --json   # keep/reuse the data; JSON too

Data. A root of ``--experiments`` verl console logs of ``--steps`` steps x ``--keys`` keys, written by
tests/helpers/benchmark_root.py at these sizes, and the same numbers again as
TensorBoard event files, one run folder per experiment, one scalar event per key and step (verl's TensorBoard
logger calls ``add_scalar`` per key), written by TensorBoard's own ``EventFileWriter`` (benchmarks/tb_events.py,
run with the Python of TensorBoard's virtual environment). Both files include the validation key the generator
adds every 25 steps. ``--data DIR`` keeps them in DIR (``logs/``, ``tensorboard/``) and reuses them next time;
``--keep`` keeps a temporary copy and prints where.

TensorBoard is a peer, not a dependency of rlmon: the script makes a virtual environment (``--tb-venv``,
default /tmp/rlmon-tb-venv) and ``pip install tensorboard`` into it. If that fails it says why and measures
rlmon alone. TensorBoard is served as ``tensorboard --logdir DIR --host 127.0.0.1 --port P --load_fast=true``
(the Rust data server, ``tensorboard-data-server``), with its defaults otherwise: it keeps at most 1,000 points
per scalar series (reservoir sampling) where rlmon sends at most 2,000 per chart line, and its page does not
reload data on its own (see below). rlmon is served as ``streamlit run streamlit_app.py --server.headless
true`` on a loopback port with ``RLMON_LOG_ROOT`` = the log root and ``RLMON_CACHE_DIR`` = a new empty folder
for every start.

Browser. Playwright drives Debian's Chromium (/usr/bin/chromium, headless, the flags of the browser tests): one
browser for the whole run, a new context (empty cache and storage, 1500 x 1100 px, en-US) for every
measurement. Clocks are the script's (``time.perf_counter``) unless said otherwise; "drawn" is checked every
50 ms (rlmon: ``page.wait_for_function`` in the page; TensorBoard: ``page.evaluate`` from the script, which may
press reload in between), so a time is late by at most one poll plus one round trip.

What "the first screen is drawn" means:

- rlmon, the overview (``/``): rlmon draws the charts near the view and holds a placeholder the chart's size
  for each of the others (``[class*="st-key-rlmon_pending_"]``, see rlmon.app.charts.chart_grid); a chart element or a
  placeholder is a "slot". Drawn = the page holds at least as many slots as the settled overview does (counted
  once before the measured runs: the page structure is there), and every slot whose box meets the viewport (as
  for TensorBoard's cards below) is a ``[data-testid="stVegaLiteChart"]`` holding a Vega ``svg.marks`` with at
  least one data mark (``.role-mark > *``) or a ``canvas.marks`` of non-zero width. When no chart is in the
  first screen, this is the page's structure being there.
- TensorBoard, the Time Series dashboard (``/``): the runs table on the left lists all N runs
  (``runs-selector tb-data-table-content-row``); the ``scalar-card`` elements whose top is inside the viewport
  (the first visible cards; TensorBoard renders only cards near the viewport) are at least as many as in the
  settled page (counted before, like rlmon's), and each of them shows no loading spinner (``mat-spinner``),
  has a ``line-chart`` with its canvas (WebGL, drawn in a worker: its pixels cannot be read, so the last frame
  is not waited for) or SVG paths, and has a data table with one row per run whose Step column shows the last
  step: every run's series has arrived in full. TensorBoard 2.21 does not reload by itself (auto-reload is off
  by default), so a page opened while its data server is still reading shows the runs read so far and stays
  so: while the page is idle (no card's spinner) and shows fewer runs than there are or a series short of the
  last step, the script presses TensorBoard's reload button (``app-header-reload button``; idle = the button
  is not spinning, its first load is done and no visible card shows its spinner), at most once a second, as
  a quick person waiting for the data would. TensorBoard 2.21 can leave a card with the runs it had when it
  first drew, however often its reload button is pressed (seen here: one card of the first screen showing 6
  of 20 runs for minutes while the others showed 20). After ``STUCK_PRESSES`` presses in a row that changed
  no visible card's rows, the script reloads the page (``page.reload``), as the person would press F5. The
  presses and the page reloads are counted.

Measurements, repeated ``--repeats`` times, rlmon and TensorBoard alternating (which one goes first alternates
too); a fresh server process for every repeat:

1. Cold start -> first screen drawn: from just before the server process starts (rlmon: an empty cache
   folder, so every log is read) to the first screen drawn; the landing page is requested at once and again
   every 50 ms while the port refuses. The data files are in the OS page cache for both (written or read just
   before): this is a cold process, not a cold disk. For TensorBoard also the time to its first screen drawn
   with whatever runs had arrived (1a), the reload presses (1b) and the page reloads (1c).
2. First screen, server warm: the same server right after 1., a new context; from ``page.goto`` to drawn.
3. rlmon's experiment page opened by its URL (``/<slug>``, the page path rlmon gives the first experiment:
   rlmon.app.navigation.experiment_slug), server warm: from ``page.goto`` to its first screen drawn (as above, with the
   settled count of that page). Also recorded: the bytes of the websocket frames the page received until drawn
   and when the last of them arrived (3a; 2a for the overview; charts below the first screen keep arriving as
   rlmon draws the charts within a screen of the view).
3b. rlmon's experiment page, every chart drawn: after 3., the page is scrolled down one screen at a time, each
   time as soon as what is in view is drawn, and the time is taken (from the same ``page.goto``) when every slot
   of the page is a drawn chart. Also recorded: the websocket bytes until then, the SVG elements and the canvases
   of the charts.
4. rlmon's smoothing change: on the drawn overview, the smoothing control scrolled into view and every chart
   drawn (they are drawn as they near the view), then a click on "moving average" of the smoothing control
   (``.st-key-overview_smoothing``; EMA is the default) to the last change inside any chart container, seen by a
   MutationObserver or, for a canvas (painted again in place), by a paint call on it (``clearRect``, ``fill``,
   ``stroke``, ``fillText``, ``drawImage`` of its 2D context), once the running indicator is gone, the charts
   are drawn and nothing in them has changed for 1.5 s; the times are the page's (``event.timeStamp`` of the
   click, ``performance.now()`` of the change).
   That the lines changed is checked on the path lengths of SVG charts and a digest of the pixels of canvases.

Prints a markdown table (min and median of each measurement, the ratio rlmon/TensorBoard of the medians) on
standard output, progress on standard error; ``--json`` prints the samples as JSON after the table.
"""

from __future__ import annotations

import argparse
import atexit
import contextlib
import importlib.metadata
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from tests.helpers import benchmark_root
from tests.helpers.server import CHROMIUM, CHROMIUM_ARGS, Server, free_port, on_signal, serve_command, stop_all

ROOT = Path(__file__).resolve().parent.parent
APP = ROOT / "streamlit_app.py"
TB_EVENTS = Path(__file__).resolve().parent / "tb_events.py"
VIEWPORT = {"width": 1500, "height": 1100}
POLL_MS = 50
COLD_TIMEOUT_S = 1200.0
WARM_TIMEOUT_S = 600.0
QUIET_S = 1.5
DATA_META = "bench-data.json"

Tool = Literal["rlmon", "tb"]

# --------------------------------------------------------------------------------------- page predicates

# rlmon draws the charts near the view and holds a placeholder of the chart's size for the others
# (rlmon.app.charts.chart_grid):
# a "slot" is a chart element or such a placeholder. A slot is in view when its box meets the viewport, as for
# TensorBoard's cards below.
_RLMON_SLOTS = """
  const slots = [...document.querySelectorAll(
    '[data-testid="stVegaLiteChart"], [data-testid="stMain"] [class*="st-key-rlmon_pending_"]')];
  const inView = (slot) => {
    const box = slot.getBoundingClientRect();
    return box.height > 0 && box.top < innerHeight && box.bottom > 0;
  };
  const drawn = (slot) => {
    if (!slot.matches('[data-testid="stVegaLiteChart"]')) return false;
    const svg = slot.querySelector('svg.marks');
    if (svg) return svg.querySelector('.role-mark > *') !== null;
    const canvas = slot.querySelector('canvas.marks');
    return canvas !== null && canvas.width > 0;
  };
"""

# The first screen is drawn: the page holds at least ``expected`` slots (its settled count: the page's structure is
# there) and every slot in view is a drawn chart.
RLMON_DRAWN = (
    "(expected) => {"
    + _RLMON_SLOTS
    + """
  if (slots.length === 0 || slots.length < expected) return false;
  return slots.filter(inView).every(drawn);
}"""
)

# Every chart of the page is drawn (after scrolling through it).
RLMON_ALL_DRAWN = (
    "(expected) => {"
    + _RLMON_SLOTS
    + """
  return slots.length > 0 && slots.length >= expected && slots.every(drawn);
}"""
)

RLMON_CHARTS = "() => {" + _RLMON_SLOTS + " return slots.length; }"

RLMON_IN_VIEW = "() => {" + _RLMON_SLOTS + " return slots.filter(inView).length; }"

# Scroll the page (Streamlit scrolls inside stMain) down by one screen; false when it was at the end already.
RLMON_SCROLL = """() => {
  const main = document.querySelector('[data-testid="stMain"]');
  if (!main) return false;
  const before = main.scrollTop;
  main.scrollTop = before + main.clientHeight;
  return main.scrollTop > before;
}"""

# A person looking for curves: the overview's comparison charts (``.st-key-overview_grid``) scrolled to the top of
# the view as soon as they are on the page, and again at each poll while content above them still grows; true once
# ``count`` charts of the grid are drawn (``count`` or every chart of the grid, when it holds fewer).
RLMON_CURVES = (
    "(count) => {"
    + _RLMON_SLOTS
    + """
  const grid = document.querySelector('.st-key-overview_grid');
  if (!grid) return false;
  const cells = [...grid.querySelectorAll(
    '[data-testid="stVegaLiteChart"], [class*="st-key-rlmon_pending_"]')];
  const done = cells.length > 0 && cells.filter(drawn).length >= Math.min(count, cells.length);
  if (!done) {
    const main = document.querySelector('[data-testid="stMain"]');
    const top = grid.getBoundingClientRect().top;
    if (main && Math.abs(top) > 2) main.scrollTop += top;
  }
  return done;
}"""
)

RLMON_SVG_NODES = """() => document.querySelectorAll('[data-testid="stVegaLiteChart"] svg *').length"""

RLMON_CANVASES = """() => document.querySelectorAll('[data-testid="stVegaLiteChart"] canvas').length"""

TB_VISIBLE_CARDS = """() => [...document.querySelectorAll('scalar-card')].filter((card) => {
  const box = card.getBoundingClientRect();
  return box.height > 0 && box.top < innerHeight && box.bottom > 0;
}).length"""

# {listed, busy, partial, complete}: runs listed; the page or a visible card is loading; the visible cards are
# drawn (with whatever runs have arrived); and drawn with every run to the last step (see the module docstring).
TB_STATE = """([runs, expected, lastStep]) => {
  const listed = document.querySelectorAll('runs-selector tb-data-table-content-row').length;
  const cards = [...document.querySelectorAll('scalar-card')].filter((card) => {
    const box = card.getBoundingClientRect();
    return box.height > 0 && box.top < innerHeight && box.bottom > 0;
  });
  const rowsOf = (card) => [...card.querySelectorAll('scalar-card-data-table tb-data-table-content-row')];
  const drawn = (card) => {
    if (card.querySelector('mat-spinner')) return false;
    const chart = card.querySelector('line-chart');
    const lines = chart && (chart.querySelector('canvas') || chart.querySelector('svg path'));
    return Boolean(lines) && rowsOf(card).length > 0;
  };
  const full = (card) => {
    const heads = [...card.querySelectorAll('scalar-card-data-table tb-data-table-header-cell')].map(
      (cell) => cell.textContent.trim());
    const stepAt = heads.indexOf('Step');
    const rows = rowsOf(card);
    return stepAt >= 0 && rows.length === runs && rows.every((row) => {
      const cell = row.querySelectorAll('tb-data-table-content-cell')[stepAt];
      return cell !== undefined && cell.textContent.replace(/\\D/g, '') === String(lastStep);
    });
  };
  const shown = cards.length > 0 && cards.length >= expected && cards.every(drawn);
  // TensorBoard's reload button spins (class "loading") while it loads and is titled "Loading..." until the
  // first load is done.
  const reload = document.querySelector('app-header-reload button');
  const loading = reload === null || reload.classList.contains('loading') ||
    !(reload.getAttribute('title') || '').startsWith('Last Updated');
  const busy = loading || cards.some((card) => card.querySelector('mat-spinner') !== null);
  const rows = cards.map((card) => rowsOf(card).length).join(',');
  return { listed, busy, rows, partial: shown, complete: shown && listed === runs && cards.every(full) };
}"""

TB_RELOAD = """() => {
  const button = document.querySelector('app-header-reload button');
  if (button) button.click();
  return button !== null;
}"""

# A click on the smoothing control and the last change inside a chart container after it, in page time.
WATCH_CHARTS = """() => {
  const state = { clickAt: null, lastChange: null, changes: 0 };
  window.__benchWatch = state;
  document.addEventListener('pointerdown', (event) => {
    if (state.clickAt === null) state.clickAt = event.timeStamp;
  }, true);
  const inChart = (node) => {
    const element = node instanceof Element ? node : node.parentElement;
    return element !== null && element.closest('[data-testid="stVegaLiteChart"]') !== null;
  };
  const holdsChart = (node) => node instanceof Element &&
    (node.matches('[data-testid="stVegaLiteChart"]') || node.querySelector('[data-testid="stVegaLiteChart"]'));
  // A canvas chart whose data changed is painted again in place, with no change to the DOM: a paint call on a
  // chart's canvas counts as a change too.
  const proto = CanvasRenderingContext2D.prototype;
  for (const name of ['clearRect', 'fill', 'stroke', 'fillText', 'drawImage']) {
    const original = proto[name];
    proto[name] = function (...args) {
      if (this.canvas && this.canvas.closest && this.canvas.closest('[data-testid="stVegaLiteChart"]')) {
        state.lastChange = performance.now();
        state.changes += 1;
      }
      return original.apply(this, args);
    };
  }
  new MutationObserver((records) => {
    for (const record of records) {
      if (inChart(record.target) || [...record.addedNodes].some(holdsChart) ||
          [...record.removedNodes].some(holdsChart)) {
        state.lastChange = performance.now();
        state.changes += 1;
        return;
      }
    }
  }).observe(document.body, { subtree: true, childList: true, attributes: true, characterData: true });
}"""

WATCH_STATE = """() => ({ ...window.__benchWatch, now: performance.now() })"""

# What the charts draw: the path lengths of SVG charts, a digest of the pixels of canvas charts.
CHART_SIGNATURE = """() => [...document.querySelectorAll('[data-testid="stVegaLiteChart"]')].map((chart) => {
  const svg = chart.querySelector('svg.marks');
  if (svg) {
    return [...svg.querySelectorAll('.role-mark path')].map((path) => (path.getAttribute('d') || '').length).join(':');
  }
  const canvas = chart.querySelector('canvas.marks');
  if (!canvas) return '';
  const url = canvas.toDataURL();
  let hash = 0;
  for (let i = 0; i < url.length; i += 7) hash = (hash * 31 + url.charCodeAt(i)) | 0;
  return `${url.length}/${hash}`;
}).join('|')"""


class BenchError(Exception):
    """A measurement could not be taken; the message says which and why."""


# --------------------------------------------------------------------------------------- processes


def rlmon_command(port: int) -> list[str]:
    return [
        sys.executable, "-m", "streamlit", "run", str(APP), "--server.headless", "true",
        "--server.port", str(port), "--server.address", "127.0.0.1",
    ]  # fmt: skip


def rlmon_env(log_root: Path, cache_dir: Path) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if not key.startswith("RLMON_") and key != "XDG_CACHE_HOME"}
    return env | {"RLMON_LOG_ROOT": str(log_root), "RLMON_CACHE_DIR": str(cache_dir)}


def tb_command(venv: Path, event_root: Path, port: int) -> list[str]:
    return [
        str(venv / "bin" / "tensorboard"), "--logdir", str(event_root), "--host", "127.0.0.1",
        "--port", str(port), "--load_fast=true",
    ]  # fmt: skip


# --------------------------------------------------------------------------------------- TensorBoard's venv


def ensure_tensorboard(venv: Path, log_path: Path) -> tuple[str | None, str]:
    """(TensorBoard's version, "") when ``venv`` has it, installing it if needed; else (None, the reason, with
    the end of the installer's output)."""
    python = venv / "bin" / "python"

    def failed(what: str) -> tuple[None, str]:
        try:
            tail = log_path.read_text(errors="replace")[-1500:].strip()
        except OSError:
            tail = ""
        return None, what + (f"; its output ends with:\n{tail}" if tail else "")

    with log_path.open("ab") as log:
        if not python.exists():
            made = subprocess.run([sys.executable, "-m", "venv", str(venv)], stdout=log, stderr=subprocess.STDOUT)
            if made.returncode != 0:
                return failed(f"`{sys.executable} -m venv {venv}` failed (exit {made.returncode})")
        version = _tensorboard_version(python)
        if version is None:
            print(f"installing tensorboard into {venv} ...", file=sys.stderr)
            installed = subprocess.run(
                [str(python), "-m", "pip", "install", "tensorboard"], stdout=log, stderr=subprocess.STDOUT
            )
            if installed.returncode != 0:
                return failed(f"`pip install tensorboard` into {venv} failed (exit {installed.returncode})")
            version = _tensorboard_version(python)
    if version is None:
        return failed(f"tensorboard does not import in {venv} after `pip install tensorboard`")
    if not (venv / "bin" / "tensorboard").exists():
        return None, f"{venv / 'bin' / 'tensorboard'} is missing"
    return version, ""


def _tensorboard_version(python: Path) -> str | None:
    probe = subprocess.run(
        [str(python), "-c", "import tensorboard; print(tensorboard.__version__)"], capture_output=True, text=True
    )
    return probe.stdout.strip() if probe.returncode == 0 and probe.stdout.strip() else None


# --------------------------------------------------------------------------------------- data


@dataclass(frozen=True)
class Sizes:
    experiments: int
    steps: int
    keys: int


def write_logs(log_root: Path, sizes: Sizes) -> None:
    """The benchmarks' generated root at ``sizes``."""
    available = len(benchmark_root.metric_keys(sizes.keys))
    if available < sizes.keys:
        raise BenchError(f"--keys {sizes.keys}: tests/helpers/benchmark_root.py generates at most {available} keys")
    benchmark_root.write_benchmark_root(log_root, experiments=sizes.experiments, steps=sizes.steps, keys=sizes.keys)


def prepare_data(data: Path, sizes: Sizes, *, tb_venv: Path | None) -> tuple[Path, Path | None]:
    """(log root, event root or None without TensorBoard) under ``data``, written unless already there at
    these sizes."""
    meta_path = data / DATA_META
    wanted = {"experiments": sizes.experiments, "steps": sizes.steps, "keys": sizes.keys}
    log_root, event_root = data / "logs", data / "tensorboard"
    meta: dict[str, Any] = {}
    if meta_path.exists():
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
        if {key: meta.get(key) for key in wanted} != wanted:
            raise BenchError(
                f"{data} holds data of other sizes ({meta_path}: {json.dumps(meta)}); pick another --data folder"
            )
        if meta.get("values") != benchmark_root.VALUES:  # written by an older value model: written again
            meta = {}
    elif data.exists() and any(data.iterdir()):
        raise BenchError(f"{data} is not empty and has no {DATA_META}: not a folder this benchmark wrote")
    data.mkdir(parents=True, exist_ok=True)
    if not meta.get("logs_done"):
        started = time.perf_counter()
        shutil.rmtree(log_root, ignore_errors=True)
        write_logs(log_root, sizes)
        size_mb = sum(path.stat().st_size for path in log_root.rglob("*.log")) / 1e6
        meta |= wanted | {"values": benchmark_root.VALUES, "logs_done": True, "logs_mb": round(size_mb, 1)}
        meta_path.write_text(json.dumps(meta), encoding="utf-8")
        print(f"verl logs: {size_mb:.0f} MB in {time.perf_counter() - started:.0f} s -> {log_root}", file=sys.stderr)
    if tb_venv is None:
        return log_root, None
    if not meta.get("events_done"):
        started = time.perf_counter()
        shutil.rmtree(event_root, ignore_errors=True)
        converted = subprocess.run(
            [str(tb_venv / "bin" / "python"), str(TB_EVENTS), str(log_root), str(event_root), "--jobs", "2"],
            capture_output=True, text=True,
        )  # fmt: skip
        if converted.returncode != 0:
            raise BenchError(f"writing the event files failed:\n{converted.stderr[-3000:]}")
        size_mb = sum(path.stat().st_size for path in event_root.rglob("events.out.tfevents.*")) / 1e6
        meta |= {"events_done": True, "events_mb": round(size_mb, 1)}
        meta_path.write_text(json.dumps(meta), encoding="utf-8")
        print(f"event files: {size_mb:.0f} MB in {time.perf_counter() - started:.0f} s -> {event_root} "
              f"({converted.stderr.strip()})", file=sys.stderr)  # fmt: skip
    return log_root, event_root


def first_experiment_slug(log_root: Path) -> str:
    """The page path rlmon gives the first generated experiment (``e1_grpo_big`` -> ``e1-grpo-big``).

    The experiment id is the folder's path under the root; the slug rule is rlmon.app.navigation.experiment_slug's (not
    imported: that module imports streamlit). The measurement checks that the page drew more charts than the
    overview, so a wrong slug (Streamlit would fall back to the overview) fails loudly."""
    import re

    folder = sorted({path.parent for path in log_root.rglob("*.log")}, key=lambda path: _natural(path.name))[0]
    return re.sub(r"[^a-z0-9]+", "-", folder.relative_to(log_root).as_posix().lower()).strip("-")


def _natural(name: str) -> tuple[int, str]:
    digits = "".join(char for char in name.split("_")[0] if char.isdigit())
    return (int(digits) if digits else 0, name)


# --------------------------------------------------------------------------------------- browser steps


def open_when_up(page: Any, server: Server, *, url: str, timeout_s: float) -> None:
    """``page.goto(url)`` again every 50 ms while the server's port refuses connections."""
    from playwright.sync_api import Error as PlaywrightError

    deadline = time.monotonic() + timeout_s
    while True:
        try:
            page.goto(url, wait_until="commit", timeout=timeout_s * 1000)
            return
        except PlaywrightError as error:
            if not server.alive():
                raise BenchError(f"{server.name} exited while starting:\n{server.output_tail()}") from error
            if time.monotonic() > deadline:
                raise BenchError(f"{server.name} did not answer on {url} within {timeout_s:.0f} s") from error
            time.sleep(POLL_MS / 1000)


def wait_drawn(page: Any, predicate: str, arg: Any, *, what: str, server: Server, timeout_s: float) -> None:
    from playwright.sync_api import Error as PlaywrightError

    try:
        page.wait_for_function(predicate, arg=arg, polling=POLL_MS, timeout=timeout_s * 1000)
    except PlaywrightError as error:
        alive = "" if server.alive() else f"; {server.name} exited:\n{server.output_tail()}"
        raise BenchError(f"{what}: not drawn within {timeout_s:.0f} s ({str(error).splitlines()[0]}){alive}") from error


def settled_count(page: Any, drawn: Callable[[int], bool], counter: str, *, timeout_s: float,
                  nudge: Callable[[], object] = lambda: None) -> int:  # fmt: skip
    """The count ``counter`` gives once the page is drawn (``drawn(count)``) and the count held for three polls a
    second apart; ``nudge`` is called at each poll that finds it not drawn. Used before the measured runs to
    learn what a drawn page holds."""
    deadline = time.monotonic() + timeout_s
    history: list[int] = []
    while time.monotonic() < deadline:
        time.sleep(1.0)
        count = int(page.evaluate(counter))
        if count and drawn(count):
            history.append(count)
            if len(history) >= 3 and history[-3] == history[-2] == history[-1]:
                return count
        else:
            history.clear()
            nudge()
    raise BenchError(f"the page did not settle within {timeout_s:.0f} s")


STUCK_PRESSES = 5


class TbNudge:
    """Presses TensorBoard's reload button when the page is idle and shows fewer runs than there are or partial
    data (see :func:`tb_wait`); after :data:`STUCK_PRESSES` presses in a row that changed no visible card's rows,
    reloads the page instead. Counts both."""

    def __init__(self, page: Any, arg: list[int]) -> None:
        self.page = page
        self.arg = arg
        self.presses = 0
        self.page_reloads = 0
        self._rows: str | None = None
        self._unchanged = 0

    def __call__(self) -> bool:
        """True if the button was pressed or the page reloaded."""
        state = self.page.evaluate(TB_STATE, self.arg)
        idle = not state["busy"] and not state["complete"] and (state["partial"] or state["listed"] < self.arg[0])
        if not idle:
            return False
        self._unchanged = self._unchanged + 1 if state["rows"] == self._rows else 0
        self._rows = state["rows"]
        if self._unchanged >= STUCK_PRESSES:
            self.page.reload(wait_until="commit")
            self.page_reloads += 1
            self._unchanged, self._rows = 0, None
            return True
        pressed = bool(self.page.evaluate(TB_RELOAD))
        self.presses += pressed
        return pressed


def tb_wait(page: Any, server: Server, arg: list[int], *, started: float, what: str, timeout_s: float
            ) -> tuple[float, float, TbNudge]:  # fmt: skip
    """(seconds to the visible cards drawn with some runs, seconds to them drawn complete, the reload presses and
    page reloads), from ``started``. TensorBoard 2.21 does not reload by itself (auto-reload is off by default):
    while its page is idle (nothing loading) and shows fewer runs than there are or a series short of the last
    step, this presses its reload button, at most once a second, as a (quick) person waiting for the data would,
    and reloads the page when the presses change nothing (:class:`TbNudge`)."""
    deadline = time.monotonic() + timeout_s
    partial_s: float | None = None
    last_press = time.perf_counter()
    nudge = TbNudge(page, arg)
    while time.monotonic() < deadline:
        state = page.evaluate(TB_STATE, arg)
        now = time.perf_counter()
        if state["partial"] and partial_s is None:
            partial_s = now - started
        if state["complete"]:
            return (partial_s if partial_s is not None else now - started), now - started, nudge
        if now - last_press >= 1.0 and nudge():
            last_press = now
        if not server.alive():
            raise BenchError(f"{what}: {server.name} exited:\n{server.output_tail()}")
        time.sleep(POLL_MS / 1000)
    raise BenchError(f"{what}: not drawn within {timeout_s:.0f} s")


@dataclass
class Expected:
    """What a drawn page holds, learned once before the measured runs."""

    overview_charts: int = 0
    """Charts of the overview, drawn or held by a placeholder (rlmon draws the charts near the view)."""
    experiment_charts: int = 0
    overview_in_view: int = 0
    """Of those, the charts whose box meets the first screen."""
    experiment_in_view: int = 0
    tb_cards: int = 0


@dataclass
class Results:
    samples: dict[str, dict[Tool, list[float]]] = field(default_factory=dict)
    failures: list[str] = field(default_factory=list)
    loads: list[float] = field(default_factory=list)

    def add(self, name: str, tool: Tool, value: float) -> None:
        self.samples.setdefault(name, {}).setdefault(tool, []).append(value)
        self.loads.append(os.getloadavg()[0])
        print(f"  {tool:5s} {name}: {value:.3f}", file=sys.stderr)


class Frames:
    """Bytes of the websocket frames a page receives, and when the last one arrived (``time.perf_counter``, as
    Playwright reports the frame from the browser's network layer: the page being busy drawing does not delay
    it beyond one poll of the waits)."""

    def __init__(self, page: Any) -> None:
        self.received = 0
        self.last_at = time.perf_counter()
        page.on("websocket", lambda socket: socket.on("framereceived", self._on_frame))

    def _on_frame(self, payload: str | bytes) -> None:
        self.received += len(payload.encode() if isinstance(payload, str) else payload)
        self.last_at = time.perf_counter()


CURVES = 4
"""Comparison charts a person looking for curves waits for (TensorBoard's first screen holds 4 cards here)."""


class MainThread:
    """The browser main thread's busy time (Chrome's ``TaskDuration`` metric, from the DevTools protocol) since the
    page was made: script, style, layout and paint, Streamlit's own work included."""

    def __init__(self, page: Any) -> None:
        self._session = page.context.new_cdp_session(page)
        self._session.send("Performance.enable")
        self._start = self._task_s()

    def _task_s(self) -> float:
        metrics = self._session.send("Performance.getMetrics")["metrics"]
        return float(next((item["value"] for item in metrics if item["name"] == "TaskDuration"), 0.0))

    def seconds(self) -> float:
        return self._task_s() - self._start


class Bench:
    """The browser, the data and where the servers write; one method per tool and repeat."""

    def __init__(self, browser: Any, *, work: Path, log_root: Path, event_root: Path | None, venv: Path,
                 sizes: Sizes) -> None:  # fmt: skip
        self.browser = browser
        self.work = work
        self.log_root = log_root
        self.event_root = event_root
        self.venv = venv
        self.sizes = sizes
        self.expected = Expected()
        self.slug = first_experiment_slug(log_root)
        self.starts = 0

    @contextlib.contextmanager
    def context(self) -> Iterator[Any]:
        from playwright.sync_api import Error as PlaywrightError

        context = self.browser.new_context(viewport=VIEWPORT, locale="en-US")
        try:
            yield context.new_page()
        finally:
            with contextlib.suppress(PlaywrightError):  # the browser is gone when a signal stopped the run
                context.close()

    @contextlib.contextmanager
    def rlmon_server(self) -> Iterator[Server]:
        self.starts += 1
        port = free_port()
        cache = self.work / f"rlmon-cache-{self.starts}"
        cache.mkdir()
        with serve_command(
            "rlmon", rlmon_command(port), port=port, env=rlmon_env(self.log_root, cache),
            log_path=self.work / f"rlmon-server-{self.starts}.log",
        ) as server:  # fmt: skip
            yield server

    @contextlib.contextmanager
    def tb_server(self) -> Iterator[Server]:
        assert self.event_root is not None
        self.starts += 1
        port = free_port()
        with serve_command(
            "tensorboard", tb_command(self.venv, self.event_root, port), port=port, env=dict(os.environ),
            log_path=self.work / f"tb-server-{self.starts}.log",
        ) as server:  # fmt: skip
            yield server

    def tb_arg(self, cards: int) -> list[int]:
        return [self.sizes.experiments, cards, self.sizes.steps]

    # ---- before the measured runs: what a drawn page holds

    def calibrate_rlmon(self) -> None:
        with self.rlmon_server() as server, self.context() as page:
            open_when_up(page, server, url=server.url + "/", timeout_s=COLD_TIMEOUT_S)
            self.expected.overview_charts = settled_count(
                page, lambda count: bool(page.evaluate(RLMON_DRAWN, count)), RLMON_CHARTS, timeout_s=COLD_TIMEOUT_S
            )
            page.goto(f"{server.url}/{self.slug}", wait_until="commit")
            self.expected.experiment_charts = settled_count(
                page, lambda count: bool(page.evaluate(RLMON_DRAWN, count)), RLMON_CHARTS, timeout_s=WARM_TIMEOUT_S
            )
            self.expected.experiment_in_view = int(page.evaluate(RLMON_IN_VIEW))
            page.goto(server.url + "/", wait_until="commit")
            wait_drawn(page, RLMON_DRAWN, self.expected.overview_charts, what="rlmon overview", server=server,
                       timeout_s=WARM_TIMEOUT_S)  # fmt: skip
            self.expected.overview_in_view = int(page.evaluate(RLMON_IN_VIEW))
        if self.expected.experiment_charts <= self.expected.overview_charts:
            raise BenchError(
                f"/{self.slug} drew {self.expected.experiment_charts} charts, the overview "
                f"{self.expected.overview_charts}: not the experiment page (has the page path rule changed?)"
            )
        print(f"rlmon: {self.expected.overview_charts} charts on the overview "
              f"({self.expected.overview_in_view} in the first screen), {self.expected.experiment_charts} on "
              f"/{self.slug} ({self.expected.experiment_in_view} in the first screen)", file=sys.stderr)  # fmt: skip

    def calibrate_tb(self) -> None:
        with self.tb_server() as server, self.context() as page:
            open_when_up(page, server, url=server.url + "/", timeout_s=COLD_TIMEOUT_S)
            self.expected.tb_cards = settled_count(
                page,
                lambda count: bool(page.evaluate(TB_STATE, self.tb_arg(count))["complete"]),
                TB_VISIBLE_CARDS,
                timeout_s=COLD_TIMEOUT_S,
                nudge=TbNudge(page, self.tb_arg(0)),
            )
        print(f"TensorBoard draws {self.expected.tb_cards} cards in the first screen", file=sys.stderr)

    # ---- measured runs

    def measure_rlmon(self, results: Results) -> None:
        overview = self.expected.overview_charts
        started = time.perf_counter()
        with self.rlmon_server() as server:
            with self.context() as page:
                open_when_up(page, server, url=server.url + "/", timeout_s=COLD_TIMEOUT_S)
                wait_drawn(page, RLMON_DRAWN, overview, what="rlmon cold start", server=server,
                           timeout_s=COLD_TIMEOUT_S)  # fmt: skip
                results.add("cold", "rlmon", time.perf_counter() - started)
                # then a person looking for curves scrolls to them at once
                wait_drawn(page, RLMON_CURVES, CURVES, what="rlmon cold start, comparison charts scrolled to",
                           server=server, timeout_s=COLD_TIMEOUT_S)  # fmt: skip
                results.add("cold_curves", "rlmon", time.perf_counter() - started)
            with self.context() as page:
                frames = Frames(page)
                started = time.perf_counter()
                page.goto(server.url + "/", wait_until="commit")
                wait_drawn(page, RLMON_DRAWN, overview, what="rlmon first screen", server=server,
                           timeout_s=WARM_TIMEOUT_S)  # fmt: skip
                results.add("warm", "rlmon", time.perf_counter() - started)
                results.add("warm_last_frame", "rlmon", frames.last_at - started)
            with self.context() as page:
                frames, busy = Frames(page), MainThread(page)
                started = time.perf_counter()
                page.goto(server.url + "/", wait_until="commit")
                wait_drawn(page, RLMON_CURVES, CURVES, what="rlmon comparison charts, scrolled to at once",
                           server=server, timeout_s=WARM_TIMEOUT_S)  # fmt: skip
                results.add("curves", "rlmon", time.perf_counter() - started)
                results.add("curves_ws_kb_per_chart", "rlmon", frames.received / 1e3 / CURVES)
                results.add("curves_main_s_per_chart", "rlmon", busy.seconds() / CURVES)
            with self.context() as page:
                frames, busy = Frames(page), MainThread(page)
                started = time.perf_counter()
                page.goto(f"{server.url}/{self.slug}", wait_until="commit")
                wait_drawn(page, RLMON_DRAWN, self.expected.experiment_charts, what="rlmon experiment page",
                           server=server, timeout_s=WARM_TIMEOUT_S)  # fmt: skip
                results.add("experiment", "rlmon", time.perf_counter() - started)
                results.add("experiment_last_frame", "rlmon", frames.last_at - started)
                results.add("experiment_ws_mb", "rlmon", frames.received / 1e6)
                results.add("experiment_all", "rlmon", self.scroll_through(
                    page, self.expected.experiment_charts, server=server, started=started))  # fmt: skip
                results.add("experiment_all_ws_mb", "rlmon", frames.received / 1e6)
                charts_drawn = max(1, self.expected.experiment_charts)
                results.add("experiment_ws_kb_per_chart", "rlmon", frames.received / 1e3 / charts_drawn)
                results.add("experiment_main_s_per_chart", "rlmon", busy.seconds() / charts_drawn)
                results.add("experiment_svg_nodes", "rlmon", float(page.evaluate(RLMON_SVG_NODES)))
                results.add("experiment_canvases", "rlmon", float(page.evaluate(RLMON_CANVASES)))
            with self.context() as page:
                page.goto(server.url + "/", wait_until="commit")
                wait_drawn(page, RLMON_DRAWN, overview, what="rlmon overview before the smoothing change",
                           server=server, timeout_s=WARM_TIMEOUT_S)  # fmt: skip
                results.add("smoothing", "rlmon", self.smoothing_change(page, overview, server=server))

    def scroll_through(self, page: Any, expected: int, *, server: Server, started: float) -> float:
        """Seconds from ``started`` until every chart of the page is drawn, scrolling down one screen at a time
        as soon as what is in view is drawn (a reader paging through), then waiting for all of them."""
        while page.evaluate(RLMON_SCROLL):
            wait_drawn(page, RLMON_DRAWN, expected, what="rlmon page, scrolled", server=server,
                       timeout_s=WARM_TIMEOUT_S)  # fmt: skip
        wait_drawn(page, RLMON_ALL_DRAWN, expected, what="rlmon page, every chart", server=server,
                   timeout_s=WARM_TIMEOUT_S)  # fmt: skip
        return time.perf_counter() - started

    def smoothing_change(self, page: Any, overview: int, *, server: Server) -> float:
        """Seconds from the click on "moving average" to the last change inside a chart (see the docstring)."""
        button = page.locator('.st-key-overview_smoothing button[role="radio"]', has_text="moving average")
        # The control in view, as a person would have it, and every chart near it drawn (charts below the first
        # screen are drawn as they near the view): the change redraws charts, it does not draw them first.
        button.scroll_into_view_if_needed()
        wait_drawn(page, RLMON_ALL_DRAWN, overview, what="rlmon overview, every chart before the smoothing change",
                   server=server, timeout_s=WARM_TIMEOUT_S)  # fmt: skip
        page.wait_for_timeout(QUIET_S * 1000)
        before = page.evaluate(CHART_SIGNATURE)
        page.evaluate(WATCH_CHARTS)
        button.click()
        deadline = time.monotonic() + WARM_TIMEOUT_S
        while time.monotonic() < deadline:
            time.sleep(0.1)
            state = page.evaluate(WATCH_STATE)
            if state["clickAt"] is None or state["lastChange"] is None or state["lastChange"] < state["clickAt"]:
                continue
            if (state["now"] - state["lastChange"]) / 1000 < QUIET_S:
                continue
            if button.get_attribute("aria-checked") != "true" or not page.evaluate(RLMON_DRAWN, overview):
                continue
            if page.evaluate(CHART_SIGNATURE) == before:
                raise BenchError("the smoothing change drew the same chart lines as before")
            return float(state["lastChange"] - state["clickAt"]) / 1000
        raise BenchError(f"the charts were not redrawn within {WARM_TIMEOUT_S:.0f} s of the smoothing change")

    def measure_tb(self, results: Results) -> None:
        arg = self.tb_arg(self.expected.tb_cards)
        started = time.perf_counter()
        with self.tb_server() as server:
            with self.context() as page:
                open_when_up(page, server, url=server.url + "/", timeout_s=COLD_TIMEOUT_S)
                partial_s, complete_s, nudge = tb_wait(
                    page, server, arg, started=started, what="TensorBoard cold start", timeout_s=COLD_TIMEOUT_S
                )
                results.add("cold", "tb", complete_s)
                results.add("cold_partial", "tb", partial_s)
                results.add("cold_curves", "tb", partial_s)
                results.add("cold_reloads", "tb", float(nudge.presses))
                results.add("cold_page_reloads", "tb", float(nudge.page_reloads))
            with self.context() as page:
                started = time.perf_counter()
                page.goto(server.url + "/", wait_until="commit")
                _partial_s, complete_s, nudge = tb_wait(
                    page, server, arg, started=started, what="TensorBoard first screen", timeout_s=WARM_TIMEOUT_S
                )
                results.add("warm", "tb", complete_s)
                # TensorBoard's first screen is its first cards: what a person looking for curves sees first
                results.add("curves", "tb", complete_s)
                results.add("warm_reloads", "tb", float(nudge.presses))
                results.add("warm_page_reloads", "tb", float(nudge.page_reloads))


# --------------------------------------------------------------------------------------- report

ROWS = [
    ("cold", "1. cold start → first screen drawn", "s"),
    ("cold_partial", "1a. cold start → first cards drawn, runs still missing allowed (TensorBoard)", "s"),
    (
        "cold_curves",
        "1d. cold start → the first 4 comparison charts drawn, scrolled to once the first screen is drawn "
        "(TensorBoard: its first cards, as 1a.)",
        "s",
    ),
    ("cold_reloads", "1b. reload presses during 1. (TensorBoard)", "count"),
    ("cold_page_reloads", "1c. page reloads during 1. (TensorBoard)", "count"),
    ("warm", "2. first screen, server warm", "s"),
    (
        "curves",
        "2d. time to curves, server warm: the first 4 comparison charts, scrolled to at once (TensorBoard: "
        "its first cards, as 2.)",
        "s",
    ),
    ("curves_ws_kb_per_chart", "2e. websocket bytes until 2d., per chart (rlmon)", "kB"),
    ("curves_main_s_per_chart", "2f. browser main-thread busy until 2d., per chart (rlmon)", "s"),
    ("warm_last_frame", "2a. last websocket frame received during 2. (rlmon)", "s"),
    ("warm_reloads", "2b. reload presses during 2. (TensorBoard)", "count"),
    ("warm_page_reloads", "2c. page reloads during 2. (TensorBoard)", "count"),
    ("experiment", "3. experiment page by URL, server warm", "s"),
    ("experiment_last_frame", "3a. last websocket frame received during 3.", "s"),
    ("experiment_all", "3b. experiment page: every chart drawn, scrolling down a screen at a time (rlmon)", "s"),
    ("smoothing", "4. smoothing change → charts redrawn", "s"),
    ("experiment_svg_nodes", "experiment page, every chart drawn: SVG elements in charts", "count"),
    ("experiment_ws_mb", "experiment page: websocket bytes received until 3.", "MB"),
    ("experiment_all_ws_mb", "experiment page: websocket bytes received until 3b.", "MB"),
    ("experiment_canvases", "experiment page: charts drawn on a canvas", "count"),
    ("experiment_ws_kb_per_chart", "experiment page: websocket bytes until 3b., per chart", "kB"),
    ("experiment_main_s_per_chart", "experiment page: browser main-thread busy until 3b., per chart", "s"),
]


def _cell(values: list[float] | None, pick: Callable[[list[float]], float], unit: str) -> str:
    if not values:
        return "—"
    value = pick(values)
    if unit == "count":
        return f"{value:,.0f}"
    if unit == "MB":
        return f"{value:.2f} MB"
    if unit == "kB":
        return f"{value:,.0f} kB"
    return f"{value:.2f} s"


def markdown_table(results: Results) -> str:
    lines = [
        "| measurement | rlmon min | rlmon median | TensorBoard min | TensorBoard median | rlmon/TB (medians) |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for key, label, unit in ROWS:
        tools = results.samples.get(key, {})
        mine, theirs = tools.get("rlmon"), tools.get("tb")
        ratio = "—"
        if mine and theirs:
            ratio = f"{statistics.median(mine) / statistics.median(theirs):.2f}"
        count = max(len(mine or []), len(theirs or []))
        lines.append(
            f"| {label} (n={count}) | {_cell(mine, min, unit)} | {_cell(mine, statistics.median, unit)} | "
            f"{_cell(theirs, min, unit)} | {_cell(theirs, statistics.median, unit)} | {ratio} |"
        )
    return "\n".join(lines)


def summary(results: Results) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, tools in results.samples.items():
        entry: dict[str, Any] = {}
        for tool, values in tools.items():
            entry[tool] = {"samples": values, "min": min(values), "median": statistics.median(values)}
        if "rlmon" in tools and "tb" in tools:
            entry["ratio_median"] = entry["rlmon"]["median"] / entry["tb"]["median"]
            entry["ratio_min"] = entry["rlmon"]["min"] / entry["tb"]["min"]
        out[key] = entry
    return out


def _version(package: str) -> str:
    try:
        return importlib.metadata.version(package)
    except importlib.metadata.PackageNotFoundError:
        return "?"


# --------------------------------------------------------------------------------------- main


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--experiments", type=int, default=20, help="experiments in the generated root (20)")
    parser.add_argument("--steps", type=int, default=2000, help="steps per experiment (2,000)")
    parser.add_argument("--keys", type=int, default=150, help="logged keys per step (150)")
    parser.add_argument("--repeats", type=int, default=3, help="measured rounds, rlmon and TensorBoard alternating")
    parser.add_argument("--only", choices=["rlmon", "tb"], help="measure one of the two")
    parser.add_argument("--data", type=Path, help="keep the generated data in this folder, reuse it when there")
    parser.add_argument("--keep", action="store_true", help="keep the generated data (in a temporary folder)")
    parser.add_argument("--tb-venv", type=Path, default=Path("/tmp/rlmon-tb-venv"), help="TensorBoard's venv")
    parser.add_argument("--json", action="store_true", help="print the samples as JSON after the table")
    args = parser.parse_args()
    if min(args.experiments, args.steps, args.keys, args.repeats) < 1:
        parser.error("--experiments, --steps, --keys and --repeats must be at least 1")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        raise SystemExit("the playwright package is not installed (pip install -e '.[dev]')") from None
    if not Path(CHROMIUM).exists():
        raise SystemExit(f"{CHROMIUM} not found (apt-get install chromium)")

    atexit.register(stop_all)
    signal.signal(signal.SIGTERM, on_signal)
    sizes = Sizes(args.experiments, args.steps, args.keys)
    work = Path(tempfile.mkdtemp(prefix="rlmon-vs-tb-"))
    data = args.data if args.data is not None else work / "data"
    load_at_start = os.getloadavg()
    tools: list[Tool] = ["rlmon", "tb"] if args.only is None else [args.only]
    tb_version: str | None = None
    if "tb" in tools:
        tb_version, reason = ensure_tensorboard(args.tb_venv, work / "tb-install.log")
        if tb_version is None:
            print(f"TensorBoard is not available: {reason}. Measuring rlmon only.", file=sys.stderr)
            tools = [tool for tool in tools if tool != "tb"]
    if not tools:
        raise SystemExit("nothing to measure")
    results = Results()
    try:
        log_root, event_root = prepare_data(data, sizes, tb_venv=args.tb_venv if "tb" in tools else None)
        meta = json.loads((data / DATA_META).read_text(encoding="utf-8"))
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
            bench = Bench(browser, work=work, log_root=log_root, event_root=event_root, venv=args.tb_venv,
                          sizes=sizes)  # fmt: skip
            calibrations: dict[Tool, Callable[[], None]] = {"rlmon": bench.calibrate_rlmon, "tb": bench.calibrate_tb}
            measures: dict[Tool, Callable[[Results], None]] = {"rlmon": bench.measure_rlmon, "tb": bench.measure_tb}
            for tool in tools:
                calibrations[tool]()
            for repeat in range(args.repeats):
                order = tools if repeat % 2 == 0 else tools[::-1]
                print(f"round {repeat + 1}/{args.repeats}: {' then '.join(order)}", file=sys.stderr)
                for tool in order:
                    try:
                        measures[tool](results)
                    except BenchError as error:
                        results.failures.append(f"round {repeat + 1}, {tool}: {error}")
                        print(f"  failed: {error}", file=sys.stderr)
            chromium_version = browser.version
            browser.close()
    except BenchError as error:
        raise SystemExit(f"benchmark stopped: {error}") from None
    finally:
        stop_all()
        # Server logs and rlmon's caches go; the data stays with --data (its own folder) or --keep.
        for path in work.iterdir():
            if path == data:
                continue
            if path.is_dir():
                shutil.rmtree(path, ignore_errors=True)
            else:
                path.unlink(missing_ok=True)
        if args.data is None and args.keep:
            print(f"generated data kept in {data}", file=sys.stderr)
        else:
            shutil.rmtree(work, ignore_errors=True)
    load_at_end = os.getloadavg()

    print(f"Data: {sizes.experiments} experiments × {sizes.steps:,} steps × {sizes.keys} keys: verl logs "
          f"{meta.get('logs_mb', '?')} MB, TensorBoard event files {meta.get('events_mb', '—')} MB.")  # fmt: skip
    print(f"Machine: {os.cpu_count()} cores; load average {load_at_start[0]:.2f} at the start, "
          f"{load_at_end[0]:.2f} at the end, {min(results.loads, default=0):.2f}–{max(results.loads, default=0):.2f} "
          f"while measuring.")  # fmt: skip
    print(f"rlmon: streamlit {_version('streamlit')}, polars {_version('polars')}, altair {_version('altair')}; "
          f"TensorBoard {tb_version or '—'} (--load_fast=true); Chromium {chromium_version}; "
          f"{args.repeats} rounds, alternating.")  # fmt: skip
    drawn = []
    if "rlmon" in tools:
        drawn.append(f"{bench.expected.overview_charts} charts on rlmon's overview, "
                     f"{bench.expected.experiment_charts} on /{bench.slug}")  # fmt: skip
    if "tb" in tools:
        drawn.append(f"TensorBoard's first {bench.expected.tb_cards} visible cards with all {sizes.experiments} "
                     f"runs to step {sizes.steps:,}")  # fmt: skip
    print(f"Drawn = {'; '.join(drawn)}.")
    print()
    print(markdown_table(results))
    for failure in results.failures:
        print(f"\nfailed: {failure}")
    if args.json:
        print()
        print(json.dumps({
            "sizes": meta, "cores": os.cpu_count(), "load_start": load_at_start[0], "load_end": load_at_end[0],
            "versions": {"streamlit": _version("streamlit"), "tensorboard": tb_version, "chromium": chromium_version},
            "expected": vars(bench.expected), "repeats": args.repeats, "failures": results.failures,
            "measurements": summary(results),
        }, indent=1))  # fmt: skip


if __name__ == "__main__":
    main()
