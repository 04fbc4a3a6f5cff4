"""A generated log root for the browser tests: many experiments in two tracks, with long labels.

The demo root has at most five experiments per track and short labels; the chart layout has to hold for 1 to
20 series and for labels of any length, so :func:`write_generated_root` writes 20 small experiments (150 steps,
the keys the overview and the experiment page draw, validation every 25 steps) as verl console logs, in two
tracks (12 x Qwen3-8B, 8 x Qwen3-1.7B), plus an ``rlmon.toml`` that gives some of them labels longer than 30
characters. Modelled on ``tests/helpers/benchmark_root.py``, smaller.
"""

from __future__ import annotations

import math
import os
import random
from dataclasses import dataclass
from pathlib import Path

STEPS = 150
TEST_FREQ = 25

# (folder, model path, experiments): the 8B track is written last, so it is the newest and the overview opens on it.
_TRACKS = (
    ("qwen3-1.7b", "Qwen/Qwen3-1.7B", 8),
    ("qwen3-8b", "Qwen/Qwen3-8B", 12),
)
_ALGORITHMS = ("grpo", "dapo", "drgrpo", "rloo", "reinforce_plus_plus")
# Labels set in rlmon.toml (the others keep the default label), some well over 30 characters.
_LABELS = {
    "qwen3-8b/e01_grpo": "E1 · GRPO baseline, KL 1e-3, lr 1e-6, 16K response cap",
    "qwen3-8b/e02_dapo": "E2 · DAPO clip-higher 0.28 + overlong reward shaping 4K",
    "qwen3-8b/e08_drgrpo": "E8 · Dr.GRPO seq-mean-token-sum-norm (no std division)",
    "qwen3-8b/e12_dapo": "E12 · DAPO with dynamic sampling, 32 prompts × 16 responses",
    "qwen3-1.7b/e03_drgrpo": "E3 · Dr.GRPO 1.7B — 长回复上限 16K, no KL loss",
}

_KEYS = (
    "critic/score/mean",
    "critic/score/min",
    "critic/score/max",
    "critic/rewards/mean",
    "response_length/mean",
    "response_length/max",
    "response_length/clip_ratio",
    "actor/entropy",
    "actor/grad_norm",
    "actor/pg_loss",
    "actor/pg_clipfrac",
    "actor/pg_clipfrac_lower",
    "actor/kl_loss",
    "actor/ppo_kl",
    "actor/lr",
    "training/rollout_actor_probs_pearson_corr",
    "perf/throughput",
    "timing_s/step",
    "timing_s/gen",
    "timing_s/old_log_prob",
    "timing_s/ref",
    "timing_s/adv",
    "timing_s/update_actor",
)


@dataclass(frozen=True)
class GeneratedRoot:
    """What was written: the root, the experiment ids per track name (as the app names tracks)."""

    root: Path
    tracks: dict[str, list[str]]

    @property
    def experiments(self) -> list[str]:
        return [experiment for ids in self.tracks.values() for experiment in ids]


def _value(key: str, step: int, number: int, rng: random.Random) -> float:
    u = step / STEPS
    skill = 0.5 + 0.03 * number
    if key == "critic/score/mean":
        return -0.4 + skill * u + rng.gauss(0, 0.05)
    if key == "critic/score/min":
        return -1.0
    if key == "critic/score/max":
        return 1.0
    if key == "timing_s/step":
        return 60.0 + number + rng.gauss(0, 3)
    if key.startswith("timing_s/"):
        return 10.0 + rng.gauss(0, 1)
    if key == "response_length/mean":
        return 3000 + (2000 + 150 * number) * u + rng.gauss(0, 200)
    if key == "response_length/max":
        return 16384.0
    if key == "response_length/clip_ratio":
        return max(0.0, 0.02 + 0.05 * u + rng.gauss(0, 0.01))
    if key == "training/rollout_actor_probs_pearson_corr":
        return 0.999 + rng.gauss(0, 0.0002)
    if key == "actor/lr":
        return 1e-6
    if key == "perf/throughput":
        return 1500 + 20 * number + rng.gauss(0, 50)
    return abs(math.sin(step / 30 + number)) * 0.3 + rng.gauss(0, 0.02)


