"""The chart grid: specs built once and shared by every session, drawn as they come into view, each with
an SVG download; and the page's colour legend that highlights runs.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import gc
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from typing import Any

import streamlit as st

from rlmon.app import server
from rlmon.app.guards import escape_markdown, guarded
from rlmon.app.markup import swatch_css
from rlmon.app.state import app_state, page_state
from rlmon.settings import Settings
from rlmon.text import t
from rlmon.views import charts, model
from rlmon.views.model import ExperimentView

__all__ = [
    "AHEAD_LIMIT_S",
    "AHEAD_QUIET_S",
    "SPEC_IDLE_S",
    "build_spec",
    "chart_grid",
    "highlight_legend",
    "prepare_ahead",
    "prepare_charts",
    "prepare_soon",
    "release_memory",
    "show_chart",
    "svg_download",
]


SPEC_IDLE_S = 120.0
"""Seconds a built spec is kept without being asked for. A spec's key names the versions of the experiments it
draws: while a log grows, every refresh makes new specs and the old ones are never asked for again, and once the
pages close none is. Kept by count alone, 512 such specs held 80-90 MB after every page had closed."""
SPEC_MEMORY_BYTES = 64_000_000
"""The datasets of the chart specs kept for every session: a few hundred charts of 20 runs, the charts of a few
tracks and pages with each chart's other smoothing methods."""


class _SpecMemo:
    """Finished Vega-Lite specs, keyed on what they are drawn from (view serials, metric, choices, language).

    A spec depends only on its key, so every session showing the same chart shares one build (and a
    session coming back to an earlier choice gets it at once). The specs are read only: Streamlit copies
    the top level before taking the datasets out. Bounded by count and by the bytes of their datasets (a chart
    of 40 long runs holds megabytes): the least recently asked for go first; and a spec nobody asked for in
    :data:`SPEC_IDLE_S` seconds goes (:meth:`drop_idle`, run on each build and every ``SPEC_IDLE_S / 4`` seconds
    by a thread of its own, which then gives the freed memory back to the system).
    """

    def __init__(
        self,
        size: int = 512,
        *,
        idle_s: float = SPEC_IDLE_S,
        clock: Callable[[], float] = time.monotonic,
        max_bytes: int = SPEC_MEMORY_BYTES,
    ) -> None:
        self._lock = threading.Lock()
        self._size = size
        self._idle_s = idle_s
        self._clock = clock
        self._max_bytes = max_bytes
        self._specs: dict[tuple[Any, ...], dict[str, Any]] = {}
        self._used: dict[tuple[Any, ...], float] = {}
        self._bytes: dict[tuple[Any, ...], int] = {}
        self.held_bytes = 0
        """Bytes of the datasets of the specs kept."""
        self._building: dict[tuple[Any, ...], threading.Event] = {}

    def __len__(self) -> int:
        with self._lock:
            return len(self._specs)

    def drop_idle(self) -> int:
        """Drop the specs not asked for in the last ``idle_s`` seconds; return how many went."""
        cutoff = self._clock() - self._idle_s
        with self._lock:
            idle = [key for key, used in self._used.items() if used < cutoff]
            for key in idle:
                self._forget(key)
        return len(idle)

    def watch(self) -> None:
        """Drop idle specs every ``idle_s / 4`` seconds on a daemon thread, for the life of the server (the
        memo lives as long as the server: it is a cached resource)."""

        def sweep() -> None:
            while True:
                time.sleep(self._idle_s / 4)
                if self.drop_idle():
                    release_memory()

        threading.Thread(target=sweep, name="rlmon-spec-sweep", daemon=True).start()

    def has(self, key: tuple[Any, ...]) -> bool:
        """Whether the spec of ``key`` is built or being built."""
        with self._lock:
            return key in self._specs or key in self._building

    def get(self, key: tuple[Any, ...], build: Callable[[], Any]) -> dict[str, Any]:
        """The spec of ``key``: kept, else built here - or, while another thread builds it (a chart built ahead
        of a visitor's click, another session's), that thread's once it is done."""
        while True:
            with self._lock:
                known = self._specs.get(key)
                if known is not None:
                    self._used[key] = self._clock()
                    self._specs[key] = self._specs.pop(key)  # the most recently asked for go last
                    return known
                building = self._building.get(key)
                if building is None:
                    building = self._building[key] = threading.Event()
                    break
            building.wait()  # then look again: a build that failed left no spec, and this thread tries
        try:
            with server.WORK:
                spec = build_spec(build)
            size = _dataset_bytes(spec)
            with self._lock:
                if len(self._specs) >= self._size:
                    for old in list(self._specs)[: self._size // 4]:
                        self._forget(old)
                while self._specs and self.held_bytes + size > self._max_bytes:
                    self._forget(next(iter(self._specs)))
                self._specs[key] = spec
                self._used[key] = self._clock()
                self._bytes[key] = size
                self.held_bytes += size
            self.drop_idle()
            return spec
        finally:
            with self._lock:
                del self._building[key]
            building.set()

    def _forget(self, key: tuple[Any, ...]) -> None:
        del self._specs[key], self._used[key]
        self.held_bytes -= self._bytes.pop(key, 0)


def _dataset_bytes(spec: dict[str, Any]) -> int:
    """The bytes of a spec's datasets (Arrow IPC; rows as dicts are counted at 100 bytes a row)."""
    total = 0
    datasets = spec.get("datasets")
    for value in datasets.values() if isinstance(datasets, dict) else ():
        total += len(value) if isinstance(value, bytes) else 100 * len(value) if isinstance(value, list) else 0
    return total


@st.cache_resource(show_spinner=False)
def _spec_memo() -> _SpecMemo:
    memo = _SpecMemo()
    memo.watch()
    return memo


def release_memory() -> None:
    """Collect garbage and hand the C allocator's free memory back to the system (glibc keeps what Python and
    polars freed in its arenas, so a server's size would otherwise stay at its peak)."""
    gc.collect()
    try:
        ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):  # not glibc: nothing to trim
        return


