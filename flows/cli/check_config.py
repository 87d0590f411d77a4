"""``miscue check-config FILE``: validate a model configuration offline, before any call
(:mod:`miscue.model_check`): every model string resolves to a litellm provider, the extractors'
families differ, every role's price is known; the environment variables each provider reads are
named with whether they are set (never a value). Exit 0 when it passes, 2 naming the field."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer
from rich.table import Table

from miscue.flows.cli.app import AS_JSON, PRICE, app, err, exit_codes, fail, out, print_json
from miscue.config import model_options
from miscue.model_check import check_llm_config


@app.command("check-config")
def check_config(
    file: Path = typer.Argument(..., help="a JSON model configuration (LLMConfig), as --llm-config takes it"),
    price: Optional[float] = PRICE,
    as_json: bool = AS_JSON,
) -> None:
    """Check a model configuration without any network call (the check build, estimate and generate run first)."""
    with exit_codes():
        config = model_options(file, price=price).resolve()
        check = check_llm_config(config)
    if as_json:
        print_json({"file": str(file), **check.as_dict()})
        raise typer.Exit(0 if check.ok else 2)
    t = Table(title=f"check-config {file}")
    for c in ("role", "model", "provider", "family", "USD / 1M tokens (in, out)", "environment"):
        t.add_column(c)
    for r in check.roles:
        price_text = (f"{r.price[0] * 1e6:.4g}, {r.price[1] * 1e6:.4g} ({r.price_from})" if r.price else "[red]unknown[/]")
        env = ", ".join(f"{name} {'set' if present else 'unset'}" for name, present in r.env.items()) or "–"
        t.add_row(r.role, r.model, r.provider or "[red]unresolved[/]", r.family, price_text, env)
    out.print(t)
    for note in check.notes:
        err.print(f"[yellow]note:[/] {note}", soft_wrap=True, markup=True, highlight=False)
    if not check.ok:
        fail(f"{file} does not pass check-config: " + "; ".join(check.problems))
    out.print(f"[green]ok[/] {file}: providers resolve, the extractors' families differ ({check.roles[1].family} vs "
              f"{check.roles[2].family}), every price is known")
