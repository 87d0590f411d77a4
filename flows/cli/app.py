"""What every ``miscue`` command shares: the Typer app, the consoles, the common options, and the
one mapping from errors to exit codes (DESIGN section 10; :mod:`miscue.errors`).

Exit codes: 0 done, 1 a corpus error (or a check that found mismatches), 2 bad input (the
message names the file, line or field; nothing is written), 3 a run stopped cleanly (budget
reached, terminal provider error, store miss under replay: finished exchanges are kept, a rerun
resumes), 4 another run holds the artifacts directory, 70 the installation is incomplete (a file
miscue ships is missing; one line names it).
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NoReturn

import typer
from rich.console import Console
from rich.markup import escape

from miscue.config import ModelOptions, model_options, parse_ks
from miscue.errors import BadInput, MiscueError, RunStopped
from miscue.llm import Gateway
from miscue.llm.errors import PromptsExported
from miscue.llm.outbox import Outbox, export
from miscue.model_check import check_llm_config
from miscue.writing import PromptSet

app = typer.Typer(add_completion=False, no_args_is_help=True, help="Verified corpora of miscommunicated requests.")
err = Console(stderr=True)
out = Console()

DEFAULT_ARTIFACTS = Path("artifacts")
ARTIFACTS = typer.Option(DEFAULT_ARTIFACTS, "--artifacts", help="the artifacts directory")
AS_JSON = typer.Option(False, "--json", help="print one JSON object instead of tables")
TASKS = typer.Option(None, "--task",
                     help="only these tasks: BENCH:ID[,ID...] (or ID with one --benchmark; repeatable) -- a small build "
                          "of those tasks alone, recorded in the manifest's graph configuration")
#: what ``build`` (and a scheduled build) composes when it builds every fault type
DEFAULT_KS = (2, 3, 4)
COMPOSITE = typer.Option(
    None, "--composite",
    help="also compose k faults per request: k values in 2..4 (e.g. 2,4) or 'none' "
         f"(default: {','.join(map(str, DEFAULT_KS))} when every fault type is built, none with --fault-type)")
QUIET = typer.Option(False, "--quiet", "-q", help="no progress (bars on a terminal, else a line per stage and a heartbeat)")

# The model options every model-calling command takes (see miscue.config.ModelOptions).
LLM_CONFIG = typer.Option(None, "--llm-config", help="JSON model configuration (LLMConfig); default: the embedded offline models")
MAX_COST = typer.Option(None, "--max-cost",
                        help="stop cleanly (exit 3) before this run spends more than this many USD on model calls")
PRICE = typer.Option(None, "--price",
                     help="USD per token (prompt and completion) for every role's model, for models litellm has no price for")
OFFLINE_REPLAY = typer.Option(False, "--offline-replay",
                              help="answer every model call from the exchange store; a miss is an error")
PROMPTS_OUT = typer.Option(
    None, "--prompts-out",
    help="call no model: write the requests the exchange store cannot answer to FILE (OpenAI batch JSONL) and stop "
         "before publishing (exit 5); `miscue prompts import` (or `miscue batch submit` and `collect`) puts the replies in "
         "the store, then run again")


@app.callback()
def _root() -> None:
    """miscue: verified corpora of miscommunicated requests over executable agent benchmarks."""


def fail(message: str, code: int = 2) -> NoReturn:
    """Print ``message`` as one line (never wrapped, never read as markup) and exit ``code``."""
    err.print(f"[bold red]error:[/] {escape(message)}", soft_wrap=True)
    raise typer.Exit(code)


@contextlib.contextmanager
def exit_codes() -> Iterator[None]:
    """End the command with the exit code of the first miscue error raised inside (see the
    module docstring); an OSError reading or writing a file is bad input naming the file."""
    try:
        yield
    except RunStopped as exc:
        fail(f"the run stopped cleanly (finished exchanges are kept in the store; rerun to resume): {exc}", exc.exit_code)
    except MiscueError as exc:
        fail(str(exc), exc.exit_code)
    except OSError as exc:
        fail(f"cannot read or write {exc.filename or ''}: {exc.strerror or exc}")


@contextlib.contextmanager
def exported(models: ModelOptions, artifacts: Path) -> Iterator[None]:
    """--prompts-out: a run that stopped for replies writes every request it waits for to the
    file and says so in one line (exit 5)."""
    try:
        yield
    except PromptsExported as exc:
        if models.prompts_out is None:
            raise
        gateway = Gateway(models.resolve(), Path(artifacts) / "store")
        summary = export(Outbox(Path(artifacts) / "store" / "outbox"), Path(models.prompts_out), gateway.expected_cost)
        roles = ", ".join(f"{n} {role}" for role, n in summary["roles"].items())
        fail(f"--prompts-out: {summary['requests']} requests ({roles}, about {summary['batch_cost']:.4g} USD at batch "
             f"price) written to {summary['file']}; {exc.waiting} cells or draws wait for them; nothing published. Import "
             "the replies (`miscue prompts import REPLIES`, or `miscue batch submit FILE` and `miscue batch collect`) and "
             "run again.", exc.exit_code)


def models_or_fail(llm_config: Path | None, max_cost: float | None = None, price: float | None = None,
                   replay_only: bool = False, prompts_out: Path | None = None) -> ModelOptions:
    """The command's :class:`~miscue.config.ModelOptions`, checked now by resolving them and by
    ``miscue check-config``'s check (:mod:`miscue.model_check`: providers resolve, prices known):
    a bad configuration exits 2 naming the field before anything runs; a prompt card missing from
    the installation exits 70 (:class:`~miscue.errors.MissingResource`) before anything runs."""
    with exit_codes():
        PromptSet().check()
        if prompts_out is not None and replay_only:
            raise BadInput("--prompts-out writes what the store lacks; --offline-replay refuses to lack anything: give one")
        options = model_options(llm_config, max_cost=max_cost, price=price, replay_only=replay_only, prompts_out=prompts_out)
        source = f"model configuration {llm_config}" if llm_config else "the offline models"
        check_llm_config(options.resolve()).raise_problems(source)
    return options


def parse_tasks(values: list[str] | None, benchmarks: list[str]) -> dict[str, list[str]] | None:
    """``--task`` values as {benchmark: [task ids]} (BadInput for a benchmark not in the build, or
    a bare id when the build has more than one benchmark); the ids are checked when the host loads."""
    if not values:
        return None
    tasks: dict[str, list[str]] = {}
    for value in values:
        bench, sep, ids = value.rpartition(":")
        if not sep:
            if len(benchmarks) != 1:
                raise BadInput(f"--task {value}: name the benchmark (BENCH:ID) when the build has several")
            bench = benchmarks[0]
        if bench not in benchmarks:
            raise BadInput(f"--task {value}: {bench!r} is not a benchmark of this run ({', '.join(benchmarks)})")
        tasks.setdefault(bench, []).extend(i.strip() for i in ids.split(",") if i.strip())
    return {b: list(dict.fromkeys(ids)) for b, ids in tasks.items()}


def print_json(obj: Any) -> None:
    out.print_json(json.dumps(obj, default=str))


def artifacts_arg(artifacts: Path) -> str:
    """The artifacts directory as a flow parameter (absolute: the flow may run elsewhere)."""
    return str(Path(artifacts).resolve())


def clip(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters, the cut marked with an ellipsis."""
    return text if len(text) <= limit else text[:limit - 1] + "…"


def default_ks(composite: str | None, fault_types: list[str] | None) -> list[int] | None:
    """``--composite``'s k values: as given ('none': no composites), else the whole mission when
    every type is built (``build`` with no arguments makes single and composite faults) and none
    when ``--fault-type`` chose some."""
    if composite is None:
        return None if fault_types else list(DEFAULT_KS)
    return None if composite.strip().lower() == "none" else parse_ks(composite)


def pct(rate: float | None) -> str:
    """A rate in [0, 1] as a percentage, the way every report prints it."""
    return "–" if rate is None else f"{rate * 100:.1f}%"


def fmt(v: Any) -> str:
    if v is None:
        return "–"
    if isinstance(v, float):
        return f"{v:.4g}"
    return str(v)