def _to_spec(chart: Any) -> dict[str, Any]:
    """The chart as a Vega-Lite dict; legend labels are never cut (a legend sits below the plot and grows the
    chart, see :mod:`rlmon.views.charts`).

    ``chart`` is a spec from :mod:`rlmon.views.charts` (a fresh dict, changed in place) or an Altair chart, whose
    JSON-schema validation - the slowest part of turning it into a dict - is skipped: rlmon's builders
    produce valid specs (their tests validate them).
    """
    if isinstance(chart, dict):
        spec: dict[str, Any] = chart
    else:
        from altair.utils.schemapi import debug_mode

        with debug_mode(False):
            spec = chart.to_dict(validate=False)
    config = spec.setdefault("config", {})
    config["legend"] = {**config.get("legend", {}), "labelLimit": 0, "symbolSize": 70, "labelFontSize": 11}
    view = config.get("view")
    if isinstance(view, dict):  # Altair's default view is 300x300; Streamlit sizes the chart itself
        view.pop("continuousWidth", None)
        view.pop("continuousHeight", None)
    return spec


def build_spec(build: Callable[[], Any]) -> dict[str, Any]:
    """The Vega-Lite dict of what ``build()`` returns: a spec from an ``rlmon.views.charts.*_spec`` function
    (best with ``arrow=True``: Streamlit ships Arrow datasets as they are) or an Altair chart."""
    return _to_spec(build())


_BUILDERS = ThreadPoolExecutor(max_workers=4, thread_name_prefix="rlmon-chart")


def prepare_charts(items: Sequence[tuple[tuple[Any, ...], Callable[[], Any]]]) -> None:
    """Build the specs of several charts at once (the polars work of the builders runs in parallel), so the
    :func:`show_chart` calls that follow find them in the memo. A failing build is left for show_chart to
    report in its place."""
    memo = _spec_memo()
    futures = [_BUILDERS.submit(memo.get, key, build) for key, build in items]
    for future in futures:
        future.exception()


def prepare_ahead(plans: Sequence[model.ChartPlan]) -> None:
    """Build the specs of ``plans`` in the background once the server has had a quiet moment (:data:`AHEAD_QUIET_S`),
    unless they are built or being built: charts a visitor is likely to ask for next are then ready before the
    click. A failing build is left for the visit that asks to report."""
    memo = _spec_memo()
    todo = [(plan.key, plan.build) for plan in plans if not memo.has(plan.key)]
    if todo:
        _AHEAD_POOL.submit(_prepare_when_quiet, todo, time.monotonic() + AHEAD_LIMIT_S)


