"""Where logs live: the experiments under the configured roots, found by stat and a look at each file's head.

- :mod:`~rlmon.sources.discovery`: log roots -> a :class:`~rlmon.sources.discovery.Catalog` of experiment
  references (no log is read whole here).
- :mod:`~rlmon.sources.objstore`: an ``s3://`` root mirrored into the cache folder, so the rest of rlmon reads
  local files.
- :mod:`~rlmon.sources.rlmon_toml`: a root's optional ``rlmon.toml`` (labels, descriptions, colours, tracks).
"""

from __future__ import annotations

from rlmon.sources.discovery import Catalog, ExperimentRef, discover_experiments
from rlmon.sources.rlmon_toml import RootConfig, read_root_config

__all__ = ["Catalog", "ExperimentRef", "RootConfig", "discover_experiments", "read_root_config"]
