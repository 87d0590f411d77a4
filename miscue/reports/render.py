"""Rendering a corpus report: Markdown, and self-contained HTML (inline CSS and inline SVG charts:
no script, no network resource); writing both under ``artifacts/reports/<version>/``."""

from __future__ import annotations

import html
from pathlib import Path
from typing import Any

from miscue import corpus
from miscue.files import replaced_directory
from miscue.reports.tables import PERCENT_COLUMNS, Chart, Report, build_report


def _fmt(column: str, value: Any) -> str:
    if value is None:
        return "–"
    if isinstance(value, float):
        if any(w in column.lower() for w in PERCENT_COLUMNS) and "per" not in column.lower():
            return f"{value * 100:.1f}%"
        return f"{value:g}" if abs(value) >= 1e-4 or value == 0 else f"{value:.2e}"
    return str(value)


def _header(rep: Report) -> list[tuple[str, str]]:
    m = rep.manifest
    models = ", ".join(f"{r}: {v}" for r, v in sorted(m.get("models", {}).items()))
    out = [("Version", rep.version), ("Parent", m.get("parent") or "none"), ("Created", m.get("created_at", "")),
           ("Code", m.get("code_version", "")), ("Configuration hash", m.get("config_hash", "")[:16]),
           ("Models", models)]
    if m.get("regeneration"):
        r = m["regeneration"]
        out.append(("Regenerated", f"{', '.join(r.get('fault_types', []))} on {', '.join(r.get('benchmarks', []))}"))
    return out


OFFLINE_NOTE = ("The models of this version are the embedded offline baselines (offline/...): deterministic "
                "algorithms for running and testing the pipeline, not real models. Their rates describe the "
                "baselines, not what real models would do.")


def render_markdown(rep: Report) -> str:
    lines = [f"# miscue corpus report: {rep.version}", ""]
    lines += [f"- **{k}**: {v}" for k, v in _header(rep)]
    lines.append("")
    if rep.manifest.get("offline_baselines"):
        lines += [f"> {OFFLINE_NOTE}", ""]
    for s in rep.sections:
        lines += [f"## {s.title}", ""]
        if s.note:
            lines += [s.note, ""]
        if not s.rows:
            lines += ["(none)", ""]
            continue
        lines.append("| " + " | ".join(s.columns) + " |")
        lines.append("|" + "|".join("---" if i == 0 or isinstance(s.rows[0][i], str) else "---:"
                                    for i in range(len(s.columns))) + "|")
        for r in s.rows:
            lines.append("| " + " | ".join(_fmt(c, v).replace("|", "\\|") for c, v in zip(s.columns, r)) + " |")
        lines.append("")
    return "\n".join(lines)


_COLOURS = ("#3b6ea5", "#d2691e", "#4a9a5b", "#8a5ca8")


def svg_chart(chart: Chart) -> str:
    """An inline SVG horizontal (stacked) bar chart with labels and values."""
    label_w, bar_w, row_h, top = 230, 420, 22, 30
    n = len(chart.labels)
    totals = [sum(vals[i] for _, vals in chart.series) for i in range(n)]
    peak = 1.0 if chart.percent else (max(totals) if totals and max(totals) > 0 else 1.0)
    legend_h = 18 if len(chart.series) > 1 else 0
    height = top + legend_h + n * row_h + 10
    width = label_w + bar_w + 90
    e = html.escape
    parts = [f'<svg class="chart" role="img" aria-label="{e(chart.title)}" xmlns="http://www.w3.org/2000/svg" '
             f'width="{width}" height="{height}" viewBox="0 0 {width} {height}">',
             f'<title>{e(chart.title)}</title>',
             f'<text x="0" y="16" class="ct">{e(chart.title)}</text>']
    if legend_h:
        x = label_w
        for k, (name, _) in enumerate(chart.series):
            parts.append(f'<rect x="{x}" y="{top - 8}" width="10" height="10" fill="{_COLOURS[k % 4]}"/>'
                         f'<text x="{x + 14}" y="{top + 1}" class="cl">{e(name)}</text>')
            x += 16 + 8 * len(name) + 12
    y0 = top + legend_h
    for i, label in enumerate(chart.labels):
        y = y0 + i * row_h
        parts.append(f'<text x="{label_w - 6}" y="{y + 14}" text-anchor="end" class="cl">{e(str(label))}</text>')
        x = float(label_w)
        for k, (name, vals) in enumerate(chart.series):
            w = max(0.0, bar_w * (vals[i] / peak)) if peak else 0.0
            parts.append(f'<rect class="bar" x="{x:.1f}" y="{y + 3}" width="{w:.1f}" height="{row_h - 6}" '
                         f'fill="{_COLOURS[k % 4]}"><title>{e(name)}: '
                         f'{e(_fmt("rate" if chart.percent else "", vals[i]))}</title></rect>')
            x += w
        total = totals[i]
        shown = f"{total * 100:.1f}%" if chart.percent else (f"{total:g}" if isinstance(total, float) else str(total))
        parts.append(f'<text x="{x + 5:.1f}" y="{y + 14}" class="cv">{e(shown)}</text>')
    parts.append("</svg>")
    return "".join(parts)


_CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:2rem auto;max-width:1100px;color:#222;padding:0 1rem}
h1{font-size:1.6rem}h2{font-size:1.2rem;margin-top:2rem;border-bottom:1px solid #ddd;padding-bottom:.2rem}
table{border-collapse:collapse;margin:.5rem 0 1rem;font-size:.88rem}
th,td{border:1px solid #d0d0d0;padding:.25rem .55rem}th{background:#f2f4f7;text-align:left}
td.num{text-align:right;font-variant-numeric:tabular-nums}
.note{color:#555;font-size:.9rem}.offline{background:#fff6e0;border-left:4px solid #e0a100;padding:.5rem .8rem}
dl.meta{display:grid;grid-template-columns:max-content auto;gap:.15rem 1rem;font-size:.9rem}dl.meta dt{font-weight:600}
svg.chart{display:block;margin:.5rem 0 1.2rem}svg .ct{font-size:13px;font-weight:600}svg .cl,svg .cv{font-size:12px}
"""


def render_html(rep: Report) -> str:
    """A self-contained page: inline CSS, inline SVG charts, no script and no external resource."""
    e = html.escape
    out = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
           '<meta name="viewport" content="width=device-width, initial-scale=1">',
           f"<title>miscue corpus report {e(rep.version)}</title><style>{_CSS}</style></head><body>",
           f"<h1>miscue corpus report: {e(rep.version)}</h1>", '<dl class="meta">']
    out += [f"<dt>{e(k)}</dt><dd>{e(str(v))}</dd>" for k, v in _header(rep)]
    out.append("</dl>")
    if rep.manifest.get("offline_baselines"):
        out.append(f'<p class="offline">{e(OFFLINE_NOTE)}</p>')
    for s in rep.sections:
        out.append(f'<section id="{e(s.key)}"><h2>{e(s.title)}</h2>')
        if s.note:
            out.append(f'<p class="note">{e(s.note)}</p>')
        if s.chart is not None and s.chart.labels:
            out.append(svg_chart(s.chart))
        if not s.rows:
            out.append('<p class="note">(none)</p></section>')
            continue
        out.append(f'<table data-key="{e(s.key)}"><thead><tr>' + "".join(f"<th>{e(c)}</th>" for c in s.columns)
                   + "</tr></thead><tbody>")
        for r in s.rows:
            out.append("<tr>" + "".join(
                f'<td{"" if isinstance(v, str) else " class=num"}>{e(_fmt(c, v))}</td>' for c, v in zip(s.columns, r))
                + "</tr>")
        out.append("</tbody></table></section>")
    out.append("</body></html>")
    return "\n".join(out)


def write_report(artifacts: Path, version: str | None = None) -> dict[str, Any]:
    """Write ``artifacts/reports/<version>/report.md`` and ``report.html``; returns paths and the report."""
    artifacts = Path(artifacts)
    version = corpus.resolve(artifacts, version)
    rep = build_report(artifacts, version)
    directory = artifacts / "reports" / version
    with replaced_directory(directory) as staging:
        (staging / "report.md").write_text(render_markdown(rep), encoding="utf-8")
        (staging / "report.html").write_text(render_html(rep), encoding="utf-8")
    return {"version": version, "markdown": directory / "report.md", "html": directory / "report.html", "report": rep}


def report_summary(artifacts: Path, version: str | None = None) -> dict[str, Any]:
    """:func:`write_report`, answered as the command line prints it (paths as text, Table 4's rows)."""
    return summary_of(write_report(artifacts, version))


def summary_of(written: dict[str, Any]) -> dict[str, Any]:
    """What :func:`write_report` wrote, in JSON terms."""
    return {"version": written["version"], "markdown": str(written["markdown"]), "html": str(written["html"]),
            "table4": written["report"].section("table4").records(),
            "composites": written["report"].section("composite-coverage").records()}
