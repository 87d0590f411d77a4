"""The litellm gateway (miscue.llm) driven through litellm against a loopback OpenAI stub."""

from __future__ import annotations

import asyncio
import json
import time

import pytest

from miscue.llm import (
    ExchangeStore,
    Gateway,
    LLMConfig,
    RoleConfig,
    StoreCorrupt,
    StoredExchange,
    StoreMiss,
    TerminalProviderError,
    TransientProviderError,
    model_family,
    parse_json_reply,
)

from support.openai_stub import (StubServer, bad_request, empty, hang, insufficient_quota,
                             invalid_body, malformed_json, rate_limited, reply, server_error,
                             truncated, unauthorized)

MESSAGES = [{"role": "system", "content": "You write requests."},
            {"role": "user", "content": "Say hi."}]
CARD = "card-test@1"
API_KEY = "sk-local"


@pytest.fixture
def stub():
    with StubServer() as server:
        yield server


def make_config(stub: StubServer, **overrides) -> LLMConfig:
    params = {"api_base": stub.base_url, "api_key": API_KEY, "temperature": 0.0}
    settings = dict(
        writer=RoleConfig(model="openai/stub-writer", params=params),
        extractor_a=RoleConfig(model="openai/gpt-4o-mini", params=params),  # known price
        extractor_b=RoleConfig(model="openai/llama-3-stub", params=params),
        timeout_s=2.0, max_retries=2, backoff_base_s=0.01, backoff_cap_s=0.05,
        retry_after_cap_s=5.0,
    )
    settings.update(overrides)
    return LLMConfig(**settings)


def messages(i: int) -> list[dict]:
    return [{"role": "user", "content": f"request number {i}"}]


# --- success, usage, cost, store --------------------------------------------------------------


def test_success_records_usage_cost_and_a_clean_store_entry(stub, tmp_path):
    import litellm

    stub.enqueue(reply("hello there", prompt_tokens=11, completion_tokens=4))
    gw = Gateway(make_config(stub), tmp_path)
    ex = asyncio.run(gw.complete("extractor_a", MESSAGES, CARD))

    assert (ex.text, ex.cached, ex.attempts, ex.error) == ("hello there", False, 1, None)
    assert (ex.usage.prompt_tokens, ex.usage.completion_tokens) == (11, 4)
    price = litellm.model_cost["gpt-4o-mini"]
    expected = 11 * price["input_cost_per_token"] + 4 * price["output_cost_per_token"]
    assert ex.cost == pytest.approx(expected) and ex.cost > 0
    assert ex.latency_s > 0
    assert ex.call_id == gw.key("extractor_a", MESSAGES, CARD)

    sent = stub.requests[0]
    assert sent["model"] == "gpt-4o-mini" and sent["messages"] == MESSAGES
    assert sent["temperature"] == 0.0 and "api_key" not in sent

    path = tmp_path / "exchanges" / ex.call_id[:2] / f"{ex.call_id}.json"
    assert path.is_file()
    raw = path.read_text()
    assert API_KEY not in raw and stub.base_url not in raw  # transport params never stored
    record = json.loads(raw)
    assert record["text"] == "hello there" and record["error"] is None
    assert record["usage"] == {"prompt_tokens": 11, "completion_tokens": 4}
    assert record["request"]["card_version"] == CARD
    assert record["request"]["params"] == {"temperature": 0.0}
    assert record["started_at"] and record["finished_at"]
    assert not list(path.parent.glob("*.tmp"))

    summary = gw.usage_summary()["extractor_a"]
    assert (summary.calls, summary.requests, summary.cache_hits) == (1, 1, 0)
    assert (summary.prompt_tokens, summary.completion_tokens) == (11, 4)
    assert summary.cost == pytest.approx(expected)


def test_unknown_model_price_is_zero_cost(stub, tmp_path):
    gw = Gateway(make_config(stub), tmp_path)
    ex = asyncio.run(gw.complete("writer", MESSAGES, CARD))
    assert ex.cost == 0.0 and ex.usage.prompt_tokens == 11


