"""rlmon: watch and compare verl RL post-training runs.

Layers, bottom to top (the import graph is a DAG in this order):

``schema``/``errors``/``settings`` -> ``reader`` -> ``parse`` -> ``cache`` -> ``catalog``/``metrics``
-> ``smoothing`` -> ``insights`` -> ``charts`` -> ``ui`` (the only module that imports streamlit).
"""

from __future__ import annotations

__all__ = ["__version__"]

__version__ = "0.1.0"