SOON_CHARTS = 6
"""Charts below the first screen built ahead of the visitor's scroll (:func:`prepare_soon`): a laptop's screen of
them (1440 x 900: rows of two, 314 px tall, three of them in view once scrolled to). With four, the third row
was built only when asked, 0.8-0.9 s after the first two on the 400-experiment root, and its charts came last."""


def prepare_soon(plans: Sequence[model.ChartPlan]) -> None:
    """Build the specs of ``plans`` in the background now, unless they are built or being built: unlike
    :func:`prepare_ahead` it does not wait for a quiet moment, for these are the charts a visitor scrolls to next.
    A failing build is left for the visit that asks to report."""
    memo = _spec_memo()
    for plan in plans:
        if not memo.has(plan.key):
            _BUILDERS.submit(memo.get, plan.key, plan.build)


def _prepare_when_quiet(items: list[tuple[tuple[Any, ...], Callable[[], Any]]], deadline: float) -> None:
    # The limit runs from the request, not from its turn: requests queued behind one waiting out a busy spell are
    # dropped when their time is up instead of each waiting its full limit in turn (a long queue would hold back
    # the charts asked for last, the ones a visitor is looking at).
    remaining = deadline - time.monotonic()
    if remaining > 0 and server.WORK.wait(quiet_s=AHEAD_QUIET_S, limit_s=remaining):
        memo = _spec_memo()
        prepare_charts([(key, build) for key, build in items if not memo.has(key)])


AHEAD_QUIET_S = 1.0
"""A build ahead waits until no log was read and no chart built for this long: the browser has drawn the charts
just sent (about 0.2 s a chart here), and a visitor has not asked for more."""
AHEAD_LIMIT_S = 30.0
"""A build ahead that has not found its quiet moment by then is dropped (a busy server does what is asked)."""
_AHEAD_POOL = ThreadPoolExecutor(max_workers=1, thread_name_prefix="rlmon-ahead")


def show_chart(build: Callable[[], Any], *, key: tuple[Any, ...] | None = None, renderer: str = "auto") -> None:
    """Draw the chart ``build()`` returns (see :func:`build_spec`) across its column. With a ``key``, the
    finished spec is shared by every session asking for the same key (see :class:`_SpecMemo`). ``renderer``:
    the ``chart_renderer`` setting (``auto`` keeps each chart's own, see :mod:`rlmon.views.charts`)."""
    spec = build_spec(build) if key is None else _spec_memo().get(key, build)
    st.vega_lite_chart(spec=charts.with_renderer(spec, renderer), width="stretch")


def svg_download(spec: dict[str, Any], *, name: str) -> tuple[str, Callable[[], bytes]]:
    """What saves chart ``spec`` as SVG: its file name (from its title, else ``name``, see
    :func:`rlmon.views.report.chart_file_name`) and a callable returning the image, drawn by vl-convert only when it
    is called (:func:`rlmon.views.report.chart_svg`)."""
    from rlmon.views import report

    title = spec.get("title")
    if isinstance(title, dict):
        title = title.get("text")
    if isinstance(title, list):
        title = " ".join(str(line) for line in title)
    file_name = report.chart_file_name(str(title or ""), fallback=name, suffix="svg")
    return file_name, lambda: report.chart_svg(spec).encode("utf-8")


def _grid_chart(plan: model.ChartPlan, *, key: str, renderer: str, lang: str) -> None:
    """A grid cell: the chart, and over its top right corner a button saving it as SVG. The image is drawn when
    the button is clicked (on a thread of its own), and the click reruns nothing."""
    with st.container(key=f"rlmon_cell_{key}", gap=None):
        show_chart(plan.build, key=plan.key, renderer=renderer)
        if plan.note:
            st.caption(escape_markdown(plan.note))
        file_name, contents = svg_download(_spec_memo().get(plan.key, plan.build), name=plan.name)
        st.download_button(
            t("svg_save", lang), contents, file_name=file_name, mime="image/svg+xml", key=f"rlmon_svg_{key}",
            help=t("svg_save_help", lang), on_click="ignore", type="tertiary", icon=":material/download:",
        )  # fmt: skip