def test_repeated_request_is_answered_from_the_store(stub, tmp_path):
    stub.enqueue(reply("first answer"), reply("a different answer"))
    gw = Gateway(make_config(stub), tmp_path)
    first = asyncio.run(gw.complete("writer", MESSAGES, CARD))
    second = asyncio.run(gw.complete("writer", MESSAGES, CARD))
    assert stub.request_count == 1
    assert second.cached and not first.cached
    assert (second.text, second.call_id, second.usage) == (first.text, first.call_id, first.usage)
    assert gw.usage_summary()["writer"].cache_hits == 1

    # A new gateway (a rebuild) over the same store makes no call either.
    again = Gateway(make_config(stub), tmp_path).complete_sync("writer", MESSAGES, CARD)
    assert again.cached and again.text == "first answer" and stub.request_count == 1

    # The card version is part of the request identity.
    other = asyncio.run(gw.complete("writer", MESSAGES, "card-test@2"))
    assert not other.cached and other.text == "a different answer" and stub.request_count == 2


def test_key_ignores_transport_params_but_not_sampling_params(stub, tmp_path):
    base = Gateway(make_config(stub), tmp_path)
    moved = make_config(stub, writer=RoleConfig(
        model="openai/stub-writer",
        params={"api_base": "http://127.0.0.1:1/v1", "api_key": "sk-other", "temperature": 0.0}))
    hotter = make_config(stub, writer=RoleConfig(
        model="openai/stub-writer",
        params={"api_base": stub.base_url, "api_key": API_KEY, "temperature": 0.7}))
    key = base.key("writer", MESSAGES, CARD)
    assert Gateway(moved, tmp_path).key("writer", MESSAGES, CARD) == key
    assert Gateway(hotter, tmp_path).key("writer", MESSAGES, CARD) != key


def test_an_offline_models_key_changes_with_its_code_and_a_real_models_does_not(monkeypatch):
    """The embedded offline models are the kernel's code: an answer stored by older code is not
    the answer of today's model, so their key carries the code's version."""
    from miscue.llm import store

    offline = store.request_key("offline/lexical", MESSAGES, {"temperature": 0.0}, CARD)
    real = store.request_key("openai/gpt-4o-mini", MESSAGES, {"temperature": 0.0}, CARD)
    assert offline[1]["offline_code"] == store.offline_code_version() and "offline_code" not in real[1]
    monkeypatch.setattr(store, "offline_code_version", lambda: "another-kernel")
    assert store.request_key("offline/lexical", MESSAGES, {"temperature": 0.0}, CARD)[0] != offline[0]
    assert store.request_key("openai/gpt-4o-mini", MESSAGES, {"temperature": 0.0}, CARD)[0] == real[0]


def test_replay_only_miss_raises_store_miss(stub, tmp_path):
    gw = Gateway(make_config(stub, replay_only=True), tmp_path)
    with pytest.raises(StoreMiss) as err:
        asyncio.run(gw.complete("writer", MESSAGES, CARD))
    assert err.value.key == gw.key("writer", MESSAGES, CARD)
    assert stub.request_count == 0


# --- transient failures are retried -------------------------------------------------------------


def test_429_retry_after_is_honoured_then_success(stub, tmp_path):
    stub.enqueue(rate_limited(retry_after="1"), reply("after the wait"))
    gw = Gateway(make_config(stub), tmp_path)
    started = time.perf_counter()
    ex = asyncio.run(gw.complete("writer", MESSAGES, CARD))
    elapsed = time.perf_counter() - started
    assert ex.text == "after the wait" and ex.attempts == 2
    assert stub.request_count == 2
    assert elapsed >= 0.95  # waited for Retry-After: 1, not the 0.01 s backoff
    assert gw.usage_summary()["writer"].retries == 1


def test_429_retry_after_is_bounded(stub, tmp_path):
    stub.enqueue(rate_limited(retry_after="30"), reply("soon"))
    gw = Gateway(make_config(stub, retry_after_cap_s=0.05), tmp_path)
    started = time.perf_counter()
    ex = asyncio.run(gw.complete("writer", MESSAGES, CARD))
    assert ex.text == "soon" and stub.request_count == 2
    assert time.perf_counter() - started < 2.0


