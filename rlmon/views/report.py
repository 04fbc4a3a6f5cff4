"""Reports: the overview and the experiment pages of a selection as one HTML file that opens offline.

A report holds what the app shows for the same experiments and view settings (language, smoothing, x axis,
chosen metrics): the header (track, shared settings, progress), the experiments table, the written summary
and the signals, the comparison charts, then one section per experiment (its paragraph and signals, numbers,
source files, settings, training curves and validation charts), and a footer naming the log files and the
time the report was made. The numbers and charts come from the app's own code (:mod:`rlmon.views.overview`,
:mod:`rlmon.views.detail`, :mod:`rlmon.views.tables`, :mod:`rlmon.views.charts`, :mod:`rlmon.analysis.summary`,
:mod:`rlmon.runs.headline`); this module only lays them out.

Self-contained. The Vega, Vega-Lite and vega-embed JavaScript comes from ``vl-convert-python``'s bundle
(:func:`vl_convert.javascript_bundle`, shipped in the wheel: nothing is downloaded) and is inlined with every
chart's data. The file's Content-Security-Policy (``default-src 'none'``) forbids the browser any request,
so a report opened from a mail or chat works with no network and leaks nothing. Charts keep their hover
tooltips; the colour legend above the comparison charts highlights experiments as the app's does; each
chart's menu saves it as PNG or SVG.

Safe. Every text that comes from logs, folder names or ``rlmon.toml`` is HTML-escaped
(:func:`html.escape`) and only ever becomes element text or an attribute value; chart data goes into one
``<script type="application/json">`` block whose ``<``, ``>`` and ``&`` are JSON-escaped, so no log text can
close the block or start markup. The ``rlmon.toml`` description is markdown made safe by the app's own sanitiser
(:func:`rlmon.text.markdown.safe_html`: emphasis, code, lists and ``[text](url)`` links shown with their target;
no image, HTML or autolink).

Chart images. :func:`write_chart_images` writes every chart of a report as PNG and SVG (vl-convert renders
them with the same Vega, no browser needed).
"""

from __future__ import annotations

import dataclasses
import hashlib
import html
import io
import json
import re
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import polars as pl

from rlmon.analysis.groups import Band
from rlmon.analysis.signals import Signal
from rlmon.analysis.smoothing import Smoothing
from rlmon.errors import RlmonError, UnknownExperimentError
from rlmon.logs.cache import LogCache
from rlmon.runs.experiment import SETTING_GROUPS, default_track
from rlmon.runs.loading import cache_color_book, catalog_colors, load_experiment
from rlmon.settings import Settings
from rlmon.sources.discovery import discover_experiments
from rlmon.text import (
    UNKNOWN,
    format_duration,
    format_percent,
    format_progress,
    format_score,
    setting_display,
    setting_label,
    t,
    track_name,
)
from rlmon.text.display import NAME_LIMIT, NO_PATHS, description_text, display_text, public_text
from rlmon.text.lang import parenthesized
from rlmon.text.markdown import safe_html
from rlmon.views import charts, detail, model, overview, tables
from rlmon.views.axes import axis_notes

__all__ = [
    "ReportChart",
    "ReportError",
    "ReportOptions",
    "ReportSelection",
    "chart_file_name",
    "chart_svg",
    "read_selection",
    "render_report",
    "report_charts",
    "report_insights",
    "report_numbers",
    "write_chart_images",
]

PNG_SCALE = 2
"""PNG images are drawn at twice the chart's size: sharp when pasted on a high-density screen."""
_LEGEND_CONFIG = {"labelLimit": 0, "symbolSize": 70, "labelFontSize": 11}
"""The legend style the app's charts are drawn with (rlmon.app.ui): labels never cut."""
_CSP = (
    "default-src 'none'; script-src 'unsafe-inline' 'unsafe-eval'; style-src 'unsafe-inline'; "
    "img-src data: blob:; font-src data:; connect-src 'none'; form-action 'none'; base-uri 'none'"
)
"""No request of any kind: the page runs its own inline scripts (Vega compiles expressions, hence eval) and
shows data: images (the hover tooltips' pictures)."""


class ReportError(RlmonError):
    """A report cannot be made as asked (an unknown experiment or track, nothing selected)."""


@dataclass(frozen=True)
class ReportOptions:
    """The view settings a report is drawn with (the app's controls of the same names)."""

    lang: str = "en"
    smoothing: Smoothing = field(default_factory=lambda: Smoothing("ema", weight=0.6))
    metrics: tuple[str, ...] | None = None
    """Comparison charts; None: the app's defaults for these experiments
    (:func:`~rlmon.views.overview.default_metrics`)."""
    x: str = "step"
    log_scale: bool = False
    max_points: int = 2000
    """Most points per line (the app's ``max_points`` setting)."""
    renderer: str = "auto"
    """``auto`` (each chart's own), ``svg`` or ``canvas``: :func:`rlmon.views.charts.with_renderer`."""
    band: Band = "std"
    """The band of each group of repeats in the comparison charts: ``std`` (mean ± one sample standard deviation,
    as papers report repeats) or ``minmax``."""


@dataclass(frozen=True)
class ReportSelection:
    """What ``rlmon report`` draws: the experiments (in catalog order) and messages about the logs."""

    views: tuple[model.ExperimentView, ...]
    problems: tuple[str, ...] = ()


