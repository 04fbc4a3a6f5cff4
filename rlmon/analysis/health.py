"""verl's own health rules: the thresholds verl's documentation publishes for its metrics, each with the file of
verl's repository (github.com/volcengine/verl) it is read from.

* ``docs/perf/best_practices.rst`` (rollout settings, ``response_length``): "Monitor ``clip_ratio``; values above
  0.1 often mean you are truncating too much" — ``response_length/clip_ratio`` > 0.1;
* ``docs/faq/faq.rst`` ("Missmatch between inference and training sequence (high actor/grad_norm)"): "the value
  of training/rollout_probs_diff_mean should be below 0.005. If you observe this value to be higher than 0.01, it
  indicates a precision issue from the inference engine" — its symptom is ``actor/grad_norm`` continuously
  increasing;
* ``docs/algo/rollout_corr.md`` (``check_rollout_correction_health``): the mean IS weight outside 0.5–2.0, the
  effective sample size below 0.3, the IS weight std above 1.0, ``|kl|`` above 0.1, ``chi2_token`` above 1.0; and
  its ``plot_is_metrics`` 2×3 grid (mean IS weight, effective sample size, KL, PPL ratio, chi-squared).

The detectors of :mod:`rlmon.analysis.signals` judge a rule on the mean of a run's last window; the charts draw
each threshold as a dashed rule (:func:`threshold_lines`).

Two signals are rlmon's own rules, for which verl's docs give no number: slower steps
(:func:`rlmon.analysis.signals.step_time_limits`, drawn as a dashed limit on the step-time chart) and the collapse
signature (grad_norm rising while the score falls, shaded on its charts); the FAQ above names grad_norm rising
continuously as the symptom of a rollout precision problem (``docs/faq/faq.rst``), which the collapse signature's
rule text cites.
"""

from __future__ import annotations

from dataclasses import dataclass

from rlmon.runs.metrics import alias_of
from rlmon.text.messages import t
from rlmon.text.numbers import format_value

__all__ = [
    "CLIP_RATIO_RULE",
    "PROBS_DIFF_RULE",
    "ROLLOUT_CORR_GRID",
    "ROLLOUT_CORR_RULES",
    "RULES",
    "HealthRule",
    "rule_of",
    "threshold_lines",
]

BEST_PRACTICES = "docs/perf/best_practices.rst"
FAQ = "docs/faq/faq.rst"
ROLLOUT_CORR_DOC = "docs/algo/rollout_corr.md"


@dataclass(frozen=True)
class HealthRule:
    """One threshold verl's documentation gives for one logged key."""

    key: str
    """The logged key (verl's name)."""
    low: float | None
    """Unhealthy below this (None: no lower bound)."""
    high: float | None
    """Unhealthy above this (None: no upper bound)."""
    source: str
    """The file of verl's repository the threshold is read from."""
    absolute: bool = False
    """The bounds apply to the absolute value (``|kl|``)."""
    normal: float | None = None
    """Below this the source calls the value normal (drawn as a second rule)."""

    def breaks(self, value: float) -> bool:
        """Whether ``value`` is on the unhealthy side of a bound (a value on a bound is healthy)."""
        judged = abs(value) if self.absolute else value
        return (self.low is not None and judged < self.low) or (self.high is not None and judged > self.high)

    def bounds_text(self) -> str:
        """The healthy side in figures, for the rule's text: ``≤ 0.1``, ``0.5–2``, ``≥ 0.3``, ``|x| ≤ 0.1``."""
        low = None if self.low is None else format_value(self.low, "en")
        high = None if self.high is None else format_value(self.high, "en")
        prefix = "|x| " if self.absolute else ""
        if low is not None and high is not None:
            return f"{low}–{high}"
        if high is not None:
            return f"{prefix}≤ {high}"
        return f"{prefix}≥ {low}"

    def text(self, lang: str) -> str:
        """The rule with its source, in ``lang``: what a signal's help and a chart's rule say."""
        return t("rule_source", lang, metric=self.key, bounds=self.bounds_text(), source=self.source)


CLIP_RATIO_RULE = HealthRule("response_length/clip_ratio", None, 0.1, BEST_PRACTICES)
PROBS_DIFF_RULE = HealthRule("training/rollout_probs_diff_mean", None, 0.01, FAQ, normal=0.005)
ROLLOUT_CORR_RULES = (
    HealthRule("rollout_corr/rollout_is_mean", 0.5, 2.0, ROLLOUT_CORR_DOC),
    HealthRule("rollout_corr/rollout_is_eff_sample_size", 0.3, None, ROLLOUT_CORR_DOC),
    HealthRule("rollout_corr/rollout_is_std", None, 1.0, ROLLOUT_CORR_DOC),
    HealthRule("rollout_corr/kl", None, 0.1, ROLLOUT_CORR_DOC, absolute=True),
    HealthRule("rollout_corr/chi2_token", None, 1.0, ROLLOUT_CORR_DOC),
)
"""verl's ``check_rollout_correction_health``."""
RULES = (CLIP_RATIO_RULE, PROBS_DIFF_RULE, *ROLLOUT_CORR_RULES)

ROLLOUT_CORR_GRID = (
    "rollout_corr/rollout_is_mean",
    "rollout_corr/rollout_is_eff_sample_size",
    "rollout_corr/rollout_is_std",
    "rollout_corr/kl",
    "rollout_corr/ppl_ratio",
    "rollout_corr/chi2_token",
)
"""The experiment page's 2×3 grid of rollout-correction charts, after ``plot_is_metrics`` of verl's
rollout-correction doc (whose sixth panel is empty: the IS weight std, a rule of the same doc, fills it)."""

_PERCENT_OF = {"response_clip_pct": "response_length/clip_ratio"}
"""Charts that draw a rule's key in percent (derived metrics, :data:`rlmon.runs.metrics.DERIVED_METRICS`)."""


def rule_of(key: str) -> HealthRule | None:
    """The rule about logged key ``key`` (or its current name), if verl's docs give one."""
    name = alias_of(key)
    return next((rule for rule in RULES if rule.key == name), None)


def threshold_lines(key: str, lang: str) -> tuple[tuple[float, str], ...]:
    """The dashed rules the chart of ``key`` draws: (y value in the chart's units, label) per bound of verl's
    rule about it (and the source's "normal" mark), in ``lang``; empty when verl gives none."""
    scale = 1.0
    if key in _PERCENT_OF:
        key, scale = _PERCENT_OF[key], 100.0
    rule = rule_of(key)
    if rule is None:
        return ()
    lines: list[tuple[float, str]] = []
    bounds = [rule.low, rule.high] + ([-rule.high] if rule.absolute and rule.high is not None else [])
    for bound in bounds:
        if bound is not None:
            figure = format_value(bound * scale, "en") + ("%" if scale == 100.0 else "")
            lines.append((bound * scale, t("rule_line", lang, value=figure, source=rule.source)))
    if rule.normal is not None:
        lines.append((rule.normal * scale, t("rule_normal", lang, value=format_value(rule.normal * scale, "en"))))
    return tuple(lines)