def _log_text(number: int, model: str, algorithm: str) -> str:
    rng = random.Random(number)
    lines = [
        "(TaskRunner pid=1) {'actor_rollout_ref': {'model': {'path': '" + model + "'}}, "
        f"'algorithm': {{'adv_estimator': '{algorithm}'}}, 'data': {{'max_response_length': 16384, "
        f"'train_batch_size': 32}}, 'trainer': {{'n_gpus_per_node': 8, 'nnodes': 1, 'test_freq': {TEST_FREQ}}}}}",
        f"(TaskRunner pid=1) Total training steps: {STEPS}",
    ]
    for step in range(1, STEPS + 1):
        pairs = [f"{key}:{_value(key, step, number, rng):.6g}" for key in _KEYS]
        if step % TEST_FREQ == 0:
            pairs.append(f"val-core/aime24/acc/mean@1:{0.2 + 0.01 * number + 0.3 * step / STEPS:.4f}")
        lines.append(f"(TaskRunner pid=1) step:{step} - " + " - ".join(pairs))
    return "\n".join(lines) + "\n"


def write_generated_root(root: Path) -> GeneratedRoot:
    """Write 20 experiments in two tracks and an ``rlmon.toml`` with long labels into ``root``."""
    tracks: dict[str, list[str]] = {}
    mtime = 1_767_225_600.0  # 2026-01-01: the files age in the order written
    number = 0
    for folder, model, count in _TRACKS:
        ids = tracks.setdefault(model.rsplit("/", 1)[-1], [])
        for index in range(1, count + 1):
            number += 1
            experiment = f"{folder}/e{index:02d}_{_ALGORITHMS[(index - 1) % len(_ALGORITHMS)]}"
            path = root / experiment / "train_20260101_000000.log"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(_log_text(number, model, _ALGORITHMS[(index - 1) % len(_ALGORITHMS)]), encoding="utf-8")
            mtime += 3600
            os.utime(path, (mtime, mtime))
            ids.append(experiment)
    toml = [f'[experiments."{experiment}"]\nlabel = "{label}"\n' for experiment, label in _LABELS.items()]
    # The runs of one algorithm share their settings, but they are meant as distinct runs, not repeats of one.
    (root / "rlmon.toml").write_text('group = ""\n\n' + "\n".join(toml), encoding="utf-8")
    return GeneratedRoot(root=root, tracks=tracks)


# ------------------------------------------------------------------------------------------ a hostile root