@dataclass(frozen=True)
class ReportChart:
    """One chart of a report: the section it sits in (``overview`` or an experiment id), its name (a metric key
    or a chart name) and its Vega-Lite spec (datasets as lists of rows)."""

    section: str
    name: str
    spec: dict[str, Any]
    note: str | None = None
    """The chart's metric note (:attr:`rlmon.views.model.ChartPlan.note`), shown under it."""


# ------------------------------------------------------------------------------------------------ numbers


def report_numbers(view: model.ExperimentView) -> model.TableNumbers:
    """First-5 / last-10 mean pass rate and best and last validation with their steps: the numbers the app's
    experiments table shows (:func:`rlmon.views.model.table_numbers`)."""
    return model.table_numbers(view)


def report_insights(views: Sequence[model.ExperimentView], settings: Settings, lang: str) -> model.Insights:
    """Signals, the written summary and each experiment's paragraph, as the app computes them for the same
    experiments (named by the label the pages show)."""
    from rlmon.analysis.signals import detect_all
    from rlmon.analysis.summary import experiment_paragraph, write_summary

    experiments = [
        view.experiment
        if view.label == view.experiment.label
        else dataclasses.replace(view.experiment, label=view.label)
        for view in views
    ]
    found = detect_all(experiments, settings=settings)
    dumped = _dump_signals(views, settings)
    # each experiment's dump signal after its other signals, as the app lists them
    signals = tuple(
        signal
        for experiment in experiments
        for signal in (
            *(item for item in found if item.experiment == experiment.id),
            *(item for item in dumped if item.experiment == experiment.id),
        )
    )
    summary = tuple(write_summary(experiments, list(signals), lang=lang, settings=settings))
    paragraphs = {
        experiment.id: experiment_paragraph(
            experiment,
            [signal for signal in signals if signal.experiment == experiment.id],
            lang=lang,
            peers=experiments,
            settings=settings,
        )
        for experiment in experiments
    }
    return model.Insights(signals=signals, summary=summary, paragraphs=paragraphs)


def _dump_signals(views: Sequence[model.ExperimentView], settings: Settings) -> tuple[Signal, ...]:
    """The signals of the runs' training generation dumps (:func:`rlmon.analysis.outcomes.dump_signal`), as the
    app finds them: the folder the config names, inside the log roots and the ``dump_roots`` setting."""
    from rlmon.analysis.outcomes import dump_signal
    from rlmon.logs.samples import SampleCache

    cache = SampleCache(None)
    local_roots = [root for root in settings.log_roots if isinstance(root, Path)]
    found = [
        dump_signal(
            view.experiment.config, view.ref.path, experiment=view.id, label=view.label,
            allowed=[view.ref.root, *local_roots, *settings.dump_roots], settings=settings, cache=cache,
        )
        for view in views
    ]  # fmt: skip
    return tuple(signal for signal in found if signal is not None)


# ---------------------------------------------------------------------------------------------- selection


def read_selection(
    roots: Sequence[Path],
    *,
    experiment_ids: Sequence[str] = (),
    track: str | None = None,
    settings: Settings,
    cache: LogCache,
    now: float | None = None,
) -> ReportSelection:
    """Read the experiments a report is about: those named (``experiment_ids``), else those of ``track``,
    else those of the track the app opens on (:func:`rlmon.runs.experiment.default_track`). Experiments
    ``rlmon.toml`` hides are left out unless named.

    Raises
    ------
    CatalogError
        A root is missing or cannot be listed.
    ReportError
        An experiment id or a track that the roots do not hold.
    """
    catalog = discover_experiments(roots)
    known = {ref.id for ref in catalog.experiments}
    unknown = [item for item in experiment_ids if item not in known]
    if unknown:
        raise UnknownExperimentError(
            f"no experiment {', '.join(repr(item) for item in unknown)} under the log root(s); known: "
            + (", ".join(sorted(known)) or "none")
        )
    moment = time.time() if now is None else now
    # Every experiment is read, hidden ones too: colours are handed out over the whole catalog, as in the app.
    loaded = [load_experiment(ref, cache, now=moment, settings=settings) for ref in catalog.experiments]
    colors = catalog_colors(catalog, loaded, book=cache_color_book(cache))
    for experiment in loaded:
        experiment.color = colors.get(experiment.id, experiment.color)
    hidden = {ref.id for ref in catalog.experiments if ref.overrides.hidden}
    experiments = [item for item in loaded if item.id in experiment_ids or item.id not in hidden]
    if experiment_ids:
        chosen = [experiment for experiment in experiments if experiment.id in experiment_ids]
    else:
        tracks = list(dict.fromkeys(experiment.track for experiment in experiments))
        name = track if track is not None else default_track(experiments)
        if track is not None and track not in tracks:
            raise ReportError(f"no track {track!r} under the log root(s); tracks: {', '.join(tracks) or 'none'}")
        chosen = [experiment for experiment in experiments if name is None or experiment.track == name]
    if not chosen:
        raise ReportError("no experiments to report on under the log root(s)")
    refs = {ref.id: ref for ref in catalog.experiments}
    views = tuple(model.view_of(refs[experiment.id], experiment, serial=index) for index, experiment in
                  enumerate(chosen, start=1))  # fmt: skip
    # the report is one view: its runs' names and colours as the app gives them there
    lineup = model.lineup_of(views)
    views = tuple(model.styled(view, lineup) for view in views)
    problems = [*catalog.problems]
    for view in views:
        problems += [f"{view.label}: {problem}" for problem in view.experiment.problems]
    return ReportSelection(views=views, problems=tuple(problems))


