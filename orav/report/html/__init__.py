"""The single-file HTML reports: a run's page (``run_page``, with its ``cards`` and its
machine, coverage and regression-check sections), an index linking several (``index_page``)
and a live rerun's page (``rerun_page``), built with one element DSL (``elements``) and styled
by ``report.css``, package data inlined into every page."""

from orav.report.html.index_page import write_index
from orav.report.html.run_page import render_html, write_html

__all__ = ["render_html", "write_html", "write_index"]