EXTERNAL = "http://127.0.0.2:9"
"""A loopback address no server listens on: anything on a page that names it would make the browser fetch it."""
MARKUP = f"![t]({EXTERNAL}/p.png) <img src={EXTERNAL}/x> **bold** [l]({EXTERNAL}/l) $x$ `tick` <b>b</b> :material/home:"
"""Markdown and HTML that would fetch, link, format or turn into an icon if a page rendered it (an experiment's
label in ``rlmon.toml``; a failure line)."""
FOLDER_MARKUP = "**bold** $x$ `tick` <img src=x.png> ![t](p.png) _em_ :smile:"
"""Markup that fits a folder name (no slash): an experiment's folder, so its label."""
TRACK_MARKUP = "<img src=q.png> **Qwen** _y_ :red[r]"
"""The model folder in a config dump (a config value): the experiment's track."""
LAUNCH_MARKUP = "~~launch~~`cmd`<u>u:smile:"
"""The model folder in a launch command (no config dump): that experiment's track."""
LONG_LABEL = "E3_" + "long" * 750
"""3,003 characters with no place to break a line."""
BIDI_CONTROLS = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c"
"""Every bidirectional control character: each reorders the text around it."""
RLO_FOLDER = "e4_\u202egnp.exe"
RLO_LABEL = "E4 \u202eevil" + BIDI_CONTROLS + "·RLO"
VALIDATION_SOURCE = f"![t]({EXTERNAL}/p.png)"
HOSTILE_KEYS = (f"actor/<img src={EXTERNAL}/x>", "actor/**bold** $x$ `tick`", f"actor/[l]({EXTERNAL}/l)")
FAILURE = f"ValueError: {MARKUP}"
LINKISH = "see http://127.0.0.2/phish www.x.example/x ops@x.example"
"""Text Streamlit's markdown turns into three working links (a URL, a ``www.`` name, an e-mail address) even
with its colon escaped: a label in ``rlmon.toml``."""
LINKISH_FOLDER = "e6 www.f.example ops@f.example"
"""A folder name the autolinker would make two links of."""
LINKISH_TRACK = "www.t.example"
LINKISH_KEYS = ("actor/www.k.example", "actor/ops@k.example")
LINKISH_SOURCE = "www.v.example"
LINKISH_FAILURE = "ValueError: see http://127.0.0.2/fail www.e.example ops@e.example"
WIKI = "https://wiki.example/grpo"
"""The one link a description may hold (written as ``[text](url)``), shown with its target."""
DESCRIPTION = (
    f"**GRPO** *baseline* `kl=1e-3` ![diagram]({EXTERNAL}/d.png) <{EXTERNAL}/auto> {EXTERNAL}/bare "
    f"www.d.example <img src={EXTERNAL}/h.png> \u202eevil [the wiki]({WIKI})\n\n- one\n- two"
)
"""An ``rlmon.toml`` description with an image, an autolink, bare addresses, HTML, a bidi control, a list and a
link to a wiki."""


@dataclass(frozen=True)
class HostileRoot:
    """What :func:`write_hostile_root` wrote: experiment ids by role."""

    root: Path
    markup: str
    """Markup in its label, metric keys, validation source and failure line; bidi controls in a metric key."""
    folder: str
    """Its folder name (so its label) is markup, and so is the model folder in its config dump (its track)."""
    long: str
    """A 3,000-character label."""
    rlo: str
    """Bidi controls in its folder name and label; no config dump, a launch command naming a markup model."""
    hidden: str
    """Marked ``hidden = true``."""
    linkish: str
    """Its folder, label, track (``rlmon.toml``), metric keys, validation source and failure read as links to an
    autolinker; its description holds every kind of markdown a description may or may not keep; it prints a
    sample (so the overview links to it)."""


def _hostile_log(
    model: str,
    *,
    dump: bool,
    extra: dict[str, float],
    crash: bool,
    source: str = VALIDATION_SOURCE,
    failure: str = FAILURE,
    sample: bool = False,
) -> str:
    steps = 20
    lines = [
        "python3 -m verl.trainer.main_ppo algorithm.adv_estimator=grpo data.max_response_length=4096 "
        f"actor_rollout_ref.model.path={model} trainer.n_gpus_per_node=2 trainer.nnodes=1 trainer.test_freq=5",
    ]
    if dump:
        lines.append(
            "(TaskRunner pid=1) {'actor_rollout_ref': {'model': {'path': '" + model + "'}}, "
            "'algorithm': {'adv_estimator': 'grpo'}, 'data': {'max_response_length': 4096, 'train_batch_size': 8}, "
            f"'trainer': {{'n_gpus_per_node': 2, 'nnodes': 1, 'test_freq': 5, 'project_name': '{MARKUP}'}}}}"
        )
    lines.append(f"(TaskRunner pid=1) Total training steps: {steps + 10}")
    for step in range(1, steps + 1):
        pairs = {
            "critic/score/mean": -0.5 + step / steps,
            "critic/score/min": -1.0,
            "response_length/mean": 1000.0 + 10 * step,
            "actor/entropy": 1.0 - step / (2 * steps),
            "actor/grad_norm": 0.3,
            "timing_s/step": 30.0,
            **{key: value * step for key, value in extra.items()},
        }
        if step % 5 == 0:
            pairs[f"val-core/{source}/acc/mean@1"] = 0.2 + step / (4 * steps)
        if sample and step == steps:
            lines += [
                f"(TaskRunner pid=1) [prompt] Visit {LINKISH}",
                f"(TaskRunner pid=1) [response] {LINKISH} ![x]({EXTERNAL}/s.png)",
                "(TaskRunner pid=1) [ground_truth] 5",
                "(TaskRunner pid=1) [score] 1.0",
            ]
        lines.append(f"(TaskRunner pid=1) step:{step} - " + " - ".join(f"{k}:{v:.6g}" for k, v in pairs.items()))
    if crash:
        lines += [
            f"Error executing job with overrides: ['trainer.project_name={MARKUP}']",
            "Traceback (most recent call last):",
            f'  File "/work/{FOLDER_MARKUP}.py", line 1, in <module>',
            failure,
        ]
    return "\n".join(lines) + "\n"