@pytest.mark.parametrize("failure", [server_error(500), server_error(503), empty(), truncated(),
                                     invalid_body()],
                         ids=["500", "503", "empty", "truncated", "invalid-body"])
def test_transient_failure_then_success(stub, tmp_path, failure):
    stub.enqueue(failure, reply("recovered"))
    gw = Gateway(make_config(stub), tmp_path)
    ex = asyncio.run(gw.complete("writer", MESSAGES, CARD))
    assert ex.text == "recovered" and ex.attempts == 2 and not ex.cached
    assert stub.request_count == 2
    record = json.loads(gw.store.path(ex.call_id).read_text())
    assert record["text"] == "recovered" and record["attempts"] == 2


def test_timeout_then_success(stub, tmp_path):
    stub.enqueue(hang(10.0), reply("on time"))
    gw = Gateway(make_config(stub, timeout_s=0.5), tmp_path)
    started = time.perf_counter()
    ex = asyncio.run(gw.complete("writer", MESSAGES, CARD))
    elapsed = time.perf_counter() - started
    assert ex.text == "on time" and ex.attempts == 2 and stub.request_count == 2
    assert 0.45 <= elapsed < 3.0


def test_exhausted_retries_raise_transient_error_and_are_not_served_later(stub, tmp_path):
    stub.enqueue(server_error(), server_error(502), server_error(503), reply("finally"))
    gw = Gateway(make_config(stub, max_retries=2), tmp_path)
    with pytest.raises(TransientProviderError) as err:
        asyncio.run(gw.complete("writer", MESSAGES, CARD))
    # max_retries=2 -> exactly 3 requests: the OpenAI SDK did not retry underneath ours.
    assert stub.request_count == 3 and stub.pending == 1
    assert err.value.exchange.error and err.value.exchange.attempts == 3
    assert err.value.status == 503
    summary = gw.usage_summary()["writer"]
    assert (summary.failures, summary.requests, summary.calls) == (1, 3, 0)

    # The failure is recorded for audit but never served: the next run asks again.
    key = gw.key("writer", MESSAGES, CARD)
    assert json.loads(gw.store.path(key).read_text())["error"].startswith("transient")
    with pytest.raises(StoreMiss, match="failure is recorded"):
        asyncio.run(Gateway(make_config(stub, replay_only=True), tmp_path)
                    .complete("writer", MESSAGES, CARD))
    ex = asyncio.run(gw.complete("writer", MESSAGES, CARD))
    assert ex.text == "finally" and stub.request_count == 4
    assert json.loads(gw.store.path(key).read_text())["error"] is None


# --- terminal failures are not -----------------------------------------------------------------


@pytest.mark.parametrize("failure, kind, status", [
    (unauthorized(), "auth", 401),
    (insufficient_quota(), "quota", 429),
    (bad_request(), "bad_request", 400),
], ids=["401", "insufficient-quota", "400"])
def test_terminal_error_is_not_retried(stub, tmp_path, failure, kind, status):
    stub.enqueue(failure, reply("must not be reached"))
    gw = Gateway(make_config(stub, max_retries=3), tmp_path)
    with pytest.raises(TerminalProviderError) as err:
        asyncio.run(gw.complete("extractor_b", MESSAGES, CARD))
    assert stub.request_count == 1 and stub.pending == 1
    assert (err.value.kind, err.value.status) == (kind, status)
    assert API_KEY not in str(err.value)
    assert gw.key("extractor_b", MESSAGES, CARD) not in gw.store
    assert gw.usage_summary()["extractor_b"].failures == 1


def test_a_terminal_error_halts_the_gateway(stub, tmp_path):
    """After a terminal error no further request is sent: calls the store cannot answer raise the
    same error at once (the run stops instead of each call in flight meeting it), while stored
    exchanges are still answered."""
    stub.enqueue(reply("stored"), unauthorized(), reply("must not be reached"))
    gw = Gateway(make_config(stub), tmp_path)

    async def run():
        await gw.complete("writer", messages(1), CARD)
        with pytest.raises(TerminalProviderError) as first:
            await gw.complete("writer", messages(2), CARD)
        later = await asyncio.gather(*(gw.complete("extractor_a", messages(i), CARD) for i in range(3, 7)),
                                     return_exceptions=True)
        again = await gw.complete("writer", messages(1), CARD)
        return first.value, later, again

    first, later, again = asyncio.run(run())
    assert gw.halted is first and all(exc is first for exc in later)
    assert stub.request_count == 2 and stub.pending == 1
    assert again.cached and again.text == "stored"


