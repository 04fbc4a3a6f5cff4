"""What the pages and the report show, built from experiments: a typed view model, tables, chart specs, the report.

* :mod:`rlmon.views.model`: :class:`ExperimentView` (:func:`view_of`), :class:`ChartPlan`, :class:`Focus`,
  :class:`TableNumbers`: what the pages and the report share.
* :mod:`rlmon.views.tables`: the experiments, signals, settings-difference and log-file tables.
* :mod:`rlmon.views.overview`: the overview's metrics, comparison charts and header lines.
* :mod:`rlmon.views.detail`: the experiment page's training curves, validation panels and explorer.
* :mod:`rlmon.views.lines`: the line and validation charts both pages draw.
* :mod:`rlmon.views.samples`: the samples page's cards, choices and sides.
* :mod:`rlmon.views.charts` (Vega-Lite specs from long frames), :mod:`rlmon.views.tooltip`,
  :mod:`rlmon.views.ticks`; :mod:`rlmon.views.report` (one offline HTML file).

Pure: no streamlit here (the pages pick widgets, call one or two functions and render what they get).
"""

from rlmon.views.model import ChartPlan, ExperimentView, Focus, TableNumbers, view_of

__all__ = ["ChartPlan", "ExperimentView", "Focus", "TableNumbers", "view_of"]
