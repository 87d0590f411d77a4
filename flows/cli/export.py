"""``miscue export vNNNN DIR``: a published version in the Hugging Face ``datasets`` layout
(:mod:`miscue.corpus.export`): Parquet under ``DIR/data/``, one config per table, and a dataset
card (``README.md``) whose YAML ``configs`` make ``datasets.load_dataset(DIR, "samples")`` work."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.table import Table

from miscue.flows.cli.app import ARTIFACTS, AS_JSON, app, exit_codes, out, print_json


@app.command()
def export(
    version: str = typer.Argument(..., help="the version to export (or 'latest')"),
    dest: Path = typer.Argument(..., help="a new or empty directory"),
    license: str = typer.Option("unknown", "--license", help="the card's license identifier (e.g. cc-by-4.0, mit, other)"),
    as_json: bool = AS_JSON,
    artifacts: Path = ARTIFACTS,
) -> None:
    """Write a version as a Hugging Face dataset directory (data/<table>/<split>-*.parquet and a
    README.md dataset card). Exit 2 if DIR exists and is not empty (nothing is written)."""
    from miscue.corpus.export import export_version  # here: other commands do not load the corpus tables

    with exit_codes():
        res = export_version(artifacts, version, dest, license=license)
    if as_json:
        print_json(res.as_dict())
        return
    t = Table(title=f"export {res.version} -> {res.dest}")
    for c in ("config", "splits (rows)"):
        t.add_column(c)
    for name, splits in res.configs.items():
        t.add_row(name, ", ".join(f"{s} ({n})" for s, n in splits.items()))
    out.print(t)
    out.print(f'load with: datasets.load_dataset("{res.dest}", "samples")')