# Streamlit's own chart toolbar (PNG, full screen) shows on hover above the chart's top right corner; the SVG
# button sits inside that corner, in the chart's title line (titles start at the left).
_SAVE_CSS = """
[class*="st-key-rlmon_cell_"] { position: relative; }
[class*="st-key-rlmon_svg_"] { position: absolute !important; top: 0; right: 0.25rem; z-index: 1;
    width: auto !important; }
[class*="st-key-rlmon_svg_"] button { min-height: 1.5rem; padding: 0 0.25rem; font-size: 0.8rem; opacity: 0.75; }
"""

_GRID_CSS = """
.st-key-{key} {{ flex-wrap: wrap !important; align-items: flex-start !important; gap: 1rem !important; }}
.st-key-{key} > div {{ flex: 0 0 calc((100% - {narrow_gaps}rem) / {narrow}) !important;
    width: calc((100% - {narrow_gaps}rem) / {narrow}) !important; min-width: 0 !important; }}
@media (min-width: 1600px) {{ .st-key-{key} > div {{ flex-basis: calc((100% - {wide_gaps}rem) / {wide}) !important;
    width: calc((100% - {wide_gaps}rem) / {wide}) !important; }} }}
@media (max-width: 640px) {{ .st-key-{key} > div {{ flex-basis: 100% !important; width: 100% !important; }} }}
"""
# A batch's fragment wraps its charts in blocks of its own: those take no box, so the charts (or their
# placeholders) are the grid's cells like the charts drawn at once. The placeholder holds the chart's height.
_LAZY_CSS = """
.st-key-{key} div:has([class*="st-key-{key}-batch-"]), .st-key-{key} [class*="st-key-{key}-batch-"] {{
    display: contents !important; }}
.st-key-{key} [class*="st-key-{key}-batch-"] > div {{ flex: 0 0 calc((100% - {narrow_gaps}rem) / {narrow}) !important;
    width: calc((100% - {narrow_gaps}rem) / {narrow}) !important; min-width: 0 !important; }}
@media (min-width: 1600px) {{ .st-key-{key} [class*="st-key-{key}-batch-"] > div {{
    flex-basis: calc((100% - {wide_gaps}rem) / {wide}) !important;
    width: calc((100% - {wide_gaps}rem) / {wide}) !important; }} }}
@media (max-width: 640px) {{ .st-key-{key} [class*="st-key-{key}-batch-"] > div {{
    flex-basis: 100% !important; width: 100% !important; }} }}
.st-key-{key} [class*="st-key-rlmon_pending_"] {{ min-height: {height}px !important; background: #f4f6f9;
    border-radius: 0.5rem; justify-content: center !important; align-items: center !important; text-align: center; }}
"""
_EDGE_PX = 94
"""Height a chart element adds to its plot area (title, axes, padding): the placeholder's height is the sum."""
_DRAWN_KEY = "_rlmon_drawn_batches"
"""Session key: the chart batches drawn so far (they stay drawn across reruns and live refreshes)."""

