"""Rejection-rate statistics, the corpus report and the read-only audit (DESIGN section 9).

- :mod:`~miscue.reports.summary`: a run's summary from its ledger records in memory;
- :mod:`~miscue.reports.tables`: every report table of a published version, with DuckDB;
- :mod:`~miscue.reports.render`: Markdown and self-contained HTML, written under
  ``artifacts/reports/<version>/``;
- :mod:`~miscue.reports.audit`: DuckDB views over every published version, canned and user SQL.

The package's names are imported from their modules on first use: a run's summary needs neither
DuckDB nor pyarrow, so a stage or a command that only summarises does not load them.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from miscue.reports.render import render_html, render_markdown, report_summary, summary_of, svg_chart, write_report
    from miscue.reports.summary import single_fault_summary
    from miscue.reports.tables import Chart, Report, Section, build_report

_MODULE_OF = {
    "render_html": "render", "render_markdown": "render", "report_summary": "render", "summary_of": "render",
    "svg_chart": "render", "write_report": "render", "single_fault_summary": "summary", "Chart": "tables",
    "Report": "tables", "Section": "tables", "build_report": "tables",
}

__all__ = ["Chart", "Report", "Section", "build_report", "render_html", "render_markdown", "report_summary",
           "single_fault_summary", "summary_of", "svg_chart", "write_report"]


def __getattr__(name: str) -> Any:
    if name not in _MODULE_OF:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(f"{__name__}.{_MODULE_OF[name]}"), name)
