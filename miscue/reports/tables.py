"""The corpus report's tables: every section computed with DuckDB from a *published version's*
Parquet files (:mod:`miscue.reports.audit` views restricted to that version), with the reference
denominator (cells = graphs x applicable types). The same sections become Prefect table
artifacts in the flows; :mod:`miscue.reports.render` renders them.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from miscue import corpus
from miscue.reports import audit

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
                     count(*) filter (where coalesce(blind_b, reading_b) is not null) both_,
                     count(*) filter (where coalesce(blind_b, reading_b) is not null and not (coalesce(code,'') like 'agree:%'
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
               count(*) filter (where coalesce(blind_b, reading_b) is not null) both_,
               count(*) filter (where coalesce(blind_b, reading_b) is not null and not (coalesce(code,'') like 'agree:%'
                                or coalesce(code,'') like 'extract:%')) agreed
        from attempts group by 1 order by 1""")
    rep.sections.append(Section(
        "agreement", "Extractor agreement",
        ["Fault type", "Attempts extracted", "Extractor A plan-match rate", "Both extractors ran",
         "Agreed (both, with the plan)", "Agreement rate"],
        [[ft, ex, _div(both, ex), both, ag, _div(ag, both)] for ft, ex, both, ag in rows_x],
        note="Extractor B runs only when A's answer matches the plan (its reading's derived class and target; in "
             "versions of the retired forms path, its blind answer); agreement = both extractors agree with each "
             "other and with the plan on class, target and what they read the target as.",
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
        top as (select benchmark, k, max(n) m, first(t order by n desc, t) t from occ group by all)  -- a tie: the first name
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
