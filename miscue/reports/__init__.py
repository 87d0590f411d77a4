"""Rejection-rate statistics, the corpus report and the read-only audit (DESIGN section 9).

- :mod:`~miscue.reports.summary`: a run's summary from its ledger records in memory;
- :mod:`~miscue.reports.tables`: every report table of a published version, with DuckDB;
- :mod:`~miscue.reports.render`: Markdown and self-contained HTML, written under
  ``artifacts/reports/<version>/``;
- :mod:`~miscue.reports.audit`: DuckDB views over every published version, canned and user SQL.
"""

from miscue.reports.render import render_html, render_markdown, report_summary, summary_of, svg_chart, write_report
from miscue.reports.summary import single_fault_summary
from miscue.reports.tables import Chart, Report, Section, build_report

__all__ = ["Chart", "Report", "Section", "build_report", "render_html", "render_markdown", "report_summary",
           "single_fault_summary", "summary_of", "svg_chart", "write_report"]