# The sentinel: when the placeholder it sits in comes within a screen of the visible part of the page, it tells
# the server (a trigger, so only its batch's fragment reruns). Streamlit scrolls inside a container, not the
# document: the observer's root is that container, so the margin counts from what is visible. The sentinels of a
# page share one queue: the placeholder nearest the top of the view asks first (the fragments run in the order
# asked, and the observers report in no useful order: the row at the top of the view was drawn last), one ask
# every 80 ms (Streamlit sends widget changes made together as one rerun of one fragment). A placeholder still in
# place and near 3 s after asking, with the app idle (no script running), asks again.
_NEAR_JS = """
export default function (component) {
  const { parentElement, setTriggerValue } = component;
  // The placeholder box is watched, not the sentinel inside it (lower down, it could miss the margin).
  const target = parentElement.closest('[class*="st-key-rlmon_pending_"]')
    || parentElement.querySelector('.rlmon-near') || parentElement;
  let root = null;
  for (let up = target.parentElement; up; up = up.parentElement) {
    const style = getComputedStyle(up);
    if (/auto|scroll/.test(style.overflowY) && up.scrollHeight > up.clientHeight) { root = up; break; }
  }
  const queue = (window.__rlmonNearQueue = window.__rlmonNearQueue || { last: 0, waiting: new Set(), timer: null });
  const running = () => document.querySelector('[data-testid="stStatusWidget"]') !== null;
  // One ask at a time, every 80 ms at most, the waiting placeholder highest on the page first.
  const pump = () => {
    queue.timer = null;
    const live = [...queue.waiting].filter((entry) => entry.live());
    queue.waiting = new Set(live);
    if (!live.length) return;
    const wait = queue.last + 80 - performance.now();
    if (wait > 0) { queue.timer = setTimeout(pump, wait); return; }
    const top = (entry) => entry.target.getBoundingClientRect().top;
    const first = live.reduce((best, entry) => (top(entry) < top(best) ? entry : best));
    queue.waiting.delete(first);
    queue.last = performance.now();
    first.ask();
    if (queue.waiting.size) queue.timer = setTimeout(pump, 80);
  };
  let near = false;
  let retry = null;
  const entry = {
    target,
    live: () => near && target.isConnected,
    ask: () => {
      setTriggerValue('near', true);
      retry = setTimeout(again, 3000);
    },
  };
  const enqueue = () => {
    queue.waiting.add(entry);
    if (queue.timer === null) queue.timer = setTimeout(pump, 0);
  };
  // Asked, and still a placeholder: ask again once the app is idle (the ask was lost), not while it works.
  const again = () => {
    retry = null;
    if (!entry.live()) return;
    if (running()) { retry = setTimeout(again, 1000); return; }
    enqueue();
  };
  const observer = new IntersectionObserver((entries) => {
    const was = near;
    near = entries[entries.length - 1].isIntersecting;
    if (near && !was && retry === null) enqueue();
    if (!near) {
      queue.waiting.delete(entry);
      if (retry !== null) { clearTimeout(retry); retry = null; }
    }
  }, { root, rootMargin: '100% 0px 100% 0px' });
  observer.observe(target);
  return () => {
    observer.disconnect();
    queue.waiting.delete(entry);
    if (retry !== null) clearTimeout(retry);
  };
}
"""
_near = st.components.v2.component(
    "rlmon_draw_when_near", html='<div class="rlmon-near"></div>', js=_NEAR_JS, isolate_styles=False
)


def _drawn_batches() -> set[tuple[Any, ...]]:
    drawn = st.session_state.get(_DRAWN_KEY)
    if not isinstance(drawn, set):
        drawn = set()
        st.session_state[_DRAWN_KEY] = drawn
    return drawn


def _draw_batch(
    plans: Sequence[model.ChartPlan],
    *,
    batch: tuple[Any, ...],
    key: str,
    index: int,
    lang: str,
    renderer: str,
    ahead: Mapping[str, Sequence[model.ChartPlan]],
) -> None:
    """One batch of a lazy grid (run as a fragment): its charts once the sentinel has reported them near the
    view, else a placeholder per chart and the sentinel."""
    with st.container(key=f"{key}-batch-{index}"):
        if batch in _drawn_batches():
            prepare_charts([(plan.key, plan.build) for plan in plans])
            for position, plan in enumerate(plans):
                cell = f"{key}-{index}-{position}"
                guarded(partial(_grid_chart, plan, key=cell, renderer=renderer, lang=lang), lang=lang)
            prepare_ahead([other for plan in plans for other in ahead.get(plan.name, ())])
            return
        for position, _plan in enumerate(plans):
            with st.container(key=f"rlmon_pending_{key}_{index}_{position}", horizontal_alignment="center"):
                st.caption(t("chart_pending", lang))
                if position == 0:
                    _near(key=f"rlmon_near_{key}_{index}", on_near_change=partial(_drawn_batches().add, batch))