def write_hostile_root(root: Path) -> HostileRoot:
    """A root whose log text, folder names and ``rlmon.toml`` carry markdown, HTML, long names and bidi controls.

    Three experiments on the ``Qwen3-8B`` track (one of them hidden), one on a track named by a config value,
    one on a track named by a launch command and one on a track named in ``rlmon.toml`` (:data:`LINKISH_TRACK`).
    """
    ids = HostileRoot(
        root=root,
        markup="qwen3-8b/e1_grpo",
        folder=f"qwen3-8b/{FOLDER_MARKUP}",
        long="qwen3-8b/e3_grpo",
        rlo=f"qwen3-8b/{RLO_FOLDER}",
        hidden="qwen3-8b/e5_grpo",
        linkish=f"qwen3-8b/{LINKISH_FOLDER}",
    )
    extra = dict.fromkeys([*HOSTILE_KEYS, f"actor/rlo\u202e{BIDI_CONTROLS}key"], 0.01)
    written = {
        ids.markup: _hostile_log("/models/Qwen3-8B", dump=True, extra=extra, crash=True),
        ids.folder: _hostile_log(f"/models/{TRACK_MARKUP}", dump=True, extra={}, crash=False),
        ids.long: _hostile_log("/models/Qwen3-8B", dump=True, extra={}, crash=False),
        ids.rlo: _hostile_log(f"/models/{LAUNCH_MARKUP}", dump=False, extra={}, crash=False),
        ids.hidden: _hostile_log("/models/Qwen3-8B", dump=True, extra={}, crash=False),
        ids.linkish: _hostile_log(
            "/models/Qwen3-8B",
            dump=True,
            extra=dict.fromkeys(LINKISH_KEYS, 0.02),
            crash=True,
            source=LINKISH_SOURCE,
            failure=LINKISH_FAILURE,
            sample=True,
        ),
    }
    mtime = 1_767_225_600.0
    for experiment, text in written.items():
        path = root / experiment / "train_20260101_000000.log"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        mtime += 3600
        os.utime(path, (mtime, mtime))
    toml = {
        ids.markup: f"label = {_toml_string(MARKUP)}",
        ids.long: f"label = {_toml_string(LONG_LABEL)}",
        ids.rlo: f"label = {_toml_string(RLO_LABEL)}",
        ids.hidden: "hidden = true",
        ids.linkish: "\n".join(
            [
                f"label = {_toml_string(LINKISH)}",
                f"track = {_toml_string(LINKISH_TRACK)}",
                f"description = {_toml_string(DESCRIPTION)}",
            ]
        ),
    }
    text = "\n".join(f"[experiments.{_toml_string(key)}]\n{value}\n" for key, value in toml.items())
    # Runs of one setting on one track, meant as distinct runs (not repeats of one).
    (root / "rlmon.toml").write_text('group = ""\n\n' + text, encoding="utf-8")
    return ids


def _toml_string(text: str) -> str:
    """A TOML basic string (every character outside printable ASCII written as an escape)."""
    out = []
    for char in text:
        if char in '"\\':
            out.append("\\" + char)
        elif 0x20 <= ord(char) < 0x7F:
            out.append(char)
        else:
            out.append(f"\\u{ord(char):04x}")
    return '"' + "".join(out) + '"'