def test_calls_waiting_for_a_slot_when_the_run_halts_are_not_sent(stub, tmp_path):
    """Calls that passed the halt check while every slot was taken wait for a slot; the one that
    gets it after a terminal error raises that error instead of sending its request."""
    stub.enqueue(unauthorized(), *(reply(f"must not be reached {i}") for i in range(5)))
    gw = Gateway(make_config(stub, max_concurrency=1), tmp_path)

    async def run():
        return await asyncio.gather(*(gw.complete("writer", messages(i), CARD) for i in range(6)),
                                    return_exceptions=True)

    results = asyncio.run(run())
    assert all(isinstance(r, TerminalProviderError) for r in results), [type(r).__name__ for r in results]
    assert stub.request_count == 1 and stub.pending == 5
    assert gw.usage_summary()["writer"].requests == 1


def test_missing_credentials_is_terminal(stub, tmp_path, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    config = make_config(stub, writer=RoleConfig(model="openai/stub-writer",
                                                 params={"api_base": stub.base_url}))
    with pytest.raises(TerminalProviderError) as err:
        asyncio.run(Gateway(config, tmp_path).complete("writer", MESSAGES, CARD))
    assert err.value.kind == "auth" and stub.request_count == 0


def test_a_failure_after_successes_keeps_their_entries(stub, tmp_path):
    stub.enqueue(reply("one"), reply("two"), unauthorized())
    gw = Gateway(make_config(stub), tmp_path)

    async def run():
        done = [await gw.complete("writer", messages(1), CARD),
                await gw.complete("writer", messages(2), CARD)]
        with pytest.raises(TerminalProviderError):
            await gw.complete("writer", messages(3), CARD)
        return done

    done = asyncio.run(run())
    replay = Gateway(make_config(stub, replay_only=True), tmp_path)
    for i, ex in enumerate(done, start=1):
        again = replay.complete_sync("writer", messages(i), CARD)
        assert again.cached and again.text == ex.text
    assert stub.request_count == 3


# --- replies are text; JSON is the caller's verdict --------------------------------------------


def test_malformed_json_reply_is_returned_as_text(stub, tmp_path):
    stub.enqueue(malformed_json())
    ex = asyncio.run(Gateway(make_config(stub), tmp_path).complete("extractor_a", MESSAGES, CARD))
    assert ex.text.startswith("```json") and ex.error is None and stub.request_count == 1
    assert parse_json_reply(ex.text) is None


@pytest.mark.parametrize("text, expected", [
    ('{"a": 1}', {"a": 1}),
    ('```json\n{"a": {"b": [1, 2]}}\n```', {"a": {"b": [1, 2]}}),
    ('Sure! Here it is: {"ok": true} and {"second": 2}', {"ok": True}),
    ('[1, 2, 3]', None),
    ('{broken', None),
    ('', None),
    (None, None),
])
def test_parse_json_reply(text, expected):
    assert parse_json_reply(text) == expected


# --- structured output ---------------------------------------------------------------------------


def reading_form():
    from miscue.reading import FormRequirement, ReadingForm

    return ReadingForm(requirements=(FormRequirement(slot="cabin", phrase="the cabin", truth="business",
                                                     values=("business", "economy", "basic economy")),),
                       operation="book", operations=("book", "cancel"))


def test_a_reply_schema_goes_as_response_format_where_the_model_takes_one(stub, tmp_path):
    """extractor_a (gpt-4o-mini: litellm's map says it takes a schema) is sent it; extractor_b (a
    name litellm cannot look up) is not, unless its configuration says so; the reply is parsed
    and checked by the reading form either way; the schema is part of the request's key."""
    form = reading_form()
    schema = form.schema()
    answer = {"requirements": {"cabin": {"status": "stated", "value": "business", "candidates": [], "quote": "business"}},
              "operation": "book", "extras": [], "off_topic": "", "asks": True}
    stub.enqueue(reply(json.dumps(answer)), reply("```json\n" + json.dumps(answer) + "\n```"))
    gw = Gateway(make_config(stub), tmp_path)
    assert gw.structured("extractor_a") and not gw.structured("extractor_b")
    a = asyncio.run(gw.complete("extractor_a", MESSAGES, CARD, schema))
    b = asyncio.run(gw.complete("extractor_b", MESSAGES, CARD, schema))
    sent_a, sent_b = stub.requests
    assert sent_a["response_format"] == {"type": "json_schema", "json_schema": {"name": "reply", "schema": schema,
                                                                               "strict": True}}
    assert "response_format" not in sent_b
    assert form.parse(parse_json_reply(a.text)) == form.parse(parse_json_reply(b.text))
    assert a.call_id != gw.key("extractor_a", MESSAGES, CARD) == gw.key("extractor_a", MESSAGES, CARD, None)
    # a local server litellm cannot look up: the configuration says it takes a schema
    local = make_config(stub, extractor_b=RoleConfig(model="openai/llama-3-stub", structured_output=True,
                                                     params={"api_base": stub.base_url, "api_key": API_KEY}))
    stub.enqueue(reply(json.dumps(answer)))
    asyncio.run(Gateway(local, tmp_path / "local").complete("extractor_b", MESSAGES, CARD, schema))
    assert stub.requests[-1]["response_format"]["json_schema"]["schema"] == schema
    # and a model that would take one is sent none when its configuration says no
    off = make_config(stub, extractor_a=RoleConfig(model="openai/gpt-4o-mini", structured_output=False,
                                                   params={"api_base": stub.base_url, "api_key": API_KEY}))
    asyncio.run(Gateway(off, tmp_path / "off").complete("extractor_a", MESSAGES, CARD, schema))
    assert "response_format" not in stub.requests[-1]


# --- configuration -----------------------------------------------------------------------------


@pytest.mark.parametrize("model, family", [
    ("openai/gpt-4o-mini", "gpt"),
    ("azure/gpt-4.1", "gpt"),
    ("openai/o3-mini", "gpt"),
    ("anthropic/claude-3-5-sonnet-20241022", "claude"),
    ("bedrock/anthropic.claude-3-haiku-20240307-v1:0", "claude"),
    ("openai/llama-3.1-8b-instruct", "llama"),
    ("together_ai/meta-llama/Llama-3-70b-chat-hf", "llama"),
    ("ollama_chat/qwen2.5", "qwen"),
    ("hosted_vllm/Qwen/Qwen2.5-7B-Instruct", "qwen"),
    ("mistral/mistral-large-latest", "mistral"),
    ("gemini/gemini-1.5-pro", "gemini"),
    ("openai/deepseek-r1-distill-llama-70b", "deepseek"),
    ("offline/lexical", "offline-lexical"),
    ("offline/parse", "offline-parse"),
    ("openai/stub-writer", "stub"),
])
def test_model_family(model, family):
    assert model_family(model) == family


def test_same_family_extractors_are_refused(stub):
    with pytest.raises(ValueError) as err:
        make_config(stub, extractor_a=RoleConfig(model="openai/gpt-4o-mini"),
                    extractor_b=RoleConfig(model="azure/gpt-4.1"))
    message = str(err.value)
    assert "openai/gpt-4o-mini" in message and "azure/gpt-4.1" in message and "'gpt'" in message
    # Different families, and the two offline extractors, are accepted.
    make_config(stub, extractor_a=RoleConfig(model="offline/lexical"),
                extractor_b=RoleConfig(model="offline/parse"))


@pytest.mark.parametrize("params", [{"num_retries": 3}, {"max_retries": 5},
                                    {"fallbacks": ["openai/gpt-4o"]}, {"stream": True}])
def test_gateway_owned_params_are_refused(params):
    with pytest.raises(ValueError, match=next(iter(params))):
        RoleConfig(model="openai/gpt-4o-mini", params=params)


def test_model_needs_a_provider_route():
    with pytest.raises(ValueError, match="provider"):
        RoleConfig(model="gpt-4o-mini")


# --- store integrity ---------------------------------------------------------------------------


@pytest.mark.parametrize("replay_only", [False, True])
def test_corrupt_store_entry_raises_naming_the_file(stub, tmp_path, replay_only):
    gw = Gateway(make_config(stub), tmp_path)
    ex = asyncio.run(gw.complete("writer", MESSAGES, CARD))
    path = gw.store.path(ex.call_id)
    path.write_text('{"key": "' + ex.call_id + '", "text": "trunc')
    again = Gateway(make_config(stub, replay_only=replay_only), tmp_path)
    with pytest.raises(StoreCorrupt) as err:
        asyncio.run(again.complete("writer", MESSAGES, CARD))
    assert str(path) in str(err.value) and err.value.path == path
    assert stub.request_count == 1  # never silently re-called
    assert path.read_text().endswith("trunc")  # and never overwritten


def test_store_never_replaces_a_success_with_a_failure(tmp_path):
    store = ExchangeStore(tmp_path)
    key = "ab" + "0" * 62
    stamp = {"started_at": "2026-01-01T00:00:00Z", "finished_at": "2026-01-01T00:00:01Z"}
    success = StoredExchange(key=key, request={"model": "openai/x"}, text="kept", **stamp)
    failure = StoredExchange(key=key, request={"model": "openai/x"}, text=None,
                             error="transient: 503", **stamp)
    path = store.put(failure)
    assert path == tmp_path / "ab" / f"{key}.json" and key not in store
    store.put(success)
    store.put(failure)  # e.g. a concurrent identical request that failed, finishing later
    assert store.get(key).text == "kept" and key in store
    assert [p.name for p in path.parent.iterdir()] == [path.name]  # no temp files left


# --- limits ------------------------------------------------------------------------------------


def test_concurrency_bound_is_respected(tmp_path):
    with StubServer(default=reply("slow", delay_s=0.2)) as stub:
        gw = Gateway(make_config(stub, max_concurrency=3), tmp_path)

        async def run():
            return await asyncio.gather(*(gw.complete("writer", messages(i), CARD)
                                          for i in range(9)))

        started = time.perf_counter()
        results = asyncio.run(run())
        elapsed = time.perf_counter() - started
        assert len({ex.call_id for ex in results}) == 9 and stub.request_count == 9
        assert stub.max_in_flight == 3  # bounded, and the bound was actually reached
        assert elapsed >= 0.55  # 3 waves of 0.2 s


def test_requests_per_minute_limit_per_provider(stub, tmp_path):
    # 600/min = 10/s with a one-second burst of 10: 16 requests need >= 0.5 s more.
    gw = Gateway(make_config(stub, max_concurrency=32, requests_per_minute={"openai": 600}),
                 tmp_path)

    async def run():
        return await asyncio.gather(*(gw.complete("writer", messages(i), CARD)
                                      for i in range(16)))

    started = time.perf_counter()
    asyncio.run(run())
    elapsed = time.perf_counter() - started
    assert stub.request_count == 16
    assert elapsed >= 0.5

    unlimited = Gateway(make_config(stub, max_concurrency=32,
                                    requests_per_minute={"anthropic": 1}), tmp_path / "other")
    async def run_unlimited():
        return await asyncio.gather(*(unlimited.complete("writer", messages(i), CARD)
                                      for i in range(16)))

    # another provider's limit does not apply: at 1 request per minute these 16 would take a
    # quarter of an hour, far past the generous bound (no tight timing: the machine may be busy)
    results = asyncio.run(asyncio.wait_for(run_unlimited(), timeout=60))
    assert len(results) == 16


def test_sync_helper_across_event_loops(stub, tmp_path):
    gw = Gateway(make_config(stub, max_concurrency=1, requests_per_minute={"openai": 6000}),
                 tmp_path)
    texts = [gw.complete_sync("writer", messages(i), CARD).text for i in range(3)]
    assert texts == ["ok", "ok", "ok"] and stub.request_count == 3

    async def inside_a_loop():
        gw.complete_sync("writer", messages(9), CARD)

    with pytest.raises(RuntimeError, match="running event loop"):
        asyncio.run(inside_a_loop())
