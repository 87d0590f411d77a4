"""Rejection-rate statistics and the corpus report (Markdown and self-contained HTML).

Rates follow the reference denominator (cells = graphs x applicable types; a cell is rejected
when no attempt was admitted) and are also given per attempt.

- :func:`single_fault_summary` works on ledger rows in memory (a run's summary).
- :func:`build_report` computes every report table from a *published version's* Parquet files
  with DuckDB (:mod:`miscue.audit` views restricted to that version); :func:`render_markdown`
  and :func:`render_html` render it (the HTML has inline CSS and inline SVG charts: no script,
  no network resource); :func:`write_report` writes ``artifacts/reports/<version>/report.md``
  and ``report.html``. The same sections become Prefect table artifacts in the flows.
"""

from __future__ import annotations

import html
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from miscue.files import replaced_directory


def _rate(num: int, den: int) -> float | None:
    return round(num / den, 4) if den else None


def single_fault_summary(cells: list[dict[str, Any]], attempts: list[dict[str, Any]], calls: list[dict[str, Any]]) -> dict[str, Any]:
    by_type: dict[str, dict[str, Any]] = defaultdict(lambda: Counter())  # type: ignore[arg-type]
    for c in cells:
        by_type[c["fault_types"][0]][c["status"]] += 1
    attempted = [c for c in cells if c["status"] in ("admitted", "rejected")]
    admitted = [c for c in cells if c["status"] == "admitted"]
    per_type = {}
    for t, counts in sorted(by_type.items()):
        tried = counts["admitted"] + counts["rejected"]
        type_attempts = [a for a in attempts if a.get("fault_types") == [t]]
        both = [a for a in type_attempts if a.get("blind_b")]
        agreed = [a for a in both if not str(a.get("code", "")).startswith(("agree:", "extract:"))]
        per_type[t] = {
            "cells": tried, "admitted": counts["admitted"], "rejected": counts["rejected"],
            "skipped": counts["skipped"], "unsupported": counts["unsupported"],
            "cell_rejection_rate": _rate(counts["rejected"], tried),
            "attempts": len(type_attempts),
            "attempt_rejection_rate": _rate(sum(1 for a in type_attempts if not a.get("admitted")), len(type_attempts)),
            "extractor_agreement": _rate(len(agreed), len(both)),
        }
    model_calls = [c for c in calls if not c.get("cached")]
    unsupported = sorted({(c["fault_types"][0], c["detail"]) for c in cells if c["status"] == "unsupported"})
    return {
        "graphs": len({c["graph_id"] for c in cells}),
        "cells": len(attempted),
        "admitted": len(admitted),
        "cell_rejection_rate": _rate(len(attempted) - len(admitted), len(attempted)),
        "attempts": len(attempts),
        "attempt_rejection_rate": _rate(sum(1 for a in attempts if not a.get("admitted")), len(attempts)),
        "types_admitted": sorted(t for t, v in per_type.items() if v["admitted"]),
        "per_type": per_type,
        "verdicts": dict(Counter(a["code"] for a in attempts if not a.get("admitted")).most_common()),
        "skipped_reasons": dict(Counter(c["detail"] for c in cells if c["status"] == "skipped").most_common()),
        "unsupported": [{"fault_type": t, "reason": r} for t, r in unsupported],
        "model_calls": len(model_calls),
        "store_hits": len(calls) - len(model_calls),
        "calls_per_admitted_sample": _rate(len(calls), len(admitted)),
        "tokens": sum(c.get("prompt_tokens", 0) + c.get("completion_tokens", 0) for c in model_calls),
        "cost": round(sum(c.get("cost", 0.0) for c in model_calls), 6),
        "attempts_without_executed_reading_admitted": sum(1 for a in attempts if a.get("admitted") and not a.get("readings_executed")),
    }


# =============================================================================================
# The corpus report
# =============================================================================================

PERCENT_COLUMNS = ("rate", "agreement", "share")


@dataclass
class Chart:
    """A horizontal bar chart: one bar per label; several series are stacked."""

    title: str
    labels: list[str]
    series: list[tuple[str, list[float]]]
    percent: bool = False


@dataclass
class Section:
    key: str  # lowercase-dashes: also the Prefect artifact key suffix
    title: str
    columns: list[str]
    rows: list[list[Any]]
    note: str = ""
    chart: Chart | None = None

    def records(self) -> list[dict[str, Any]]:
        return [dict(zip(self.columns, r)) for r in self.rows]


@dataclass
class Report:
    version: str
    manifest: dict[str, Any]
    sections: list[Section] = field(default_factory=list)

    def section(self, key: str) -> Section:
        return next(s for s in self.sections if s.key == key)


