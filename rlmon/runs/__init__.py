"""What a run is: an experiment read through the cache, with its settings, status, progress and numbers.

- :mod:`~rlmon.runs.experiment`: the :class:`~rlmon.runs.experiment.Experiment` data model; algorithm, settings
  and progress from a config dump and the step frame (pure: no files, no clock).
- :mod:`~rlmon.runs.loading`: a catalog's experiments read through the per-log cache, and the colours they keep.
- :mod:`~rlmon.runs.overrides`: a launch command's Hydra overrides -> config, for logs without a config dump.
- :mod:`~rlmon.runs.metrics`: metric names, aliases across verl versions, and derived metrics.
- :mod:`~rlmon.runs.headline`: the headline numbers of one experiment.
- :mod:`~rlmon.runs.axes`: the x axes besides the step: samples seen, tokens, GPU-hours.
- :mod:`~rlmon.runs.groups`: repeated runs, found from settings that differ only in seeds, names and paths.
"""

from __future__ import annotations

from rlmon.runs.experiment import Experiment
from rlmon.runs.headline import Headline, headline_numbers
from rlmon.runs.loading import load_experiment, load_experiments

__all__ = ["Experiment", "Headline", "headline_numbers", "load_experiment", "load_experiments"]