def chart_grid(
    plans: Sequence[model.ChartPlan],
    *,
    key: str,
    lang: str,
    wide: int = 3,
    eager: int = 0,
    height: int = charts.PLOT_HEIGHT,
    settings: Settings | None = None,
    ahead: Mapping[str, Sequence[model.ChartPlan]] | None = None,
) -> None:
    """Draw ``plans`` in a grid: ``wide - 1`` charts per row up to a 1600 px window, ``wide`` beyond, one
    column on a phone (the browser chooses, so a resized window re-flows without a rerun).

    ``ahead`` gives, by plan name, charts a visitor may ask for next instead of that one (the same metric under
    another smoothing): once the plan is drawn they are built in the background (:func:`prepare_ahead`).

    The first ``eager`` charts are drawn at once (the page's first screen). The others come in batches of a
    row (``wide - 1`` charts), each first shown as placeholders ``height`` + the chart's edges tall (so the page
    does not jump), and drawn - their data built and sent - when the batch comes within a screen of the view:
    a sentinel in the browser reruns the batch's fragment only. A drawn batch stays drawn for the session.
    With the ``draw_all_charts`` setting every chart is drawn at once. ``settings`` default to the page's.
    """
    if settings is None:
        settings = app_state().settings
    renderer = settings.chart_renderer
    narrow = wide - 1
    sizes = {"key": key, "narrow": narrow, "narrow_gaps": narrow - 1, "wide": wide, "wide_gaps": wide - 1}
    lazy = not settings.draw_all_charts and len(plans) > eager
    first = list(plans) if not lazy else list(plans[:eager])
    page = page_state()
    where = (key, page.current_experiment if page is not None else None)
    rest = plans[eager:] if lazy else []
    batches = [list(rest[start : start + narrow]) for start in range(0, len(rest), narrow)]
    names = [(*where, tuple(plan.name for plan in batch)) for batch in batches]
    drawn = _drawn_batches()
    # The specs of every chart this run draws are built together (in parallel), drawn batches included.
    shown = first + [plan for batch, name in zip(batches, names, strict=True) if name in drawn for plan in batch]
    prepare_charts([(plan.key, plan.build) for plan in shown])
    css = _GRID_CSS.format(**sizes) + _SAVE_CSS
    if lazy:
        css += _LAZY_CSS.format(**sizes, height=height + _EDGE_PX)
    st.html("<style>" + css + "</style>")
    ahead = ahead or {}
    with st.container(key=key, horizontal=True, gap="medium"):
        for position, plan in enumerate(first):
            cell = f"{key}-e{position}"
            guarded(partial(_grid_chart, plan, key=cell, renderer=renderer, lang=lang), lang=lang)
        for index, (batch, name) in enumerate(zip(batches, names, strict=True)):
            draw = partial(
                _draw_batch, batch, batch=name, key=key, index=index, lang=lang, renderer=renderer, ahead=ahead
            )
            st.fragment(draw, key=f"{key}-fragment-{index}")()
    # The first charts left for later are built now, in the background, while the browser draws what it has: a
    # person who scrolls to them at once (the overview's comparison charts under a long table) then waits only
    # for the browser. A batch not yet drawn that finds its spec built sends it at once.
    soon = [plan for batch, name in zip(batches, names, strict=True) if name not in drawn for plan in batch]
    prepare_soon(soon[:SOON_CHARTS])
    # the charts drawn at once; each drawn batch asks for its own (_draw_batch)
    prepare_ahead([other for plan in first for other in ahead.get(plan.name, ())])


def highlight_legend(
    views: Sequence[ExperimentView], *, key: str, lang: str, colors: Mapping[str, str] | None = None
) -> list[str]:
    """The page's one colour legend: a chip per experiment in its colour (``colors``, by id: the run of a group of
    repeats in its group's); clicking chips highlights those runs in every chart of the page (the others are
    dimmed). Returns the highlighted experiment ids."""
    labels = model.display_labels(views, lang)
    ids = [view.id for view in views]
    if key in st.session_state:
        st.session_state[key] = [value for value in st.session_state[key] or [] if value in ids]
    rules = []
    for index, view in enumerate(views, start=1):
        rules.append(
            f".st-key-{key} button:nth-of-type({index})::before {{ content: ''; display: inline-block; "
            f"margin-right: 0.4em; {swatch_css((colors or {}).get(view.id, view.color), view.dash)} }}"
        )
    st.html("<style>" + "\n".join(rules) + "</style>")
    picked = st.pills(
        t("legend_highlight", lang),
        ids,
        selection_mode="multi",
        key=key,
        format_func=lambda value: escape_markdown(labels.get(value) or value),
        help=t("legend_highlight_help", lang),
        label_visibility="collapsed",
        width="stretch",
    )
    return [value for value in picked or [] if value in ids]