# ------------------------------------------------------------------------------------------------- charts


def report_charts(
    views: Sequence[model.ExperimentView], *, insights: model.Insights, options: ReportOptions
) -> list[ReportChart]:
    """Every chart of the report, in page order: the comparison charts, then per experiment its training curves
    and validation charts. Specs are the app's (:func:`rlmon.views.overview.comparison_charts`,
    :func:`~rlmon.views.detail.detail_charts`, :func:`~rlmon.views.detail.validation_panels`) with their data as
    rows."""
    lang = options.lang
    metrics = options.metrics
    if metrics is None:
        metrics = tuple(overview.default_metrics(overview.metric_options(views)))
    signals = insights.signals
    found: list[ReportChart] = []
    plans = overview.comparison_charts(
        metrics, views, smoothing=options.smoothing, x=options.x, log_scale=options.log_scale, signals=signals,
        highlight=(), lang=lang, max_points=options.max_points, band=options.band,
    )  # fmt: skip
    found += [
        ReportChart("overview", plan.name, _plain_spec(plan.build(), options.renderer), plan.note) for plan in plans
    ]
    for view in views:
        details = detail.detail_charts(
            view, smoothing=options.smoothing, x=options.x, signals=signals, lang=lang, max_points=options.max_points
        )
        found += [
            ReportChart(view.id, plan.name, _plain_spec(plan.build(), options.renderer), plan.note) for plan in details
        ]
        for item in detail.validation_panels(view, x=options.x, lang=lang):
            if item.chart is not None:
                found.append(ReportChart(view.id, item.chart.name, _plain_spec(item.chart.build(), options.renderer)))
    return found


def _plain_spec(spec: dict[str, Any], renderer: str) -> dict[str, Any]:
    """The app's spec as a page outside Streamlit draws it: datasets as rows (the app ships Arrow bytes), the
    legend style the app applies, and the width of the page's column."""
    return _with_rows(charts.with_highlight_test(charts.with_renderer(spec, renderer)))


def _with_rows(spec: dict[str, Any]) -> dict[str, Any]:
    """``spec`` with its Arrow datasets as rows, the app's legend style and the width of its column."""
    datasets = {}
    for name, data in spec.get("datasets", {}).items():
        rows = pl.read_ipc_stream(io.BytesIO(data)).to_dicts() if isinstance(data, bytes | bytearray) else data
        datasets[name] = rows
    config = dict(spec.get("config", {}))
    config["legend"] = {**config.get("legend", {}), **_LEGEND_CONFIG}
    view = {key: value for key, value in dict(config.get("view", {})).items() if not key.startswith("continuous")}
    config["view"] = view
    return {**spec, "config": config, "datasets": datasets, "width": "container"}


# ------------------------------------------------------------------------------------------------- images


def write_chart_images(
    found: Sequence[ReportChart], folder: Path, *, formats: Sequence[str] = ("png", "svg")
) -> list[Path]:
    """Write each chart as ``NN-<section>-<name>.png`` / ``.svg`` into ``folder`` (created if missing), drawn
    800 px wide by vl-convert. File names keep letters, digits, ``-`` and ``_`` of the names only.

    Raises
    ------
    ReportError
        A file cannot be written.
    """
    import vl_convert

    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise ReportError(f"cannot create the folder ({error.strerror or error})", path=folder) from error
    written: list[Path] = []
    for index, chart in enumerate(found, start=1):
        spec = _static_spec(chart.spec)
        stem = f"{index:02d}-{_file_part(chart.section)}-{_file_part(chart.name)}"
        for kind in formats:
            path = folder / f"{stem}.{kind}"
            try:
                if kind == "png":
                    path.write_bytes(vl_convert.vegalite_to_png(spec, vl_version="6.4", scale=PNG_SCALE))
                else:
                    path.write_text(_svg(spec), encoding="utf-8")
            except OSError as error:
                raise ReportError(f"cannot write ({error.strerror or error})", path=path) from error
            written.append(path)
    return written


def chart_svg(spec: dict[str, Any]) -> str:
    """An app chart (a spec as :func:`rlmon.app.charts.show_chart` draws it, Arrow datasets and all) as an SVG image,
    drawn as :func:`write_chart_images` draws it: 800 px wide, with its own colour legend. ``spec`` is left as
    it is (the app's specs are shared, read only)."""
    return _svg(_static_spec(_with_rows(spec)))


def chart_file_name(title: str, *, fallback: str, suffix: str) -> str:
    """A file name for a chart image: its ``title`` kept to letters, digits, ``-`` and ``_`` (``fallback``,
    e.g. the metric key, when the title keeps none of them, as a Chinese title), then ``.<suffix>``.

    >>> chart_file_name("pass rate (%)", fallback="pass_rate", suffix="svg")
    'pass_rate.svg'
    >>> chart_file_name("通过率", fallback="../pass_rate", suffix="svg")
    'pass_rate.svg'
    """
    part = _file_part(title)
    if part == "chart":
        part = _file_part(fallback)
    return f"{part}.{suffix}"


def _svg(static: dict[str, Any]) -> str:
    import vl_convert

    return str(vl_convert.vegalite_to_svg(static, vl_version="6.4"))


