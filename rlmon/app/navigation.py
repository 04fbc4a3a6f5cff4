"""Page paths: a readable, unique url_path per experiment, and the icon its status shows in the menu."""

from __future__ import annotations

import re
from collections.abc import Iterable

__all__ = ["STATUS_ICONS", "experiment_slug", "hash_text", "page_slugs"]

STATUS_ICONS = {
    "finished": ":material/check_circle:",
    "running": ":material/play_circle:",
    "stalled": ":material/pause_circle:",
    "crashed": ":material/cancel:",
    "not started": ":material/radio_button_unchecked:",
}

_RESERVED_PATHS = {"home", "exp", "overview", "experiment", "_stcore", "static", "media", "component", "generations",
                   "samples"}  # fmt: skip


def experiment_slug(experiment_id: str, taken: Iterable[str] = ()) -> str:
    """A readable, URL-safe page path for an experiment id: ``4B/e2_dapo_4b`` -> ``4b-e2-dapo-4b``.

    Ids with no ASCII letters or digits get ``exp-<hash>``; a slug already in ``taken`` gets ``-2``, ``-3``...
    """
    slug = re.sub(r"[^a-z0-9]+", "-", experiment_id.lower()).strip("-")
    if not slug:
        slug = "exp-" + format(abs(hash_text(experiment_id)) % 16**6, "06x")
    if slug in _RESERVED_PATHS:
        slug += "-run"
    used = set(taken)
    candidate, count = slug, 2
    while candidate in used:
        candidate = f"{slug}-{count}"
        count += 1
    return candidate


def hash_text(text: str) -> int:
    """A stable (process-independent) integer hash of a string."""
    value = 0
    for char in text.encode("utf-8"):
        value = (value * 131 + char) % (1 << 61)
    return value


def page_slugs(experiment_ids: Iterable[str]) -> dict[str, str]:
    """Experiment id -> the url_path of its page (:func:`experiment_slug`, unique in the given order)."""
    slugs: dict[str, str] = {}
    for experiment_id in experiment_ids:
        slugs[experiment_id] = experiment_slug(experiment_id, slugs.values())
    return slugs
