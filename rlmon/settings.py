"""Every setting of rlmon, in one table.

Each setting has a name (the :class:`Settings` field), an environment variable, a command-line option, a
default, a type and a help text. :func:`load_settings` is the only place in rlmon that looks at environment
values, and it is handed them explicitly; library functions take the resulting :class:`Settings` (or single
values from it) as arguments.

Precedence: command line, then environment, then the default.

>>> settings = load_settings(["--log-root", "/data/logs"], {"RLMON_STALL_FACTOR": "4"})
>>> settings.stall_factor
4.0
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from rlmon.access import normalize_domain, normalize_email
from rlmon.errors import SettingError
from rlmon.roots import ObjectRoot, is_object_url, parse_object_url
from rlmon.schema import MAX_KEYS

__all__ = [
    "ALERT_KINDS",
    "ALERT_SEVERITIES",
    "CHART_RENDERERS",
    "LANGUAGES",
    "SETTINGS",
    "SMOOTHING_KINDS",
    "SettingSpec",
    "Settings",
    "default_cache_dir",
    "load_settings",
    "setting_range",
    "split_root_list",
    "split_target_list",
]

LANGUAGES = ("en", "zh")
SMOOTHING_KINDS = ("ema", "moving_average", "none")
CHART_RENDERERS = ("auto", "svg", "canvas")
ALERT_KINDS = (
    "crashed",
    "stalled",
    "non_finite",
    "finished",
    "best",
    "signals",
    "spike",
    "entropy_rising",
    "entropy_collapse",
    "validation_drop",
    "length_cap",
    "mismatch_high",
    "pass_rate_collapse",
    "kl_blowup",
    "probs_diff_high",
    "rollout_corr",
    "step_time_regression",
    "collapse_signature",
)
"""What an alert can be about (``alert_kinds``, ``rlmon.toml``'s ``[alerts] kinds``): a run that crashed, stalled
(and later resumed), logged NaN/inf, finished, reached a new best validation score; ``signals`` is every run-health
signal of severity warning or above, and each of those signals' kinds may be named alone
(:mod:`rlmon.alerts.events` keeps this list and :mod:`rlmon.analysis.signals` in step)."""
DEFAULT_ALERT_KINDS = ("crashed", "stalled", "non_finite", "signals", "finished")
ALERT_SEVERITIES = ("info", "warning", "critical")
_TRUE = ("1", "true", "yes", "on")
_FALSE = ("0", "false", "no", "off")


@dataclass(frozen=True)
class SettingSpec:
    """One row of the settings table."""

    name: str
    """Field name on :class:`Settings` (snake_case)."""
    env: str
    """Environment variable, ``RLMON_<NAME>``."""
    default: Any
    """Default value (already of the setting's type); ``None`` for computed defaults (see help)."""
    type: str
    """Human-readable type: ``paths``, ``path``, ``float``, ``int``, ``str``, ``bool`` (``1``/``0``, ``true``/``false``,
    ``yes``/``no``, ``on``/``off``; the option alone means true), ``emails`` or ``domains`` (lists: separated by
    commas or spaces, the option repeatable), ``urls`` (``scheme://...`` each), ``words`` (several of
    ``choices``, separated by commas or spaces), ``url`` (``http(s)://host[/path]`` or empty)."""
    help: str
    """One or two sentences for ``--help`` and the README."""
    choices: tuple[str, ...] = ()
    minimum: float | None = None
    """Smallest accepted value for numbers (inclusive)."""
    maximum: float | None = None
    """Largest accepted value for numbers (inclusive)."""
    repeatable: bool = False
    """The command-line option may be given several times (collected into a list)."""

    @property
    def option(self) -> str:
        """The command-line option, ``--log-root`` for ``log_roots``."""
        stem = self.name.removesuffix("s") if self.repeatable else self.name
        return "--" + stem.replace("_", "-")


SETTINGS: tuple[SettingSpec, ...] = (
    SettingSpec(
        "log_roots",
        "RLMON_LOG_ROOT",
        (),
        "paths",
        "Folders searched for verl logs; every folder below them holding logs is one experiment. "
        "An s3://bucket/prefix root is read from object storage (S3 or S3-compatible) through a mirror in the "
        "cache folder. Environment: a list separated by the OS path separator (':' on Linux; an s3:// URL's "
        "own ':' is kept). Option: repeat --log-root. Empty means the built-in demo data.",
        repeatable=True,
    ),
    SettingSpec(
        "dump_roots",
        "RLMON_DUMP_ROOT",
        (),
        "paths",
        "Folders outside the log roots where the samples page and 'rlmon samples' may read generation dumps "
        "(trainer.rollout_data_dir / validation_data_dir, 'Dumped generations to' lines). A dump folder a log "
        "names is read only inside a log root or one of these; any other is named in a notice, not read. "
        "Environment: a list separated by the OS path separator. Option: repeat --dump-root.",
        repeatable=True,
    ),
    SettingSpec(
        "cache_dir",
        "RLMON_CACHE_DIR",
        None,
        "path",
        "Where parsed logs (Parquet), the demo logs and the experiments' colours are kept. "
        "Default: $XDG_CACHE_HOME/rlmon, else ~/.cache/rlmon.",
    ),
    SettingSpec(
        "stall_factor",
        "RLMON_STALL_FACTOR",
        3.0,
        "float",
        "A run is 'stalled' when its log has not grown for this many median step times.",
        minimum=1.0,
    ),
    SettingSpec(
        "stall_min_s",
        "RLMON_STALL_MIN_S",
        600.0,
        "float",
        "A run is never called stalled before its log has been quiet for at least this many seconds "
        "(validation and checkpoint steps take longer than the median step).",
        minimum=0.0,
    ),
    SettingSpec(
        "refresh_s",
        "RLMON_REFRESH_S",
        30,
        "int",
        "Seconds between live refreshes of the pages (at most an hour: the refresh picker's range).",
        minimum=2,
        maximum=3600,
    ),
    SettingSpec(
        "max_points",
        "RLMON_MAX_POINTS",
        2000,
        "int",
        "Most points drawn per line in a chart; longer series are downsampled keeping min, max and last.",
        minimum=10,
    ),
    SettingSpec(
        "max_keys",
        "RLMON_MAX_KEYS",
        MAX_KEYS,
        "int",
        "Most distinct keys kept per log and per experiment (a real verl log has a few hundred): the first keys "
        "to get a value, in file order; the keys first logged after them are dropped, with one notice naming "
        "the log. Bounds the memory and time a log with a new key on every line can cost.",
        minimum=100,
        maximum=1_000_000,
    ),
    SettingSpec(
        "smoothing",
        "RLMON_SMOOTHING",
        "ema",
        "str",
        "Default smoothing of chart lines: 'ema' (TensorBoard-style), 'moving_average' or 'none'.",
        choices=SMOOTHING_KINDS,
    ),
    SettingSpec(
        "smoothing_weight",
        "RLMON_SMOOTHING_WEIGHT",
        0.6,
        "float",
        "Default EMA weight in [0, 1) (TensorBoard's smoothing slider).",
        minimum=0.0,
        maximum=0.99,
    ),
    SettingSpec(
        "smoothing_window",
        "RLMON_SMOOTHING_WINDOW",
        5,
        "int",
        "Default moving-average window in steps (the team's old page used 5).",
        minimum=1,
        maximum=500,
    ),
    SettingSpec(
        "spike_factor",
        "RLMON_SPIKE_FACTOR",
        3.0,
        "float",
        "Insights: a value is a spike when it exceeds this many times the rolling median of the "
        "spike_window steps before it.",
        minimum=1.0,
    ),
    SettingSpec(
        "spike_window",
        "RLMON_SPIKE_WINDOW",
        20,
        "int",
        "Insights: number of preceding steps the spike baseline (rolling median) is taken over.",
        minimum=3,
    ),
    SettingSpec(
        "drift_window",
        "RLMON_DRIFT_WINDOW",
        10,
        "int",
        "Insights: steps averaged at the start and at the end of a run when judging a trend (rising entropy, "
        "growing length).",
        minimum=1,
    ),
    SettingSpec(
        "drift_threshold",
        "RLMON_DRIFT_THRESHOLD",
        0.25,
        "float",
        "Insights: relative change between the first and last drift_window means that counts as a trend (0.25 = 25%).",
        minimum=0.0,
    ),
    SettingSpec(
        "spike_margin",
        "RLMON_SPIKE_MARGIN",
        1.5,
        "float",
        "Insights: a spike must also exceed the run's 95th percentile times this.",
        minimum=1.0,
    ),
    SettingSpec(
        "max_spikes",
        "RLMON_MAX_SPIKES",
        5,
        "int",
        "Insights: more spikes than this in one metric are reported as one 'repeated spikes' signal.",
        minimum=1,
    ),
    SettingSpec(
        "min_steps",
        "RLMON_MIN_STEPS",
        10,
        "int",
        "Insights: runs with fewer training steps get only non-finite-value and status signals.",
        minimum=1,
    ),
    SettingSpec(
        "entropy_collapse_ratio",
        "RLMON_ENTROPY_COLLAPSE_RATIO",
        0.3,
        "float",
        "Insights: entropy collapse when the last-window mean falls below this times the first-window mean.",
        minimum=0.0,
    ),
    SettingSpec(
        "validation_drop",
        "RLMON_VALIDATION_DROP",
        0.1,
        "float",
        "Insights: validation drop when the last score is more than this fraction below the run's best "
        "(and below the previous one).",
        minimum=0.0,
    ),
    SettingSpec(
        "clip_ratio_warn",
        "RLMON_CLIP_RATIO_WARN",
        0.1,
        "float",
        "Insights: length cap warning when more than this share of responses is cut at the cap over the last "
        "window (verl's performance best practices: above 0.1 you are truncating too much).",
        minimum=0.0,
    ),
    SettingSpec(
        "length_cap_fraction",
        "RLMON_LENGTH_CAP_FRACTION",
        0.75,
        "float",
        "Insights: without a clip ratio, mean length above this times the cap while the longest response hits it.",
        minimum=0.0,
    ),
    SettingSpec(
        "length_growth_ratio",
        "RLMON_LENGTH_GROWTH_RATIO",
        2.0,
        "float",
        "Insights: runaway growth when the end/start mean response length reaches this and still rises.",
        minimum=1.0,
    ),
    SettingSpec(
        "mismatch_high",
        "RLMON_MISMATCH_HIGH",
        100.0,
        "float",
        "Insights: rollout/training mismatch ((1-corr)x1e4) at or above this over the last window.",
        minimum=0.0,
    ),
    SettingSpec(
        "pass_rate_collapse",
        "RLMON_PASS_RATE_COLLAPSE",
        0.5,
        "float",
        "Insights: pass-rate collapse when the last-window mean lost this fraction of its best rolling mean "
        "(and 10 points).",
        minimum=0.0,
    ),
    SettingSpec(
        "kl_blowup_factor",
        "RLMON_KL_BLOWUP_FACTOR",
        10.0,
        "float",
        "Insights: KL blow-up when the last-window mean KL exceeds this times its earlier median...",
        minimum=1.0,
    ),
    SettingSpec(
        "kl_floor",
        "RLMON_KL_FLOOR",
        0.05,
        "float",
        "Insights: ...and is at least this value.",
        minimum=0.0,
    ),
    SettingSpec(
        "step_time_factor",
        "RLMON_STEP_TIME_FACTOR",
        3.0,
        "float",
        "Insights: slower steps (a throughput regression) when the median step time of the last 5 steps is this "
        "many times the median of the spike_window steps before them.",
        minimum=1.0,
    ),
    SettingSpec(
        "collapse_grad_factor",
        "RLMON_COLLAPSE_GRAD_FACTOR",
        1.5,
        "float",
        "Insights: collapse signature when the mean grad_norm of the last drift_window steps is this many times "
        "the mean of the window before...",
        minimum=1.0,
    ),
    SettingSpec(
        "collapse_score_drop",
        "RLMON_COLLAPSE_SCORE_DROP",
        0.1,
        "float",
        "Insights: ...while the mean score fell by at least this share of the run's score range (max-min).",
        minimum=0.0,
    ),
    SettingSpec(
        "length_gap_ratio",
        "RLMON_LENGTH_GAP_RATIO",
        1.25,
        "float",
        "Insights: incorrect responses grow much faster than correct ones when their end/start mean length "
        "(generation dumps) is at least this times the correct ones'...",
        minimum=1.0,
    ),
    SettingSpec(
        "length_gap_min_growth",
        "RLMON_LENGTH_GAP_MIN_GROWTH",
        0.1,
        "float",
        "Insights: ...and the incorrect responses' mean length grew by at least this fraction.",
        minimum=0.0,
    ),
    SettingSpec(
        "language",
        "RLMON_LANGUAGE",
        "en",
        "str",
        "Default interface language ('en' or 'zh'); each visitor can switch.",
        choices=LANGUAGES,
    ),
    SettingSpec(
        "demo_step_s",
        "RLMON_DEMO_STEP_S",
        5.0,
        "float",
        "Demo data only: seconds between the steps the running demo experiment adds.",
        minimum=0.1,
    ),
    SettingSpec(
        "draw_all_charts",
        "RLMON_DRAW_ALL_CHARTS",
        False,
        "bool",
        "Draw every chart of a page at once instead of a screen ahead of the scroll position: for printing a "
        "page, or for a browser that scrolls slowly.",
    ),
    SettingSpec(
        "chart_renderer",
        "RLMON_CHART_RENDERER",
        "auto",
        "str",
        "How the browser draws charts: 'auto' (line and area charts on a canvas, which draws thousands of points "
        "fast; bar charts as SVG, for crisp text), 'svg' or 'canvas' for every chart.",
        choices=CHART_RENDERERS,
    ),
    SettingSpec(
        "frame_memory_mb",
        "RLMON_FRAME_MEMORY_MB",
        128.0,
        "float",
        "Megabytes of parsed step frames a server holds in memory; frames beyond it that are in the cache folder "
        "are read back from there when asked for (least recently used go first). What the pages show of every "
        "experiment stays in memory whatever this is.",
        minimum=0.0,
    ),
    SettingSpec(
        "allowed_emails",
        "RLMON_ALLOWED_EMAILS",
        (),
        "emails",
        "Sign-in only (an [auth] section in .streamlit/secrets.toml): email addresses that may enter, besides "
        "those of allowed_domains; case does not matter. Environment: separated by commas or spaces; option: "
        "repeat --allowed-email. With both lists empty, everyone who can sign in with the provider enters.",
        repeatable=True,
    ),
    SettingSpec(
        "allowed_domains",
        "RLMON_ALLOWED_DOMAINS",
        (),
        "domains",
        "Sign-in only: email domains whose addresses may enter. 'team.example' lets in alice@team.example but not "
        "bob@eng.team.example; '*.team.example' lets in every subdomain (not team.example itself). Separated and "
        "repeated as allowed_emails.",
        repeatable=True,
    ),
    SettingSpec(
        "alert_targets",
        "RLMON_ALERT_TARGETS",
        (),
        "urls",
        "Where alerts are sent: apprise URLs (json://host/path, mailto://..., feishu://..., dingtalk://..., "
        "wecombot://..., slack://..., tgram://...; docs/alerts.md). When set, the app server also watches the log "
        "roots and sends alerts (one process per cache folder sends). Environment: URLs separated by spaces. "
        "Option: repeat --alert-target. They hold secrets: rlmon shows only their scheme and host.",
        repeatable=True,
    ),
    SettingSpec(
        "alert_kinds",
        "RLMON_ALERT_KINDS",
        DEFAULT_ALERT_KINDS,
        "words",
        "Which events are sent: crashed, stalled (and its resume), non_finite, finished, best (a new best "
        "validation score), signals (every signal of severity warning or above) or single signal kinds (spike, "
        "entropy_collapse, ...). Separated by commas or spaces. A root's rlmon.toml [alerts] kinds replace them "
        "for that root.",
        choices=ALERT_KINDS,
    ),
    SettingSpec(
        "alert_min_severity",
        "RLMON_ALERT_MIN_SEVERITY",
        "info",
        "str",
        "Events milder than this are not sent: 'info' (a finished run, a new best score), 'warning' (stalls, "
        "signals) or 'critical' (crashes, NaN/inf, a pass-rate collapse).",
        choices=ALERT_SEVERITIES,
    ),
    SettingSpec(
        "alert_digest_count",
        "RLMON_ALERT_DIGEST_COUNT",
        5,
        "int",
        "More than this many alerts about one log root within alert_digest_s seconds are sent as one digest message.",
        minimum=1,
    ),
    SettingSpec(
        "alert_digest_s",
        "RLMON_ALERT_DIGEST_S",
        300,
        "int",
        "The window, in seconds, over which alert_digest_count is counted.",
        minimum=1,
    ),
    SettingSpec(
        "alert_retry_max_s",
        "RLMON_ALERT_RETRY_MAX_S",
        600.0,
        "float",
        "Longest wait, in seconds, before trying again a target that failed (the wait starts at refresh_s and "
        "doubles with each failure); what could not be delivered is kept in the cache folder until then.",
        minimum=1.0,
    ),
    SettingSpec(
        "public_url",
        "RLMON_PUBLIC_URL",
        "",
        "url",
        "The address teammates open the app at (https://rlmon.example.com, with the proxy's path if any): each "
        "alert then links to the experiment's page at the event's step. Empty: alerts carry no link.",
    ),
)


@dataclass(frozen=True)
class Settings:
    """The resolved settings; see :data:`SETTINGS` for the meaning of each field."""

    log_roots: tuple[Path | ObjectRoot, ...] = ()
    dump_roots: tuple[Path, ...] = ()
    cache_dir: Path = Path("~/.cache/rlmon")
    stall_factor: float = 3.0
    stall_min_s: float = 600.0
    refresh_s: int = 30
    max_points: int = 2000
    max_keys: int = MAX_KEYS
    smoothing: str = "ema"
    smoothing_weight: float = 0.6
    smoothing_window: int = 5
    spike_factor: float = 3.0
    spike_window: int = 20
    drift_window: int = 10
    drift_threshold: float = 0.25
    spike_margin: float = 1.5
    max_spikes: int = 5
    min_steps: int = 10
    entropy_collapse_ratio: float = 0.3
    validation_drop: float = 0.1
    clip_ratio_warn: float = 0.1
    length_cap_fraction: float = 0.75
    length_growth_ratio: float = 2.0
    mismatch_high: float = 100.0
    pass_rate_collapse: float = 0.5
    kl_blowup_factor: float = 10.0
    kl_floor: float = 0.05
    step_time_factor: float = 3.0
    collapse_grad_factor: float = 1.5
    collapse_score_drop: float = 0.1
    length_gap_ratio: float = 1.25
    length_gap_min_growth: float = 0.1
    language: str = "en"
    demo_step_s: float = 5.0
    draw_all_charts: bool = False
    chart_renderer: str = "auto"
    frame_memory_mb: float = 128.0
    allowed_emails: tuple[str, ...] = ()
    allowed_domains: tuple[str, ...] = ()
    alert_targets: tuple[str, ...] = field(default=(), repr=False)
    """Secrets inside: never printed (not even in the dataclass's repr)."""
    alert_kinds: tuple[str, ...] = DEFAULT_ALERT_KINDS
    alert_min_severity: str = "info"
    alert_digest_count: int = 5
    alert_digest_s: int = 300
    alert_retry_max_s: float = 600.0
    public_url: str = ""


def setting_range(name: str) -> tuple[int, int]:
    """The (minimum, maximum) of the integer setting ``name``: the bounds of the widget that changes it in the
    app, so a page never offers a value the setting refuses, nor the reverse.

    >>> setting_range("refresh_s")
    (2, 3600)
    """
    spec = next(spec for spec in SETTINGS if spec.name == name)
    if spec.minimum is None or spec.maximum is None:
        raise AssertionError(f"setting {name} has no range")  # pragma: no cover - table bug
    return int(spec.minimum), int(spec.maximum)


def default_cache_dir(env: Mapping[str, str]) -> Path:
    """``$XDG_CACHE_HOME/rlmon``, else ``$HOME/.cache/rlmon`` (``~`` when HOME is not given)."""
    xdg = env.get("XDG_CACHE_HOME", "").strip()
    if xdg:
        return Path(xdg) / "rlmon"
    home = env.get("HOME", "").strip()
    base = Path(home) if home else Path("~").expanduser()
    return base / ".cache" / "rlmon"


def _path(spec: SettingSpec, text: str) -> Path:
    text = text.strip()
    if not text:
        raise SettingError(f"setting {spec.name} ({spec.env} / {spec.option}): empty path")
    return Path(text).expanduser()


def _log_root(spec: SettingSpec, text: str) -> Path | ObjectRoot:
    if not is_object_url(text):
        return _path(spec, text)
    try:
        return parse_object_url(text)
    except SettingError as error:
        raise SettingError(f"setting {spec.name} ({spec.env} / {spec.option}): {error.reason}") from None


def split_root_list(raw: str) -> list[str]:
    """``RLMON_LOG_ROOT`` split at the OS path separator, keeping each ``s3://`` URL whole.

    >>> split_root_list("/data/a:s3://runs/verl:/data/b") if os.pathsep == ":" else None
    ['/data/a', 's3://runs/verl', '/data/b']
    """
    parts = raw.split(os.pathsep)
    roots: list[str] = []
    index = 0
    while index < len(parts):
        part = parts[index]
        if index + 1 < len(parts) and is_object_url(part + ":" + parts[index + 1]) and os.pathsep == ":":
            part = part + ":" + parts[index + 1]
            index += 1
        if part.strip():
            roots.append(part.strip())
        index += 1
    return roots


def split_target_list(raw: str) -> list[str]:
    """``RLMON_ALERT_TARGETS`` split at white space (an apprise URL holds none; it may hold commas).

    >>> split_target_list("json://127.0.0.1:8080/hook  mailto://mail.example.com?to=a@x.org,b@x.org")
    ['json://127.0.0.1:8080/hook', 'mailto://mail.example.com?to=a@x.org,b@x.org']
    """
    return raw.split()


def _target(spec: SettingSpec, text: str, index: int) -> str:
    """One alert target as given; only its form is checked here (apprise checks the rest when alerts start).
    The message never quotes it: a target URL holds secrets."""
    value = text.strip()
    scheme, sep, rest = value.partition("://")
    if not sep or not scheme or not rest or not scheme.replace("+", "").isalnum():
        raise SettingError(
            f"setting {spec.name} ({spec.env} / {spec.option}): target {index} is not a URL (scheme://...); "
            "see docs/alerts.md for the forms apprise accepts"
        )
    return value


def _words(spec: SettingSpec, text: str) -> tuple[str, ...]:
    words = tuple(dict.fromkeys(word for word in text.replace(",", " ").split() if word))
    unknown = [word for word in words if word not in spec.choices]
    if unknown:
        raise SettingError(
            f"setting {spec.name} ({spec.env} / {spec.option}): {', '.join(map(repr, unknown))} not among "
            + ", ".join(spec.choices)
        )
    return words


def _url(spec: SettingSpec, text: str) -> str:
    value = text.strip().rstrip("/")
    scheme, sep, rest = value.partition("://")
    if value and (scheme.lower() not in ("http", "https") or not sep or not rest or rest.startswith("/")):
        raise SettingError(
            f"setting {spec.name} ({spec.env} / {spec.option}): {text!r} is not an http:// or https:// address"
        )
    return value


def _number(spec: SettingSpec, text: str, kind: Callable[[str], Any]) -> Any:
    try:
        value = kind(text.strip())
    except ValueError:
        wanted = "an integer" if kind is int else "a number"
        raise SettingError(f"setting {spec.name} ({spec.env} / {spec.option}): {text!r} is not {wanted}") from None
    if value != value or value in (float("inf"), float("-inf")):
        raise SettingError(f"setting {spec.name} ({spec.env} / {spec.option}): {text!r} is not finite")
    if spec.minimum is not None and value < spec.minimum:
        raise SettingError(
            f"setting {spec.name} ({spec.env} / {spec.option}): {text!r} is below the minimum {spec.minimum:g}"
        )
    if spec.maximum is not None and value > spec.maximum:
        raise SettingError(
            f"setting {spec.name} ({spec.env} / {spec.option}): {text!r} is above the maximum {spec.maximum:g}"
        )
    return value


_LIST_SEPARATORS = re.compile(r"[\s,]+")
_LIST_ENTRIES: dict[str, Callable[[str], str]] = {"emails": normalize_email, "domains": normalize_domain}


def _entries(spec: SettingSpec, texts: Sequence[str]) -> tuple[str, ...]:
    """The entries of a list setting (``emails``, ``domains``), each normalized, in order, without repeats."""
    normalize = _LIST_ENTRIES[spec.type]
    entries: list[str] = []
    for text in texts:
        for part in _LIST_SEPARATORS.split(text):
            if not part:
                continue
            try:
                entries.append(normalize(part))
            except ValueError as error:
                raise SettingError(f"setting {spec.name} ({spec.env} / {spec.option}): {error}") from None
    return tuple(dict.fromkeys(entries))


def _convert(spec: SettingSpec, text: str) -> Any:
    if spec.type == "path":
        return _path(spec, text)
    if spec.type == "float":
        return float(_number(spec, text, float))
    if spec.type == "int":
        return int(_number(spec, text, int))
    if spec.type == "bool":
        word = text.strip().lower()
        if word in _TRUE or word in _FALSE:
            return word in _TRUE
        raise SettingError(
            f"setting {spec.name} ({spec.env} / {spec.option}): {text!r} is not one of " + ", ".join(_TRUE + _FALSE)
        )
    if spec.type == "words":
        return _words(spec, text)
    if spec.type == "url":
        return _url(spec, text)
    if spec.type == "str":
        value = text.strip()
        if spec.choices and value not in spec.choices:
            raise SettingError(
                f"setting {spec.name} ({spec.env} / {spec.option}): {text!r} is not one of " + ", ".join(spec.choices)
            )
        return value
    raise AssertionError(f"unknown setting type {spec.type}")  # pragma: no cover - table bug


def _parse_argv(argv: Sequence[str]) -> dict[str, list[str]]:
    """``--name value`` / ``--name=value`` pairs, grouped by setting name. Unknown options are errors."""
    by_option = {spec.option: spec for spec in SETTINGS}
    given: dict[str, list[str]] = {}
    items = list(argv)
    index = 0
    while index < len(items):
        item = items[index]
        if not item.startswith("--"):
            raise SettingError(f"unexpected command-line argument {item!r} (settings are --name value)")
        option, has_value, value = item.partition("=")
        spec = by_option.get(option)
        if spec is None:
            known = ", ".join(sorted(by_option))
            raise SettingError(f"unknown option {option!r}; known options: {known}")
        if not has_value and spec.type == "bool" and (index + 1 >= len(items) or items[index + 1].startswith("--")):
            value = "true"  # a flag: the option alone
        elif not has_value:
            index += 1
            if index >= len(items):
                raise SettingError(f"setting {spec.name}: option {option} needs a value")
            value = items[index]
        given.setdefault(spec.name, []).append(value)
        index += 1
    return given


def load_settings(argv: Sequence[str], env: Mapping[str, str]) -> Settings:
    """Resolve every setting from the command line, then the environment, then the defaults.

    Parameters
    ----------
    argv
        Command-line arguments meant for rlmon (for Streamlit: what follows ``--``), e.g.
        ``["--log-root", "/data/a", "--log-root", "/data/b", "--stall-factor=4"]``.
    env
        Environment values (pass ``os.environ``); only ``RLMON_*``, ``XDG_CACHE_HOME`` and ``HOME`` are used.

    Returns
    -------
    Settings

    Raises
    ------
    SettingError
        An unknown option, or a value a setting cannot take; the message names the setting.
    """
    given = _parse_argv(argv)
    values: dict[str, Any] = {}
    for spec in SETTINGS:
        if spec.name == "log_roots":
            if spec.name in given:
                values[spec.name] = tuple(_log_root(spec, text) for text in given[spec.name])
            else:
                values[spec.name] = tuple(_log_root(spec, part) for part in split_root_list(env.get(spec.env, "")))
            continue
        if spec.type in _LIST_ENTRIES:
            values[spec.name] = _entries(spec, given.get(spec.name) or [env.get(spec.env, "")])
            continue
        if spec.type == "urls":
            texts = given[spec.name] if spec.name in given else split_target_list(env.get(spec.env, ""))
            values[spec.name] = tuple(_target(spec, text, index) for index, text in enumerate(texts, start=1))
            continue
        if spec.type == "paths":
            texts = given.get(spec.name) or [part for part in env.get(spec.env, "").split(os.pathsep) if part.strip()]
            values[spec.name] = tuple(_path(spec, text) for text in texts)
            continue
        if spec.name in given:
            if len(given[spec.name]) > 1:
                raise SettingError(f"setting {spec.name}: option {spec.option} given more than once")
            values[spec.name] = _convert(spec, given[spec.name][0])
        elif env.get(spec.env, "").strip():
            values[spec.name] = _convert(spec, env[spec.env])
        elif spec.name == "cache_dir":
            values[spec.name] = default_cache_dir(env)
        else:
            values[spec.name] = spec.default
    return Settings(**values)


def _check_table() -> None:
    names = {spec.name for spec in SETTINGS}
    fields_ = {item.name for item in fields(Settings)}
    if names != fields_:  # pragma: no cover - caught by the tests at once
        raise AssertionError(f"settings table and Settings differ: {sorted(names ^ fields_)}")


_check_table()