def _static_spec(spec: dict[str, Any]) -> dict[str, Any]:
    """A chart for an image: 800 px wide, with its colour legend, the hover tooltip's picture left as its plain
    text (an image has no hover, and vl-convert's Vega lacks ``encodeURIComponent``, which the picture is made
    with)."""
    text = json.dumps({**spec, "width": 800}, allow_nan=False).replace("encodeURIComponent(", "(")
    static: dict[str, Any] = json.loads(text)
    # In the app and the report one colour legend serves every comparison chart; an image carries its own.
    for layer in static.get("layer", []):
        color = layer.get("encoding", {}).get("color")
        if isinstance(color, dict) and "legend" in color and color["legend"] is None:
            color["legend"] = {"orient": "bottom", "title": None, "columns": 4}
            break
    return static


def _file_part(text: str) -> str:
    part = re.sub(r"[^A-Za-z0-9_-]+", "_", text).strip("_")
    return part[:60] or "chart"


# --------------------------------------------------------------------------------------------------- HTML


def _text(value: object) -> str:
    """Log text as element text or an attribute value: bidi controls out (:func:`rlmon.views.display_text`),
    then escaped."""
    return html.escape(display_text(str(value)), quote=True)


def _table(headers: Sequence[str], rows: Sequence[Sequence[object]], *, css: str = "") -> str:
    head = "".join(f"<th>{_text(name)}</th>" for name in headers)
    body = "".join("<tr>" + "".join(f"<td>{_text(cell)}</td>" for cell in row) + "</tr>" for row in rows)
    return f'<div class="scroll"><table class="{css}"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>'


