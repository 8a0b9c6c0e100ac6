"""Traces: exported over OTLP/HTTP to a receiver the test starts (protobuf decoded by
opentelemetry-proto), a span per run, per upstream call (retries and the first token as events,
usage as attributes), per MCP call and per grid cell, linked; never a message's text or a key in
any attribute; and with no endpoint, OpenTelemetry is never imported."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from django.conf import settings as django_settings
from django.test import AsyncClient

from playground import conversations, grids
from playground.mcp.config import ServerConfig
from playground.mcp.manager import close_mcp_manager
from playground.observability.trace_config import trace_config
from playground.observability.traces import OtelTracer, install, uninstall
from playground.upstream.profiles import profiles_from_environ
from playground.web.ownership import local_user
from tests.grid_support import run_grid
from tests.mcp_support import FAULT_SERVER
from tests.otlp_receiver import Received, Span, otlp_receiver
from tests.relay_support import open_socket, read_run, receive_type

ROOT = Path(__file__).resolve().parent.parent
#: Text that is a message's, and secrets: none may reach a span.
PROMPT = "MARKER-PROMPT-6d1f"
ARGUMENT = "MARKER-ARGUMENT-93ab"
COLLECTOR_TOKEN = "collector-token-51c7"
MCP_SECRET = "mcp-secret-0e8d"
SIMULATOR_KEY = "sk-simulator-key-c42a"
ECHO = {"name": "fault__echo", "description": "Echo", "input_schema": {"type": "object"}}

SERVER, CLIENT, INTERNAL = 2, 3, 1  # the span kinds' numbers in OTLP


@dataclass
class Traced:
    tracer: OtelTracer
    received: Received

    def flushed(self) -> Received:
        assert self.tracer.flush()
        return self.received


@pytest.fixture
def traced(relay: Any, settings: Any, live_server_proc: Any) -> Iterator[Traced]:
    # The simulator's profile with a key (the simulator in local mode takes any): it is sent
    # with every upstream call, and must reach no span.
    settings.PLAYGROUND_PROFILES = profiles_from_environ(
        {}, simulator_url=live_server_proc.simulator_url, simulator_key=SIMULATOR_KEY
    )
    with otlp_receiver() as received:
        config = trace_config(
            endpoint=received.url,
            headers=(f"authorization=Bearer {COLLECTOR_TOKEN}",),
            timeout=5.0,
            sample_ratio=1.0,
            service_name="playground-under-test",
        )
        assert config is not None
        tracer = install(config)
        try:
            yield Traced(tracer, received)
        finally:
            uninstall(tracer)


@pytest.fixture
async def echo_server(settings: Any) -> AsyncIterator[None]:
    settings.PLAYGROUND_MCP_SERVERS = (
        ServerConfig(
            name="fault",
            transport="stdio",
            command=sys.executable,
            args=(str(FAULT_SERVER),),
            env={"FAULT_TOKEN": MCP_SECRET},
        ),
    )
    await close_mcp_manager()
    yield
    await close_mcp_manager()


def every_value(span: Span) -> Iterator[Any]:
    """Every attribute value a span carries: its own, its events', its links', its resource's,
    and its name and status text."""
    yield span.name
    yield span.status_message
    for attributes in (
        span.attributes,
        span.resource,
        *(event for _, _, event in span.events),
        *(link for _, _, link in span.links),
    ):
        for key, value in attributes.items():
            yield key
            yield from value if isinstance(value, tuple) else (value,)


def secrets_of_the_test() -> list[str]:
    assert django_settings.PLAYGROUND_PROFILES["simulator"].api_key == SIMULATOR_KEY
    return [PROMPT, ARGUMENT, COLLECTOR_TOKEN, MCP_SECRET, SIMULATOR_KEY]


@pytest.mark.django_db(transaction=True)
async def test_a_run_its_upstream_call_and_an_mcp_call_are_spans_with_no_text_or_key(
    traced: Traced, echo_server: None, settings: Any
) -> None:
    settings.PLAYGROUND_UPSTREAM_MAX_RETRIES = 1  # the second send's 529 is tried again once
    owner = await sync_to_async(local_user)()
    conversation = await sync_to_async(conversations.create_conversation)(
        owner=owner, profile="simulator", tools=[ECHO]
    )
    async with open_socket(conversation.id) as socket:
        await receive_type(socket, "hello")
        await socket.send_json_to({"action": "send", "content": f"Use fault__echo: {PROMPT}"})
        asked = await read_run(socket)
        assert asked.finished is not None and asked.finished["status"] == "complete"
        [call] = [b for b in asked.finished["message"]["content"] if b["type"] == "tool_use"]
        answer = await AsyncClient().post(
            "/api/mcp/call/",
            data=json.dumps(
                {
                    "server": "fault",
                    "tool": "echo",
                    "input": {"note": ARGUMENT},
                    "conversation": str(conversation.id),
                    "tool_use_id": call["id"],
                    "approval": "once",
                }
            ),
            content_type="application/json",
        )
        lines = b"".join([chunk async for chunk in answer.streaming_content]).decode()
        assert ARGUMENT in lines  # the server echoed it: it was the call's, and its result's
        await socket.send_json_to(
            {
                "action": "tool_results",
                "results": [{"tool_use_id": call["id"], "content": "done"}],
                "text": f"[[sim: status=529 retry_after=0]] {PROMPT}",
            }
        )
        failed = await read_run(socket)
        assert failed.finished is not None and failed.finished["status"] == "failed"
    received = traced.flushed()

    first_run, second_run = sorted(received.named("run"), key=lambda span: span.start_ns)
    assert first_run.parent_id == "" and first_run.kind == INTERNAL
    assert first_run.attributes["playground.run.id"] == asked.finished["run_id"]
    assert first_run.attributes["playground.run.kind"] == "interactive"
    assert first_run.attributes["playground.run.status"] == "complete"
    assert first_run.attributes["gen_ai.usage.output_tokens"] > 0
    assert first_run.resource["service.name"] == "playground-under-test"
    chats = {span.parent_id: span for span in received.spans if span.name.startswith("chat ")}
    chat = chats[first_run.span_id]
    assert (chat.kind, chat.trace_id) == (CLIENT, first_run.trace_id)
    assert chat.attributes["http.response.status_code"] == 200
    assert chat.attributes["gen_ai.response.finish_reasons"] == ("tool_use",)
    assert chat.attributes["gen_ai.usage.input_tokens"] > 0
    first_token_at, _ = chat.event("first token")
    assert first_run.start_ns < first_token_at <= chat.end_ns
    # The MCP call is the child of the run whose answer asked for it.
    tool = received.one("tools/call echo")
    assert (tool.trace_id, tool.parent_id) == (first_run.trace_id, first_run.span_id)
    assert tool.attributes["gen_ai.tool.call.id"] == call["id"]
    assert tool.attributes["playground.mcp.outcome"] == "result"
    assert tool.end_ns - tool.start_ns > 0
    # The 529: tried again once (an event), then failed, named by its code.
    retried = chats[second_run.span_id]
    _, retry = retried.event("retry")
    assert (retry["playground.retry.attempt"], retry["playground.retry.reason"]) == (2, "HTTP 529")
    assert retried.attributes["http.response.status_code"] == 529
    assert retried.attributes["playground.upstream.attempts"] == 2
    assert retried.status_code == 2 and second_run.status_code == 2  # ERROR
    assert second_run.attributes["error.type"] == retried.attributes["error.type"]
    # The exporter sent the collector's header; no span holds it, nor any text or key.
    assert received.headers[0]["authorization"] == f"Bearer {COLLECTOR_TOKEN}"
    values = [str(value) for span in received.spans for value in every_value(span)]
    assert len(values) > 100
    for secret in secrets_of_the_test():
        assert not [value for value in values if secret in value], secret


@pytest.mark.django_db(transaction=True)
async def test_a_grid_cells_span_is_the_parent_of_its_runs(relay: Any, traced: Traced) -> None:
    owner = await sync_to_async(local_user)()
    source = await sync_to_async(conversations.create_conversation)(owner=owner)
    await sync_to_async(conversations.append_user_message)(
        conversation=source, content=f"{PROMPT} {{{{topic}}}}"
    )
    grid = await sync_to_async(grids.create_grid)(
        owner=owner,
        conversation=source,
        columns=[{"label": "plain", "changes": {"max_tokens": 50}}],
        rows=[{"topic": "one"}, {"topic": "two"}],
        concurrency=2,
        scorers=[{"id": "j", "kind": "judge", "rubric": "Mentions '{{topic}}'", "threshold": 0.5}],
    )
    await run_grid(relay, grid)
    received = traced.flushed()
    cells = {span.span_id: span for span in received.named("grid cell")}
    runs = received.named("run")
    assert len(cells) == 2 and len(runs) == 2
    for run in runs:
        cell = cells[run.parent_id]
        assert run.trace_id == cell.trace_id and cell.parent_id == ""
        assert run.attributes["playground.run.kind"] == "grid_cell"
        assert cell.start_ns <= run.start_ns and run.end_ns <= cell.end_ns
    assert {cell.attributes["playground.grid.cell_id"] for cell in cells.values()} == {
        str(pk) for pk in await sync_to_async(_cell_ids)(grid)
    }
    # Each cell's judge: an upstream call of its own (no run), the cell's child too.
    judges = [
        span for span in received.spans if span.attributes.get("playground.run.kind") == "judge"
    ]
    assert len(judges) == 2
    for judge in judges:
        assert judge.name.startswith("chat ") and judge.kind == CLIENT
        assert judge.parent_id in cells and judge.attributes["playground.run.status"] == "complete"
        assert judge.attributes["gen_ai.usage.output_tokens"] > 0
        assert judge.event("first token")[0] <= judge.end_ns


def _cell_ids(grid: Any) -> list[Any]:
    from playground.models import EvalCell

    return list(EvalCell.objects.filter(row__grid=grid).values_list("pk", flat=True))


def _after_start(**env: str) -> tuple[str, set[str]]:
    """Which tracer the run path holds once a server process has imported the app and the run
    path, and which of the traces' modules it loaded."""
    script = (
        "import json, sys, django; django.setup();"
        "import playground.asgi, playground.runs.live_run, playground.grids.runner;"
        "from playground.runs import tracing;"
        "print(type(tracing.current).__name__);"
        "print(json.dumps(sorted(sys.modules)))"
    )
    clean = {k: v for k, v in os.environ.items() if not k.startswith("PLAYGROUND_OTLP")}
    answer = subprocess.run(
        [sys.executable, "-c", script],
        cwd=ROOT,
        env={**clean, "DJANGO_SETTINGS_MODULE": "playground.settings", **env},
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    tracer, modules = answer.stdout.strip().splitlines()[-2:]
    tracing_modules = {
        name
        for name in json.loads(modules)
        if name.startswith(("playground.observability.traces", "opentelemetry.sdk.trace"))
        or name.startswith("opentelemetry.exporter")
    }
    return tracer, tracing_modules


def test_without_an_endpoint_nothing_of_tracing_is_imported() -> None:
    # (redis-py 8 imports the SDK's metrics package by itself wherever the SDK is installed:
    # not ours to avoid; the traces' SDK, exporter and module are.)
    assert _after_start() == ("Tracer", set())
    tracer, loaded = _after_start(PLAYGROUND_OTLP_ENDPOINT="http://127.0.0.1:9")
    assert tracer == "OtelTracer"
    assert {"playground.observability.traces", "opentelemetry.sdk.trace"} <= loaded


def test_the_configuration_names_what_is_wrong_never_a_headers_value() -> None:
    def config(**changes: Any) -> Any:
        given = {
            "endpoint": "http://collector:4318",
            "headers": (),
            "timeout": 10.0,
            "sample_ratio": 1.0,
            "service_name": "",
        }
        return trace_config(**{**given, **changes})

    assert config(endpoint="") is None
    assert config().endpoint == "http://collector:4318/v1/traces"
    assert config(endpoint="https://otel.example/ingest/traces").endpoint == (
        "https://otel.example/ingest/traces"
    )
    assert config(headers=("Authorization=Bearer a=b", "x-team= ml ")).headers == {
        "authorization": "Bearer a=b",
        "x-team": "ml",
    }
    assert config().service_name == "messages-playground"
    with pytest.raises(ValueError, match="PLAYGROUND_OTLP_ENDPOINT='collector:4318'"):
        config(endpoint="collector:4318")
    with pytest.raises(ValueError, match="header 2 is not name=value") as refused:
        config(headers=("a=b", "token-secret-value"))
    assert "token-secret-value" not in str(refused.value)


def test_a_fault_of_the_tracer_never_reaches_the_run(caplog: pytest.LogCaptureFixture) -> None:
    from datetime import UTC, datetime
    from uuid import uuid4

    from playground.runs import tracing
    from playground.runs.store import Begun

    config = trace_config(
        endpoint="http://127.0.0.1:9", headers=(), timeout=1.0, sample_ratio=1.0, service_name=""
    )
    assert config is not None
    tracer = OtelTracer(config)
    try:
        broken = Begun(
            run_id=uuid4(),
            conversation_id=uuid4(),
            profile="simulator",
            body=None,  # type: ignore[arg-type]  # what no run has: the tracer trips on it
            started_at=datetime.now(UTC),
            started_frame="",
        )
        trace = tracer.run(broken, kind="interactive")
        assert type(trace) is tracing.RunTrace  # the no-op one: the run goes on untraced
        assert "tracing a run failed" in caplog.text
    finally:
        tracer.provider.shutdown()
