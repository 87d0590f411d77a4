"""``miscue prompts import``: replies from outside (a provider's batch output, any JSONL of
``custom_id`` and reply) into the exchange store, for the requests a ``--prompts-out`` run wrote."""

from __future__ import annotations

from pathlib import Path

import typer

from miscue.flows.cli.app import ARTIFACTS, AS_JSON, app, exit_codes, out, print_json
from miscue.llm import ExchangeStore
from miscue.llm.outbox import Outbox, import_replies

prompts = typer.Typer(help="prompts out, replies in: batch runs through the exchange store", no_args_is_help=True)
app.add_typer(prompts, name="prompts")


@prompts.command("import")
def import_(
    files: list[Path] = typer.Argument(..., help="JSONL replies: a batch output file as the provider gives it, "
                                                "or lines of {\"custom_id\": KEY, \"reply\": TEXT}"),
    as_json: bool = AS_JSON,
    artifacts: Path = ARTIFACTS,
) -> None:
    """Put replies into the exchange store. Every file is checked before anything is stored: a line
    that is not JSON, or a reply to a request this artifacts directory never wrote out, exits 2 and
    stores nothing. A failed or expired line leaves its request waiting (the next --prompts-out round
    writes it again, alone); a reply already stored is skipped. Then rerun the command that wrote
    the prompts: it goes on from the store."""
    with exit_codes():
        store = Path(artifacts) / "store"
        summary = import_replies(Outbox(store / "outbox"), ExchangeStore(store / "exchanges"), files)
    if as_json:
        print_json(summary)
        return
    out.print(f"stored {summary['stored']} replies ({summary['already_stored']} already stored, {summary['failed']} "
              f"failed); {summary['still_waiting']} requests still wait")
    for key, why in summary["failures"].items():
        out.print(f"  failed {key[:16]}: {why}")