def _json_for_script(value: Any) -> str:
    """JSON that can sit inside ``<script type="application/json">``: no ``<``, ``>`` or ``&`` left as such."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return (
        text.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e")
        .replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")
    )  # fmt: skip


def _smoothing_text(smoothing: Smoothing, lang: str) -> str:
    method = t("smoothing_" + smoothing.method, lang)
    if smoothing.method == "ema":
        return f"{method} {smoothing.weight:g}"
    if smoothing.method == "moving_average":
        window = t("report_setting", lang, name=t("control_window", lang), value=smoothing.window)
        return parenthesized(method, window, lang)
    return method


def render_report(
    views: Sequence[model.ExperimentView],
    *,
    numbers: Mapping[str, model.TableNumbers],
    insights: model.Insights,
    options: ReportOptions,
    problems: Sequence[str] = (),
    paths: Mapping[str, str] = NO_PATHS,
    made_at: float | None = None,
) -> str:
    """The report as one HTML document (see the module docstring).

    Parameters
    ----------
    views
        The experiments, in the order the app lists them.
    numbers
        Experiment id -> headline numbers (:func:`report_numbers`, or the app's ``rlmon.app.digests.headline``).
    insights
        Signals, summary and paragraphs (:func:`report_insights`, or the app's ``rlmon.app.digests.insights_for``).
    options
        Language and view settings.
    problems
        Messages about the logs (files skipped...), listed in the footer.
    paths
        Folders to name by their public name where the report names files (the footer's messages, the log
        files' notes): an object-storage mirror's folder as its ``s3://`` URL
        (:class:`rlmon.sources.objstore.PublicPaths`).
    made_at
        When the report was made, seconds since the epoch (now when None).
    """
    lang = options.lang
    found = report_charts(views, insights=insights, options=options)
    datasets: dict[str, Any] = {}
    chart_specs: list[dict[str, Any]] = []
    for chart in found:
        spec = dict(chart.spec)
        # The app names a chart's datasets by role (the same names in every chart): here they are named by
        # their rows, so that charts sharing rows ship them once and no two charts' rows mix.
        renamed: dict[str, str] = {}
        for name, rows in spec.pop("datasets", {}).items():
            table = _columns(rows)
            digest = hashlib.blake2b(json.dumps(table, allow_nan=False).encode(), digest_size=12).hexdigest()
            renamed[name] = f"data-{digest}"
            datasets.setdefault(renamed[name], table)
        chart_specs.append(_renamed_data(spec, renamed))
    charts_by_section: dict[str, list[tuple[int, str | None]]] = {}
    for index, chart in enumerate(found):
        charts_by_section.setdefault(chart.section, []).append((index, chart.note))
    moment = time.time() if made_at is None else made_at
    made = time.strftime("%Y-%m-%d %H:%M:%S %Z", time.localtime(moment))
    tracks = list(dict.fromkeys(view.experiment.track for view in views))
    title = " · ".join(display_text(track_name(track, lang), limit=NAME_LIMIT) for track in tracks)
    parts = [
        _header(views, title=title, made=made, options=options),
        _contents(views, lang),
        _experiments_table(views, numbers, lang),
        _summary(views, insights, lang),
        _comparison(views, charts_by_section.get("overview", []), lang),
    ]
    for index, view in enumerate(views, start=1):
        parts.append(
            _experiment_section(view, index, numbers.get(view.id), insights, charts_by_section, lang, paths=paths)
        )
    parts.append(_footer(views, problems, made=made, lang=lang, paths=paths))
    payload = {
        "charts": chart_specs,
        "datasets": datasets,
        "labels": {
            "CLICK_TO_VIEW_ACTIONS": t("report_chart_menu", lang),
            "PNG_ACTION": t("report_save_png", lang),
            "SVG_ACTION": t("report_save_svg", lang),
        },
    }
    return _PAGE.format(
        lang="zh-CN" if lang == "zh" else "en",
        csp=_CSP,
        title=_text(t("report_title", lang) + (" · " + title if title else "")),
        css=_CSS,
        body="\n".join(parts),
        noscript=_text(t("report_noscript", lang)),
        data=_json_for_script(payload),
        bundle=_javascript_bundle(),
        script=_SCRIPT,
    )


def _renamed_data(node: Any, renamed: Mapping[str, str]) -> Any:
    """``node`` (a spec or a part of one) with every ``{"data": {"name": old}}`` reference renamed."""
    if isinstance(node, list):
        return [_renamed_data(item, renamed) for item in node]
    if not isinstance(node, dict):
        return node
    out = {key: _renamed_data(value, renamed) for key, value in node.items()}
    data = node.get("data")
    if isinstance(data, dict) and data.get("name") in renamed:
        out["data"] = {**data, "name": renamed[data["name"]]}
    return out


def _columns(rows: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Rows as columns (names once, not once per row): the page turns them back into rows."""
    names = list(rows[0]) if rows else []
    return {"names": names, "columns": [[row.get(name) for row in rows] for name in names]}


def _header(views: Sequence[model.ExperimentView], *, title: str, made: str, options: ReportOptions) -> str:
    lang = options.lang
    line = overview.shared_settings_line(views, lang)
    view_line = " · ".join(
        [
            t(
                "report_setting",
                lang,
                name=t("control_smoothing", lang),
                value=_smoothing_text(options.smoothing, lang),
            ),
            t("report_setting", lang, name=t("control_x", lang), value=t("x_" + options.x, lang)),
        ]
    )
    return (
        f'<header><p class="kicker">{_text(t("report_title", lang))}</p><h1>{html.escape(title)}</h1>'
        + (f'<p class="shared">{_text(line)}</p>' if line else "")
        + f'<p class="muted">{_text(overview.progress_line(views, lang))}</p>'
        + f'<p class="muted">{_text(t("report_made", lang, time=made))} · {_text(view_line)}</p>'
        + "".join(f'<p class="muted">{_text(note)}</p>' for note in axis_notes(views, options.x, lang))
        + "</header>"
    )


def _contents(views: Sequence[model.ExperimentView], lang: str) -> str:
    links = "".join(
        f'<li><a href="#exp-{index}"><span class="dot" style="background:{_color(view.color)}"></span>'
        f"{_text(view.label)}</a></li>"
        for index, view in enumerate(views, start=1)
    )
    return f'<nav aria-label="{_text(t("report_contents", lang))}"><ul>{links}</ul></nav>'


def _color(color: str) -> str:
    """A colour for an inline style: ``#rrggbb`` only (``rlmon.toml`` may set one), else grey."""
    return color if re.fullmatch(r"#[0-9a-fA-F]{6}", color) else "#9ca3af"


def _experiments_table(
    views: Sequence[model.ExperimentView], numbers: Mapping[str, model.TableNumbers], lang: str
) -> str:
    groups = tables.groups_frame(views, numbers, lang=lang)
    repeats = ""
    if groups.height:
        headers = ["col_repeat_group", "col_members", "col_first5", "col_last10", "col_best_val_only"]
        repeats = (
            f'<section><h2>{_text(t("groups_title", lang))}</h2><p class="muted">{_text(t("groups_caption", lang))}'
            "</p>" + _table([t(name, lang) for name in headers], groups.rows(), css="groups") + "</section>"
        )
    frame = tables.experiments_frame(views, numbers, slugs={}, lang=lang)
    names = {
        "experiment": "col_experiment", "track": "col_track", "status": "col_status", "hours": "col_hours",
        "eta": "col_eta", "first5": "col_first5", "last10": "col_last10", "best_val": "col_best_val",
        "last_val": "col_last_val",
    }  # fmt: skip
    shown = [name for name in names if name in frame.columns]
    rows = frame.select(shown).rows()
    return (
        repeats
        + f"<section><h2>{_text(t('table_title', lang))}</h2>"
        + _table([t(names[name], lang) for name in shown], rows, css="experiments")
        + "</section>"
    )


def _summary(views: Sequence[model.ExperimentView], insights: model.Insights, lang: str) -> str:
    from rlmon.analysis.signals import KINDS
    from rlmon.analysis.summary import paragraph_parts

    paragraphs = ""
    for paragraph in insights.summary:
        lead, items = paragraph_parts(paragraph)
        listed = "".join(f"<li>{_text(item)}</li>" for item in items)
        paragraphs += f"<p>{_text(lead)}</p>" + (f"<ul>{listed}</ul>" if listed else "")
    signals = tables.signals_frame(views, insights.signals, kinds=KINDS, slugs={}, lang=lang)
    heading = f"<h3>{_text(t('signals_title', lang, count=signals.height))}</h3>"
    if signals.is_empty():
        table = f'<p class="muted">{_text(t("signals_none", lang))}</p>'
    else:
        columns = ("experiment", "severity", "kind", "step", "message", "rule")
        table = _table([t("col_" + name, lang) for name in columns], signals.select(columns).rows(), css="signals")
    caption = f'<p class="muted">{_text(t("summary_caption", lang))}</p>' if paragraphs else ""
    return f"<section><h2>{_text(t('summary_title', lang))}</h2>{paragraphs}{caption}{heading}{table}</section>"


def _chart_divs(cells: Sequence[tuple[int, str | None]], css: str) -> str:
    """The grid of charts ``cells`` (index, note): each chart's note, when it has one, under it."""
    return (
        f'<div class="grid {css}">'
        + "".join(
            f'<div class="cell"><div class="chart" data-chart="{index}"></div>'
            + (f'<p class="muted note">{_text(note)}</p>' if note else "")
            + "</div>"
            for index, note in cells
        )
        + "</div>"
    )


def _comparison(views: Sequence[model.ExperimentView], indices: Sequence[tuple[int, str | None]], lang: str) -> str:
    labels = model.display_labels(views, lang)
    chips = "".join(
        f'<button type="button" class="chip" data-experiment="{index}" aria-pressed="false">'
        f'<span class="dot" style="background:{_color(view.color)}"></span>{_text(labels[view.id])}</button>'
        for index, view in enumerate(views)
    )
    ids = _json_for_script([view.id for view in views])
    return (
        f"<section><h2>{_text(t('charts_title', lang))}</h2>"
        f'<div class="legend" role="group" aria-label="{_text(t("report_legend_hint", lang))}">{chips}</div>'
        f'<p class="muted">{_text(t("report_legend_hint", lang))}</p>'
        f'<script type="application/json" id="rlmon-ids">{ids}</script>'
        + _chart_divs(indices, "comparison")
        + "</section>"
    )


def _experiment_section(
    view: model.ExperimentView,
    index: int,
    numbers: model.TableNumbers | None,
    insights: model.Insights,
    charts_by_section: Mapping[str, Sequence[tuple[int, str | None]]],
    lang: str,
    *,
    paths: Mapping[str, str],
) -> str:
    experiment = view.experiment
    status = f"{model.STATUS_GLYPHS.get(view.status, '')} {t('status_' + view.status, lang)}"
    track = track_name(experiment.track, lang)
    parts = [
        f'<section class="experiment" id="exp-{index}"><h2><span class="dot big" '
        f'style="background:{_color(view.color)}"></span>{_text(view.full_label)}</h2>',
        f'<p class="muted">{_text(experiment.algorithm.name)} · {_text(track)} · {_text(status)} · '
        f"{_text(format_progress(experiment.steps_done, experiment.total_steps, lang))}</p>",
    ]
    description = description_text(
        experiment.description,
        algorithm=experiment.algorithm.key,
        algorithm_description=experiment.algorithm.description,
        lang=lang,
    )
    if description:
        parts.append(f'<div class="description">{safe_html(description, links=True)}</div>')
    paragraph = insights.paragraphs.get(view.id)
    if paragraph:
        parts.append(f'<p class="paragraph"><b>{_text(t("exp_paragraph_title", lang))}</b> · {_text(paragraph)}</p>')
    own = [signal for signal in insights.signals if signal.experiment == view.id]
    if own:
        items = "".join(f'<li class="{_text(signal.severity)}">{_text(signal.text(lang))}</li>' for signal in own)
        parts.append(f'<ul class="signals">{items}</ul>')
    parts.append(_number_cells(view, numbers, lang))
    if experiment.failure:
        frames = experiment.failure_frames
        parts.append(f"<pre>{_text(chr(10).join([*frames, experiment.failure]))}</pre>")
    parts.append(f"<h3>{_text(t('exp_sources', lang))}</h3>" + _sources(view, lang, paths))
    parts.append(f"<h3>{_text(t('exp_settings', lang))}</h3>" + _settings(view, lang))
    indices = charts_by_section.get(view.id, [])
    parts.append(f"<h3>{_text(t('exp_charts', lang))}</h3>" + _chart_divs(indices, "detail"))
    parts.append("</section>")
    return "".join(parts)


def _number_cells(view: model.ExperimentView, numbers: model.TableNumbers | None, lang: str) -> str:
    experiment = view.experiment
    numbers = numbers or model.TableNumbers()
    best = numbers.best_val
    step_time = experiment.median_step_s
    cells = [
        (t("exp_elapsed", lang), format_duration(experiment.elapsed_h, lang)),
        (t("exp_eta", lang), format_duration(experiment.eta_h, lang)),
        (t("exp_step_time", lang), format_duration(step_time / 3600, lang) if step_time else UNKNOWN),
        (t("col_first5", lang), format_percent(numbers.first5_pass, lang)),
        (t("col_last10", lang), format_percent(numbers.last10_pass, lang)),
        (
            t("col_best_val", lang),
            f"{format_score(best, lang)} @{numbers.best_val_step}" if best is not None else UNKNOWN,
        ),
    ]
    return (
        '<dl class="numbers">'
        + "".join(f"<div><dt>{_text(label)}</dt><dd>{_text(value)}</dd></div>" for label, value in cells)
        + "</dl>"
    )


def _sources(view: model.ExperimentView, lang: str, paths: Mapping[str, str]) -> str:
    headers = [t("col_" + name, lang) for name in tables.SOURCE_COLUMNS]
    return _table(headers, tables.sources_frame(view, lang, paths=paths).rows(), css="sources")


def _settings(view: model.ExperimentView, lang: str) -> str:
    items = view.experiment.settings
    groups = [group for group in SETTING_GROUPS if any(item.group == group for item in items)]
    if not groups:
        return f'<p class="muted">{_text(t("no_data", lang))}</p>'
    blocks = []
    for group in groups:
        rows = [
            (setting_label(item.key, item.label, lang), setting_display(item, lang))
            for item in items
            if item.group == group
        ]
        blocks.append(
            f"<div><h4>{_text(t('group_' + group, lang))}</h4>"
            + _table([t("col_setting", lang), t("col_value", lang)], rows, css="settings")
            + "</div>"
        )
    return '<div class="settings-grid">' + "".join(blocks) + "</div>"


def _footer(
    views: Sequence[model.ExperimentView], problems: Sequence[str], *, made: str, lang: str, paths: Mapping[str, str]
) -> str:
    # Named from the log root down (experiment id, file name): the file may leave the server, its folders need not.
    files = [f"{view.id}/{source.name}" for view in views for source in view.experiment.sources]
    items = "".join(f"<li><code>{_text(path)}</code></li>" for path in files)
    notes = ""
    if problems:
        notes = (
            f"<h3>{_text(t('log_notes', lang, count=len(problems)))}</h3><ul>"
            + "".join(f"<li>{_text(public_text(problem, paths))}</li>" for problem in problems)
            + "</ul>"
        )
    from rlmon import __version__

    return (
        f'<footer><h2>{_text(t("report_logs", lang, count=len(files)))}</h2><ul class="files">{items}</ul>'
        f'{notes}<p class="muted">{_text(t("report_footer", lang, version=__version__, time=made))}</p>'
        "</footer>"
    )


_BUNDLE: list[str] = []


def _javascript_bundle() -> str:
    """Vega, Vega-Lite 6.4 (the version the specs follow) and vega-embed, from vl-convert's bundle; read once."""
    if not _BUNDLE:
        import vl_convert

        bundle = vl_convert.javascript_bundle("window.vegaEmbed = vegaEmbed;", vl_version="6.4")
        if "</script" in bundle.lower():  # cannot happen with a sane bundle; the page would break
            raise ReportError("the vl-convert JavaScript bundle contains '</script'")
        _BUNDLE.append(bundle)
    return _BUNDLE[0]


_CSS = """
:root { color-scheme: light; --muted: #6b7280; --line: #e5e7eb; }
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.5 system-ui, -apple-system, "Segoe UI", "PingFang SC", "Microsoft YaHei",
       sans-serif; color: #111827; background: #fff; }
main { max-width: 1500px; margin: 0 auto; padding: 1.5rem 1.25rem 3rem; }
h1 { font-size: 1.9rem; margin: 0.1rem 0 0.3rem; overflow-wrap: anywhere; }
h2 { font-size: 1.35rem; margin: 2.2rem 0 0.6rem; overflow-wrap: anywhere; }
h3 { font-size: 1.05rem; margin: 1.4rem 0 0.4rem; }
h4 { font-size: 0.85rem; margin: 0.4rem 0 0.2rem; color: var(--muted); font-weight: 600; }
p, li, td, dd { overflow-wrap: anywhere; unicode-bidi: plaintext; }
.kicker { margin: 0; color: var(--muted); font-size: 0.85rem; letter-spacing: 0.04em; text-transform: uppercase; }
.shared { font-weight: 600; margin: 0.2rem 0; }
.muted { color: var(--muted); font-size: 0.88rem; margin: 0.2rem 0; }
nav ul { list-style: none; padding: 0; margin: 0.8rem 0 0; display: flex; flex-wrap: wrap; gap: 0.4rem 1rem; }
nav a { color: inherit; text-decoration: none; border-bottom: 1px dotted var(--muted); }
.dot { display: inline-block; width: 0.7em; height: 0.7em; border-radius: 50%; margin-right: 0.35em; }
.dot.big { width: 0.8em; height: 0.8em; }
.scroll { overflow-x: auto; }
table { border-collapse: collapse; width: 100%; font-size: 0.88rem; }
th, td { text-align: left; padding: 0.3rem 0.6rem; border-bottom: 1px solid var(--line); vertical-align: top; }
th { color: var(--muted); font-weight: 600; white-space: nowrap; }
table.experiments td:not(:first-child) { white-space: nowrap; }
.legend { display: flex; flex-wrap: wrap; gap: 0.4rem; }
.chip { font: inherit; font-size: 0.85rem; border: 1px solid var(--line); background: #fff; border-radius: 1rem;
        padding: 0.15rem 0.7rem; cursor: pointer; max-width: 100%; overflow-wrap: anywhere; text-align: left; }
.chip[aria-pressed="true"] { border-color: #111827; background: #f3f4f6; font-weight: 600; }
.grid { display: grid; grid-template-columns: repeat(3, minmax(0, 1fr)); gap: 1rem 1.25rem; margin-top: 0.6rem; }
@media (max-width: 1100px) { .grid { grid-template-columns: repeat(2, minmax(0, 1fr)); } }
@media (max-width: 700px) { .grid { grid-template-columns: minmax(0, 1fr); } main { padding: 1rem 0.75rem; } }
.cell { min-width: 0; }
/* vega-embed makes its element an inline-block, which a grid item was made a block again; inside a cell it
   would shrink to its content, before the chart's "container" width is known */
.cell > .chart { display: block; width: 100%; }
.chart { min-width: 0; min-height: 150px; }
.note { margin: 0.2rem 0 0; font-size: 0.8rem; }
.chart .vega-embed { width: 100%; }
.numbers { display: grid; grid-template-columns: repeat(auto-fill, minmax(150px, 1fr)); gap: 0.5rem 1rem;
           margin: 0.8rem 0; }
.numbers dt { color: var(--muted); font-size: 0.8rem; }
.numbers dd { margin: 0; font-size: 1.25rem; font-weight: 600; }
.paragraph, .description { margin: 0.5rem 0; }
.description p { margin: 0.3rem 0; }
.link-target { color: #6b7280; overflow-wrap: anywhere; }
ul.signals { margin: 0.4rem 0; padding-left: 1.2rem; }
ul.signals li.critical { color: #b91c1c; }
ul.signals li.warning { color: #b45309; }
.settings-grid { display: grid; grid-template-columns: repeat(auto-fill, minmax(280px, 1fr)); gap: 0.5rem 1.25rem; }
section.experiment { border-top: 2px solid var(--line); margin-top: 2.5rem; }
pre { white-space: pre-wrap; overflow-wrap: anywhere; background: #fef2f2; padding: 0.6rem; font-size: 0.8rem; }
footer { border-top: 2px solid var(--line); margin-top: 3rem; }
footer ul.files { font-size: 0.8rem; padding-left: 1.2rem; }
.noscript { background: #fef3c7; padding: 0.6rem; }
"""

_SCRIPT = r"""
(() => {
  const payload = JSON.parse(document.getElementById('rlmon-data').textContent);
  const ids = JSON.parse(document.getElementById('rlmon-ids').textContent);
  const rowsOf = (table) => {
    const count = table.columns.length ? table.columns[0].length : 0;
    const rows = new Array(count);
    for (let i = 0; i < count; i++) {
      const row = {};
      table.names.forEach((name, c) => { row[name] = table.columns[c][i]; });
      rows[i] = row;
    }
    return rows;
  };
  const datasets = {};
  for (const [name, table] of Object.entries(payload.datasets)) datasets[name] = rowsOf(table);
  const chosen = new Set();
  const views = new Map();
  const options = (spec) => ({
    renderer: ((spec.usermeta || {}).embedOptions || {}).renderer || 'svg',
    actions: {export: {png: true, svg: true}, source: false, compiled: false, editor: false},
    scaleFactor: {png: 2, svg: 1},
    i18n: payload.labels,
    // The hover tooltips build their picture with encodeURIComponent, which newer Vega (Streamlit's) knows
    // and the bundled Vega 6.2 does not.
    expressionFunctions: {encodeURIComponent: (value) => encodeURIComponent(String(value))},
  });
  // A row names its experiment, or only its label (the smoothed line's rows): the chart's other rows map labels.
  const highlightRows = (rows, experimentOf) => rows.map((row) => {
    if (!('hl' in row)) return row;
    const experiment = 'experiment' in row ? row.experiment : experimentOf.get(row.label);
    return experiment === undefined ? row : {...row, hl: chosen.size === 0 || chosen.has(experiment)};
  });
  const draw = async (element) => {
    const index = Number(element.dataset.chart);
    const base = payload.charts[index];
    const names = new Set();
    JSON.stringify(base, (key, value) => {
      if (key === 'name' && typeof value === 'string') names.add(value);
      return value;
    });
    const own = {};
    const experimentOf = new Map();
    for (const name of names) {
      for (const row of datasets[name] || []) {
        if ('experiment' in row && 'label' in row) experimentOf.set(row.label, row.experiment);
      }
    }
    for (const name of names) if (datasets[name]) own[name] = highlightRows(datasets[name], experimentOf);
    const spec = {...base, datasets: own};
    if (views.has(index)) views.get(index).finalize();
    const result = await vegaEmbed(element, spec, options(base));
    // The hover rule's tooltip is asked for through its nearest-point (voronoi) cell, whose datum is the rule's
    // scene item: this Vega gives the cell's own (missing) field, "undefined"; the rule's datum has the picture.
    const shown = result.view.tooltip();
    result.view.tooltip(function (handler, event, item, value) {
      const rule = item && item.datum && item.datum.datum;
      const real = value === 'undefined' && rule && rule._tooltip !== undefined ? rule._tooltip : value;
      return shown.call(this, handler, event, item, real);
    });
    await result.view.resize().runAsync(); // setting the handler clears the drawing: draw again
    views.set(index, result);
  };
  const charts = [...document.querySelectorAll('.chart[data-chart]')];
  const comparison = [...document.querySelectorAll('.grid.comparison .chart[data-chart]')];
  Promise.all(charts.map(draw)).then(() => { document.body.dataset.drawn = String(charts.length); },
    (error) => { document.body.dataset.drawError = String(error); });
  for (const chip of document.querySelectorAll('.chip[data-experiment]')) {
    chip.addEventListener('click', () => {
      const id = ids[Number(chip.dataset.experiment)];
      if (chosen.has(id)) chosen.delete(id); else chosen.add(id);
      chip.setAttribute('aria-pressed', String(chosen.has(id)));
      comparison.forEach(draw);
    });
  }
})();
"""

_PAGE = """<!DOCTYPE html>
<html lang="{lang}">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{csp}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="rlmon">
<title>{title}</title>
<style>{css}</style>
</head>
<body>
<main>
<noscript><p class="noscript">{noscript}</p></noscript>
{body}
</main>
<script type="application/json" id="rlmon-data">{data}</script>
<script>{bundle}</script>
<script>{script}</script>
</body>
</html>
"""
