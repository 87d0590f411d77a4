"""``miscue batch submit / status / collect``: a ``--prompts-out`` file through a provider's batch
API (litellm's batch functions), its replies into the exchange store (:mod:`miscue.llm.batches`)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Optional

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn
from rich.table import Table

from miscue.config import model_options
from miscue.flows.cli.app import ARTIFACTS, AS_JSON, LLM_CONFIG, app, err, exit_codes, fail, out, print_json
from miscue.llm import ExchangeStore, LLMConfig
from miscue.llm.batch_api import BatchProviderError, LiteLLMBatchAPI
from miscue.llm.batches import BatchRecord, Batches, collect, plan_submission, refresh, submit
from miscue.llm.outbox import Outbox

batch = typer.Typer(help="prompts out through a provider's batch API: submit, status, collect", no_args_is_help=True)
app.add_typer(batch, name="batch")

BATCH_LLM_CONFIG = typer.Option(
    None, "--llm-config",
    help="the run's model configuration (its roles' api_base, api_key); default: what each batch's record keeps, "
         "with keys from the environment")
#: the longest ``collect --wait`` waits by default: a batch's 24-hour window, and an hour to spare
DEFAULT_WAIT_S = 25 * 3600.0


def _places(artifacts: Path) -> tuple[Outbox, ExchangeStore, Batches]:
    store = Path(artifacts) / "store"
    return Outbox(store / "outbox"), ExchangeStore(store / "exchanges"), Batches(store / "batches")


def _config(llm_config: Path | None) -> LLMConfig | None:
    return None if llm_config is None else model_options(llm_config).resolve()


@contextlib.contextmanager
def _provider_errors(config_given: bool = True) -> Iterator[None]:
    """A failed batch call ends the command with exit 3 and says that nothing recorded is lost."""
    try:
        yield
    except BatchProviderError as exc:
        hint = "" if config_given else (" (without --llm-config the provider's key comes from the environment: pass the "
                                        "run's model configuration)")
        fail(f"{exc}{hint}; what was recorded before stays recorded: run the command again to go on", exc.exit_code)


def _bar(label: str, as_json: bool) -> Progress:
    return Progress(SpinnerColumn(), TextColumn(label), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                    TextColumn("{task.description}"), console=err, disable=as_json or not err.is_terminal, transient=True)


def _log(as_json: bool, text: str) -> None:
    """A progress line where there is no bar (a log), none under --json."""
    if not as_json and not err.is_terminal:
        err.print(text, soft_wrap=True, highlight=False)


def _counts(r: BatchRecord) -> tuple[str, str, str]:
    c = r.request_counts
    return (str(c.get("completed", 0)), str(c.get("failed", 0)), str(c.get("total") or len(r.custom_ids)))


def _records_table(title: str, records: list[BatchRecord]) -> Table:
    t = Table(title=title)
    for col in ("batch", "model", "status", "completed", "failed", "total"):
        t.add_column(col, justify="right" if col in ("completed", "failed", "total") else "left", overflow="fold")
    for r in records:
        t.add_row(r.label, r.model, r.status, *_counts(r))
    return t


def _dump(records: list[BatchRecord]) -> list[dict[str, Any]]:
    return [r.model_dump(mode="json") for r in records]


@batch.command("submit")
def submit_(
    file: Path = typer.Argument(..., help="the requests file --prompts-out wrote (OpenAI batch JSONL)"),
    llm_config: Optional[Path] = LLM_CONFIG,
    as_json: bool = AS_JSON,
    artifacts: Path = ARTIFACTS,
) -> None:
    """Send a --prompts-out file's requests to their providers' batch APIs.

    One batch per model (and server), recorded under artifacts/store/batches/. Requests already
    answered in the store, or carried by a batch not yet collected, are left out, so submitting
    twice sends nothing twice. A file not in the batch shape, a request this artifacts directory's
    outbox is not waiting for, or a provider litellm cannot batch exits 2 and sends nothing."""
    with exit_codes(), _provider_errors():
        config = model_options(llm_config).resolve()
        outbox, store, batches = _places(artifacts)
        with batches.turn():
            plan = plan_submission(file, outbox, store, batches, config)
            with _bar("submitting", as_json) as bar:
                task = bar.add_task("", total=plan.requests)

                def done(record: BatchRecord) -> None:
                    bar.update(task, advance=len(record.custom_ids), description=f"{record.batch_id} ({record.model})")
                    _log(as_json, f"submitted {record.batch_id}: {len(record.custom_ids)} requests for {record.model}")

                made = submit(plan, batches, LiteLLMBatchAPI(config.timeout_s), on_batch=done)
    held = ", ".join(f"{n} in {b}" for b, n in plan.held.items())
    if as_json:
        print_json({"submitted": _dump(made), "requests": plan.requests, "answered": plan.answered, "held": plan.held})
        return
    if made:
        out.print(_records_table("submitted batches", made))
        out.print(f"submitted {plan.requests} requests in {len(made)} batch{'es' if len(made) != 1 else ''}", highlight=False)
    else:
        out.print("nothing to submit: no request of the file is waiting outside a batch", highlight=False)
    if plan.answered or held:
        out.print(f"left out: {plan.answered} already answered in the store"
                  + (f"; already in batches not yet collected: {held}" if held else ""), highlight=False)
    if made or held:
        out.print("next: `miscue batch status`, then `miscue batch collect` (--wait to wait for them)", highlight=False)


@batch.command("status")
def status(
    llm_config: Optional[Path] = BATCH_LLM_CONFIG,
    as_json: bool = AS_JSON,
    artifacts: Path = ARTIFACTS,
) -> None:
    """Status and request counts of every batch not yet collected.

    The provider is asked about each batch (completed / failed / total) and its record updated.
    A batch that failed as a whole releases its requests."""
    with exit_codes(), _provider_errors(llm_config is not None):
        config = _config(llm_config)
        _, _, batches = _places(artifacts)
        with batches.turn():
            records = refresh(batches, LiteLLMBatchAPI(config.timeout_s if config else 60.0), config)
    if as_json:
        print_json({"batches": _dump(records)})
        return
    if not records:
        out.print("no batch waits to be collected", highlight=False)
        return
    out.print(_records_table("batches not yet collected", records))
    for r in records:
        if r.closed == "released":
            out.print(f"{r.label} {r.status}: {'; '.join(r.errors) or 'no output'} -- its {len(r.custom_ids)} requests are "
                      "released; the next submission sends them again", highlight=False)
        elif r.batch_id is None:
            out.print(f"{r.label}: the provider never confirmed this batch; its requests stay held (see its record under "
                      f"{batches.root})", highlight=False)


@batch.command("collect")
def collect_(
    wait: bool = typer.Option(False, "--wait", help="poll until every batch in flight has finished (or --timeout)"),
    poll_seconds: float = typer.Option(30.0, "--poll-seconds", min=0.0, help="seconds between two polls with --wait"),
    timeout: float = typer.Option(DEFAULT_WAIT_S, "--timeout", min=0.0,
                                  help="the longest --wait waits, in seconds (default: 25 hours)"),
    llm_config: Optional[Path] = BATCH_LLM_CONFIG,
    as_json: bool = AS_JSON,
    artifacts: Path = ARTIFACTS,
) -> None:
    """Import the replies of every finished batch into the exchange store.

    Its output and error files go through `miscue prompts import`'s checks) and mark it collected. A failed or expired line
    keeps its request waiting: the next --prompts-out round writes it out again, and the next
    submission sends it alone. Output for requests this artifacts directory never asked for exits 2
    and imports nothing. Then run the command that wrote the prompts again."""
    with exit_codes(), _provider_errors(llm_config is not None):
        config = _config(llm_config)
        outbox, store, batches = _places(artifacts)
        with _bar("waiting for batches", as_json) as bar:  # (collect takes its turn poll by poll)
            task = bar.add_task("", total=None)

            def polled(records: list[BatchRecord]) -> None:
                total = sum(int(r.request_counts.get("total") or len(r.custom_ids)) for r in records)
                finished = sum(int(r.request_counts.get("completed", 0)) + int(r.request_counts.get("failed", 0))
                               for r in records)
                states = ", ".join(f"{r.label} {r.status}" for r in records) or "none"
                bar.update(task, total=total or None, completed=finished, description=states)
                if wait:
                    _log(as_json, f"batches: {states}")

            result = collect(batches, LiteLLMBatchAPI(config.timeout_s if config else 60.0), config, outbox, store,
                             wait=wait, poll_s=poll_seconds, timeout_s=timeout, on_poll=polled)
    waiting = len(outbox.waiting())
    if as_json:
        print_json({"collected": _dump(result.collected), "released": _dump(result.released),
                    "pending": _dump(result.pending), "polls": result.polls, "timed_out": result.timed_out,
                    "still_waiting": waiting})
    else:
        _collected_report(result.collected, result.released, result.pending, waiting)
    if result.timed_out:
        fail(f"batch collect --wait: {len(result.pending)} batches still in flight after {timeout:g} s; what had finished "
             "is collected; run `miscue batch collect` again later", 3)


def _collected_report(collected: list[BatchRecord], released: list[BatchRecord], pending: list[BatchRecord],
                      waiting: int) -> None:
    if collected:
        t = Table(title="collected batches")
        for col in ("batch", "model", "status", "stored", "already stored", "failed", "missing"):
            t.add_column(col, justify="left" if col in ("batch", "model", "status") else "right", overflow="fold")
        for r in collected:
            i = r.imported
            t.add_row(r.label, r.model, r.status, *(str(i.get(k, 0)) for k in ("stored", "already_stored", "failed", "missing")))
        out.print(t)
        for r in collected:
            for key, why in r.failures.items():
                out.print(f"  {r.label}: {key[:16]} failed: {why}", highlight=False, soft_wrap=True)
    for r in released:
        out.print(f"{r.label} {r.status}: {'; '.join(r.errors) or 'no output'} -- its {len(r.custom_ids)} requests are "
                  "released; the next submission sends them again", highlight=False)
    if pending:
        out.print(f"still in flight: {', '.join(f'{r.label} ({r.status})' for r in pending)}", highlight=False)
    if not (collected or released or pending):
        out.print("no batch waits to be collected", highlight=False)
    out.print(f"{waiting} requests still wait for replies; run the command that wrote the prompts again "
              "(with --prompts-out) to go on", highlight=False)