def _q(con: Any, sql: str, *params: Any) -> list[tuple[Any, ...]]:
    return con.execute(sql, list(params)).fetchall()


def _div(a: float | int | None, b: float | int | None, digits: int = 4) -> float | None:
    return round(a / b, digits) if a is not None and b else None


_STAGES = ("plan", "write", "text", "extract", "agree", "admit")


def build_report(artifacts: Path, version: str) -> Report:
    """Every report table of ``version``, computed with DuckDB from its published files."""
    from miscue import audit, corpus

    version = corpus.resolve(Path(artifacts), version)
    man = corpus.manifest(Path(artifacts), version)
    con = audit.connect(Path(artifacts), [version])
    rep = Report(version, man)

    # ---- Table 4 shape ---------------------------------------------------------------
    rows4 = _q(con, """
        with b as (select benchmark from graph_ledger union select benchmark from cells union select benchmark from graphs),
        t as (select benchmark, count(*) n from graph_ledger group by 1),
        g as (select benchmark, count(*) n from graphs group by 1),
        c as (select benchmark, count(*) filter (where status in ('admitted','rejected')) n,
                     count(*) filter (where status = 'rejected') r from cells where k = 1 group by 1),
        s as (select benchmark, count(*) n from samples where k = 1 group by 1)
        select b.benchmark, coalesce(t.n,0), coalesce(g.n,0), coalesce(c.n,0), coalesce(c.r,0), coalesce(s.n,0)
        from b left join t using (benchmark) left join g using (benchmark) left join c using (benchmark)
        left join s using (benchmark) order by b.benchmark""")
    table4 = [[b, t, g, c, _div(r, c), s] for b, t, g, c, r, s in rows4]
    if len(table4) > 1:
        tot = [sum(r[i] for r in rows4) for i in range(1, 6)]
        table4.append(["all", tot[0], tot[1], tot[2], _div(tot[3], tot[2]), tot[4]])
    rep.sections.append(Section(
        "table4", "Per benchmark (the shape of the paper's Table 4)",
        ["Benchmark", "Tasks", "Graphs", "Cells", "Rejection rate", "Samples"], table4,
        note="Cells = graphs x applicable fault types (skipped and unsupported cells excluded); rejection rate = "
             "cells with no admitted attempt / cells.",
        chart=Chart("Cell rejection rate per benchmark", [r[0] for r in table4],
                    [("rejection rate", [r[4] or 0.0 for r in table4])], percent=True)))

    # ---- per fault type ----------------------------------------------------------------
    rows_ft = _q(con, """
        with c as (select benchmark, fault_types[1] ft,
                     count(*) filter (where status in ('admitted','rejected')) cells,
                     count(*) filter (where status = 'admitted') adm,
                     count(*) filter (where status = 'rejected') rej,
                     count(*) filter (where status = 'skipped') skipped,
                     count(*) filter (where status = 'unsupported') unsup from cells where k = 1 group by 1, 2),
        a as (select benchmark, fault_types[1] ft, any_value(families[1]) fam, count(*) n,
                     count(*) filter (where not admitted) rej,
                     count(*) filter (where blind_b is not null) both_,
                     count(*) filter (where blind_b is not null and not (coalesce(code,'') like 'agree:%'
                                      or coalesce(code,'') like 'extract:%')) agreed
              from attempts where k = 1 group by 1, 2)
        select c.benchmark, c.ft, a.fam, c.cells, c.adm, c.rej, a.n, a.rej, a.both_, a.agreed, c.skipped, c.unsup
        from c left join a using (benchmark, ft) order by c.benchmark, c.ft""")
    from miscue.taxonomy import fault_type as _ft

    def fam(ft: str, given: str | None) -> str:
        if given:
            return given
        try:
            return _ft(ft).family.value
        except Exception:  # noqa: BLE001 - unknown types still get a row
            return ""

    rep.sections.append(Section(
        "fault-types", "Per fault type (single fault, k = 1)",
        ["Benchmark", "Fault type", "Family", "Cells", "Admitted", "Rejection rate", "Attempts",
         "Attempt rejection rate", "Extractor agreement", "Skipped", "Unsupported"],
        [[b, ft, fam(ft, fm), cl, ad, _div(rj, cl), n or 0, _div(arj, n), _div(ag, both), sk, un]
         for b, ft, fm, cl, ad, rj, n, arj, both, ag, sk, un in rows_ft]))
    by_type: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for _b, ft, _fm, _cl, ad, rj, *_ in rows_ft:
        by_type[ft][0] += ad
        by_type[ft][1] += rj
    labels = sorted(by_type)
    rep.section("fault-types").chart = Chart(
        "Cells per fault type (all benchmarks): admitted vs rejected", labels,
        [("admitted", [by_type[t][0] for t in labels]), ("rejected", [by_type[t][1] for t in labels])])

    # ---- funnel by stage ---------------------------------------------------------------
    order = " ".join(f"when '{s}' then {i}" for i, s in enumerate(_STAGES))
    rows_f = _q(con, f"""
        with a as (select benchmark, case when admitted then 6 else (case stage {order} else 6 end) end reached
                   from attempts)
        select benchmark, count(*), count(*) filter (where reached >= 2), count(*) filter (where reached >= 3),
               count(*) filter (where reached >= 4), count(*) filter (where reached >= 5),
               count(*) filter (where reached >= 6) from a group by 1 order by 1""")
    funnel_cols = ["Benchmark", "Attempts", "Planned and written", "Passed text checks", "Passed extraction",
                   "Extractors agreed", "Admitted"]
    tot_f = [sum(r[i] for r in rows_f) for i in range(1, 7)] if rows_f else [0] * 6
    rep.sections.append(Section(
        "funnel", "Funnel by stage (attempts reaching each stage)", funnel_cols,
        [list(r) for r in rows_f],
        note="An attempt stops at the first stage that rejects it: plan, write, text checks, extraction (blind "
             "answer must match the plan), agreement, executable admission.",
        chart=Chart("Funnel (all benchmarks)", funnel_cols[1:], [("attempts", tot_f)])))

    rows_v = _q(con, """
        select benchmark, stage, code, count(*) n,
               count(*) / sum(count(*)) over (partition by benchmark) share
        from attempts where not admitted group by 1, 2, 3 order by 1, n desc, 3""")
    rep.sections.append(Section(
        "verdicts", "Rejected attempts by stage and verdict code",
        ["Benchmark", "Stage", "Verdict code", "Attempts", "Share of rejected attempts"],
        [[b, s, c, n, round(sh, 4)] for b, s, c, n, sh in rows_v]))

    # ---- attempt-level rates -------------------------------------------------------------
    rows_a = _q(con, """
        with a as (select benchmark, count(*) n, count(*) filter (where admitted) adm,
                          count(*) filter (where attempt = 0) first_n,
                          count(*) filter (where attempt = 0 and admitted) first_adm from attempts group by 1),
             c as (select benchmark, count(*) filter (where status in ('admitted','rejected')) cells from cells group by 1)
        select a.benchmark, a.n, a.adm, a.n - a.adm, c.cells, a.first_n, a.first_adm
        from a left join c using (benchmark) order by 1""")
    rep.sections.append(Section(
        "attempt-rates", "Attempt-level rates",
        ["Benchmark", "Attempts", "Admitted attempts", "Attempt rejection rate", "Attempts per cell",
         "Attempts per admitted sample", "First-attempt admission rate"],
        [[b, n, adm, _div(rej, n), _div(n, cells, 2), _div(n, adm, 2), _div(fadm, fn)]
         for b, n, adm, rej, cells, fn, fadm in rows_a]))

    # ---- extractor agreement -------------------------------------------------------------
    rows_x = _q(con, """
        select fault_types[1] ft,
               count(*) filter (where admitted or stage in ('extract', 'agree', 'admit')) extracted,
               count(*) filter (where blind_b is not null) both_,
               count(*) filter (where blind_b is not null and not (coalesce(code,'') like 'agree:%'
                                or coalesce(code,'') like 'extract:%')) agreed
        from attempts group by 1 order by 1""")
    rep.sections.append(Section(
        "agreement", "Extractor agreement",
        ["Fault type", "Attempts extracted", "Extractor A plan-match rate", "Both extractors ran",
         "Agreed (both, with the plan)", "Agreement rate"],
        [[ft, ex, _div(both, ex), both, ag, _div(ag, both)] for ft, ex, both, ag in rows_x],
        note="Extractor B runs only when A's blind answer matches the plan; agreement = both extractors agree with "
             "each other and with the plan on family, target and the type-specific fields.",
        chart=Chart("Extractor agreement rate per fault type", [r[0] for r in rows_x],
                    [("agreement", [_div(r[3], r[2]) or 0.0 for r in rows_x])], percent=True)))

    # ---- model calls, tokens, cost ---------------------------------------------------------
    rows_c = _q(con, """
        with l as (select benchmark, count(*) req, count(*) filter (where not cached and run_version = ?) made,
                          count(*) filter (where cached) hits,
                          sum(prompt_tokens + completion_tokens) tok, sum(cost) cost from llm_calls group by 1),
             s as (select benchmark, count(*) n from samples group by 1)
        select l.benchmark, l.req, l.made, l.hits, l.tok, l.cost, coalesce(s.n, 0)
        from l left join s using (benchmark) order by 1""", version)
    rep.sections.append(Section(
        "calls", "Model calls, tokens and cost per admitted sample",
        ["Benchmark", "Requests", "Model calls made by this version's run", "Store hits", "Tokens", "Cost (USD)",
         "Admitted samples", "Requests per sample", "Tokens per sample", "Cost per sample (USD)"],
        [[b, req, made, hits, tok or 0, round(cost or 0.0, 6), n, _div(req, n, 2), _div(tok, n, 1), _div(cost, n, 6)]
         for b, req, made, hits, tok, cost, n in rows_c],
        note="Requests, tokens and cost count every exchange the corpus rests on (whether this run paid for it or "
             "answered it from the exchange store); 'model calls made' counts only this version's own uncached calls.",
        chart=Chart("Requests per admitted sample", [r[0] for r in rows_c],
                    [("requests / sample", [_div(r[1], r[6], 2) or 0.0 for r in rows_c])])))
    rows_r = _q(con, """
        select role, model, count(*), count(*) filter (where not cached and run_version = ?),
               sum(prompt_tokens), sum(completion_tokens), round(sum(cost), 6)
        from llm_calls group by 1, 2 order by 1""", version)
    rep.sections.append(Section(
        "calls-by-role", "Model calls by role",
        ["Role", "Model", "Requests", "Model calls made by this version's run", "Prompt tokens",
         "Completion tokens", "Cost (USD)"], [list(r) for r in rows_r]))

    # ---- composite coverage ----------------------------------------------------------------
    rows_k = _q(con, """
        with s as (select benchmark, k, list_sort(fault_types) combo from samples where k > 1),
        occ as (select benchmark, k, t, count(*) n from (select benchmark, k, unnest(combo) t from s) group by all),
        tot as (select benchmark, k, count(*) n, count(distinct combo) d from s group by all),
        top as (select benchmark, k, max(n) m, arg_max(t, n) t from occ group by all)
        select tot.benchmark, tot.k, tot.n, tot.d, top.t, round(top.m / tot.n, 3)
        from tot join top using (benchmark, k) order by 1, 2""")
    rep.sections.append(Section(
        "composite-coverage", "Composite faults: admitted samples and combinations per k",
        ["Benchmark", "k", "Samples", "Distinct combinations", "Most frequent type", "Its share of samples"],
        [list(r) for r in rows_k],
        note="Coverage control re-draws starved combinations so that no single type dominates."))
    rows_o = _q(con, """
        select benchmark, k, t, count(*) from (select benchmark, k, unnest(fault_types) t from samples where k > 1)
        group by all order by 1, 2, 4 desc""")
    rep.sections.append(Section(
        "composite-types", "Composite faults: per-type occurrence among admitted samples",
        ["Benchmark", "k", "Fault type", "Samples containing it"], [list(r) for r in rows_o]))

    # ---- unsupported / skipped -------------------------------------------------------------
    rows_u = _q(con, """
        select benchmark, fault_types[1], coalesce(detail, ''), count(*) from cells where status = 'unsupported'
        group by 1, 2, 3 order by 1, 2""")
    rep.sections.append(Section(
        "unsupported", "Unsupported fault types (with reasons)", ["Benchmark", "Fault type", "Reason", "Graphs"],
        [list(r) for r in rows_u], note="A fault type the host cannot verify by execution is not attempted."))
    rows_s = _q(con, """
        select benchmark, fault_types[1], coalesce(detail, ''), count(*) from cells where status = 'skipped'
        group by 1, 2, 3 order by 1, 2, 4 desc""")
    rep.sections.append(Section(
        "skipped", "Skipped cells (fault type not applicable to the intent)",
        ["Benchmark", "Fault type", "Reason", "Cells"], [list(r) for r in rows_s]))
    con.close()
    return rep


# ----------------------------------------------------------------------------------- render


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
                         f'fill="{_COLOURS[k % 4]}"><title>{e(name)}: {e(_fmt("rate" if chart.percent else "", vals[i]))}</title></rect>')
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
    from miscue import corpus

    artifacts = Path(artifacts)
    version = corpus.resolve(artifacts, version)
    rep = build_report(artifacts, version)
    directory = artifacts / "reports" / version
    with replaced_directory(directory) as staging:
        (staging / "report.md").write_text(render_markdown(rep), encoding="utf-8")
        (staging / "report.html").write_text(render_html(rep), encoding="utf-8")
    return {"version": version, "markdown": directory / "report.md", "html": directory / "report.html", "report": rep}
