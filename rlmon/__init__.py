"""rlmon: watch and compare verl RL post-training runs.

The packages follow the path a log takes, and imports point down this list (``lint-imports`` checks it;
docs/architecture.md says what each package owns and where a new feature goes):

``app`` (the only Streamlit code) and ``cli`` -> ``views`` -> ``analysis`` -> ``runs`` -> ``sources``
(and ``demo``) -> ``logs`` -> ``text`` -> ``settings`` -> ``roots`` -> ``schema`` and ``errors``.
"""

from __future__ import annotations

__all__ = ["__version__"]

__version__ = "0.1.0"
