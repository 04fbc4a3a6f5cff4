"""The only Streamlit code of rlmon: what the frame (``streamlit_app.py``) and the pages in ``pages/`` are made of.

Modules, from the process down to a widget:

* :mod:`~rlmon.app.server` - held once per server: settings, the log cache, the demo, object-storage mirrors,
  the reader pool and the quiet gate (:data:`~rlmon.app.server.WORK`);
* :mod:`~rlmon.app.loaders` - cached discovery and experiment views, and the read at start;
* :mod:`~rlmon.app.digests` - headline numbers, signals and the summary, once per experiment version;
* :mod:`~rlmon.app.state` - what the frame hands to the page (:class:`~rlmon.app.state.AppState`);
* :mod:`~rlmon.app.url` - view state kept in the query string;
* :mod:`~rlmon.app.guards` - text shown literally in markdown, page parts that fail alone;
* :mod:`~rlmon.app.signin` - sign-in and the allow-list: the gate before every page and before every download;
* :mod:`~rlmon.app.navigation` - page paths and menu icons;
* :mod:`~rlmon.app.sidebar` - the sidebar's legend;
* :mod:`~rlmon.app.live` - live refresh;
* :mod:`~rlmon.app.widgets` - the view controls and the language picker;
* :mod:`~rlmon.app.charts` - the chart grid, SVG downloads, the highlight legend;
* :mod:`~rlmon.app.tables` - the overview's tables and the download table;
* :mod:`~rlmon.app.markup` - the HTML and CSS rlmon writes itself;
* :mod:`~rlmon.app.samples` - samples read through one cache per server.

The pages mostly need :func:`app_state` (the run's :class:`AppState`), :func:`lang` and :func:`guarded`, named
here; each module names its own public names in ``__all__``.
"""

from rlmon.app.guards import guarded
from rlmon.app.state import AppState, app_state, lang

__all__ = ["AppState", "app_state", "guarded", "lang"]
