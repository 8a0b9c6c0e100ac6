"""OpenTelemetry traces (the ``[otel]`` extra), exported over OTLP/HTTP: a span per run, per
upstream call, per MCP tool call and per grid cell, linked.

Rule: imported only when ``PLAYGROUND_OTLP_ENDPOINT`` is set (the app's ``ready`` calls
:func:`install`); otherwise nothing imports OpenTelemetry and the run path's tracer
(``runs.tracing``) does nothing. The spans:

- ``grid cell`` (``playground.grid.cell_id``), from the cell leaving the queue to its run's
  end: the parent of its run's span;
- ``run`` (its id, conversation, kind, profile, model, a compare's group and column; at its end
  its status, stop reason, error code, times, tokens and cost), from its start write to its end
  write; a root unless a grid's cell started it;
- ``chat <model>`` (kind CLIENT, the GenAI conventions' ``gen_ai.*``), the run's upstream call:
  a ``retry`` event per retry while opening, the HTTP status, attempts and request id, a
  ``first token`` event, the answer's id, stop reason and usage;
- ``chat <model>`` (kind CLIENT) of an upstream call that is no run (a grid's judge: its kind
  ``judge``), the child of its grid cell's span when a cell's scoring asked for it;
- ``tools/call <tool>`` (kind CLIENT), an MCP tool call of a conversation, timed by the call
  itself (recorded as it is stored); the child of the run whose answer asked for it when that
  run ran in this process, else a root (``gen_ai.tool.call.id`` finds it).

Never message text or keys: attributes are ids, names (a profile, a model, a server, a tool),
settings' numbers, statuses and codes, counts and times. An error's message is never kept (it
may quote an upstream's body): its code is. A fault here is logged, never raised into a run.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator
from datetime import datetime
from typing import Any, ParamSpec
from urllib.parse import urlsplit

from django.conf import settings
from opentelemetry import context as otel_context
from opentelemetry import trace
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, SpanExporter
from opentelemetry.sdk.trace.sampling import ParentBased, TraceIdRatioBased
from opentelemetry.trace import NonRecordingSpan, Span, SpanContext, SpanKind, Status, StatusCode

from playground.mcp import records
from playground.observability.trace_config import TraceConfig
from playground.protocol.accumulate import MessageAccumulator
from playground.protocol.errors import PlaygroundError
from playground.runs import tracing
from playground.runs.lease import THIS_PROCESS
from playground.runs.store import Begun, Outcome
from playground.upstream.retry import RetryNotice
from playground.usage import ledger
from playground.usage.prices import NANOS

__all__ = ["OtelTracer", "install", "uninstall"]

logger = logging.getLogger(__name__)

#: How many answers' tool calls are remembered (their run's span, an MCP call's parent).
TOOL_CALLS_KEPT = 4096

_P = ParamSpec("_P")


def _quiet(method: Callable[_P, None]) -> Callable[_P, None]:
    """A tracer's fault is logged and goes no further: a run never fails for its trace."""

    @functools.wraps(method)
    def guarded(*args: _P.args, **kwargs: _P.kwargs) -> None:
        try:
            method(*args, **kwargs)
        except Exception:
            logger.exception("tracing %s failed", method.__qualname__)

    return guarded


def _ns(moment: datetime) -> int:
    return int(moment.timestamp() * 1_000_000_000)


def _error_code(error: BaseException) -> str:
    """What a span says of a failure: the error tree's code, else the exception's type."""
    if isinstance(error, PlaygroundError):
        return error.code
    return type(error).__name__


def _usage_attributes(usage: Any) -> dict[str, int]:
    if not isinstance(usage, dict):
        return {}
    names = {
        "input_tokens": "gen_ai.usage.input_tokens",
        "output_tokens": "gen_ai.usage.output_tokens",
        "cache_read_input_tokens": "gen_ai.usage.cache_read.input_tokens",
        "cache_creation_input_tokens": "gen_ai.usage.cache_creation.input_tokens",
    }
    return {
        attribute: value
        for key, attribute in names.items()
        if isinstance(value := usage.get(key), int) and not isinstance(value, bool)
    }


class _UpstreamSpan(tracing.UpstreamTrace):
    def __init__(self, run: _RunSpan, span: Span) -> None:
        self.run = run
        self.span = span

    @_quiet
    def retrying(self, notice: RetryNotice) -> None:
        self.span.add_event(
            "retry",
            {
                "playground.retry.attempt": notice.attempt,
                "playground.retry.attempts": notice.attempts,
                "playground.retry.in_ms": round(notice.retry_in * 1000),
                "playground.retry.reason": notice.reason,  # an error code or "HTTP 529"
            },
        )

    @_quiet
    def opened(self, *, status: int, attempts: int, request_id: str | None) -> None:
        self.span.set_attribute("http.response.status_code", status)
        self.span.set_attribute("playground.upstream.attempts", attempts)
        if request_id:
            self.span.set_attribute("playground.upstream.request_id", request_id)

    @_quiet
    def closed(
        self,
        *,
        accumulator: MessageAccumulator | None,
        first_token_ms: int | None,
        error: BaseException | None,
    ) -> None:
        span = self.span
        try:
            if first_token_ms is not None:
                at = self.run.started_ns + first_token_ms * 1_000_000
                span.add_event("first token", {"playground.first_token_ms": first_token_ms}, at)
            message = accumulator.message if accumulator is not None else None
            if message is not None:
                self.run.answered(message)
                span.set_attributes(_usage_attributes(message.get("usage")))
                if isinstance(message.get("id"), str):
                    span.set_attribute("gen_ai.response.id", message["id"])
                if isinstance(message.get("model"), str):
                    span.set_attribute("gen_ai.response.model", message["model"])
                if isinstance(message.get("stop_reason"), str):
                    span.set_attribute("gen_ai.response.finish_reasons", (message["stop_reason"],))
            if isinstance(error, asyncio.CancelledError):
                span.set_attribute("playground.cancelled", True)  # a stop or a shutdown
            elif error is not None:
                code = _error_code(error)
                span.set_attribute("error.type", code)
                status = getattr(error, "status", None)
                if isinstance(status, int):
                    span.set_attribute("http.response.status_code", status)
                attempts = getattr(error, "attempts", None)
                if isinstance(attempts, int) and attempts:
                    span.set_attribute("playground.upstream.attempts", attempts)
                span.set_status(Status(StatusCode.ERROR, code))
        finally:
            span.end()


class _RunSpan(tracing.RunTrace):
    def __init__(self, tracer: OtelTracer, span: Span, begun: Begun) -> None:
        self.tracer = tracer
        self.span = span
        self.begun = begun
        self.started_ns = _ns(begun.started_at)

    def upstream(self) -> tracing.UpstreamTrace:
        try:
            return self._upstream()
        except Exception:
            logger.exception("tracing an upstream call failed")
            return super().upstream()

    def _upstream(self) -> tracing.UpstreamTrace:
        body = self.begun.body
        attributes: dict[str, Any] = {
            "gen_ai.operation.name": "chat",
            "gen_ai.request.model": str(body.get("model", "")),
            "playground.profile": self.begun.profile,
        }
        if isinstance(body.get("max_tokens"), int):
            attributes["gen_ai.request.max_tokens"] = body["max_tokens"]
        profile = settings.PLAYGROUND_PROFILES.get(self.begun.profile)
        if profile is not None:
            where = urlsplit(profile.messages_url)  # host and port only: never a URL's user part
            attributes["server.address"] = where.hostname or ""
            if where.port:
                attributes["server.port"] = where.port
            attributes["gen_ai.provider.name"] = profile.kind
        span = self.tracer.spans.start_span(
            f"chat {attributes['gen_ai.request.model']}".strip(),
            context=trace.set_span_in_context(self.span),
            kind=SpanKind.CLIENT,
            attributes=attributes,
        )
        return _UpstreamSpan(self, span)

    def answered(self, message: dict[str, Any]) -> None:
        """The answer's tool calls: an MCP call made for one is this run's child."""
        for block in message.get("content") or ():
            if isinstance(block, dict) and block.get("type") == "tool_use":
                call_id = block.get("id")
                if isinstance(call_id, str):
                    self.tracer.remember_call(call_id, self.span.get_span_context())

    @_quiet
    def ended(self, *, outcome: Outcome, message: dict[str, Any] | None) -> None:
        span = self.span
        try:
            self.tracer.live.pop(self.begun.run_id, None)
            attributes: dict[str, Any] = {
                "playground.run.status": str(outcome.status),
                "playground.run.duration_ms": outcome.duration_ms,
                "playground.run.attempts": outcome.attempts,
            }
            if outcome.first_token_ms is not None:
                attributes["playground.run.first_token_ms"] = outcome.first_token_ms
            if message is not None:
                if isinstance(message.get("stop_reason"), str):
                    attributes["playground.run.stop_reason"] = message["stop_reason"]
                attributes.update(_usage_attributes(message.get("usage")))
            if outcome.error:
                code = str(outcome.error.get("code", ""))
                attributes["error.type"] = code
                span.set_status(Status(StatusCode.ERROR, code))
            span.set_attributes(attributes)
        finally:
            span.end()


class _CallSpan(tracing.CallTrace):
    def __init__(self, span: Span) -> None:
        self.span = span

    @_quiet
    def ended(
        self,
        *,
        status: str,
        started_at: datetime,
        first_token_ms: int | None,
        message: dict[str, Any] | None,
        error: dict[str, Any] | None,
        attempts: int,
        request_id: str | None,
    ) -> None:
        span = self.span
        try:
            attributes: dict[str, Any] = {
                "playground.run.status": status,
                "playground.upstream.attempts": attempts,
            }
            if request_id:
                attributes["playground.upstream.request_id"] = request_id
            if first_token_ms is not None:
                at = _ns(started_at) + first_token_ms * 1_000_000
                span.add_event("first token", {"playground.first_token_ms": first_token_ms}, at)
            if message is not None:
                attributes.update(_usage_attributes(message.get("usage")))
                if isinstance(message.get("id"), str):
                    attributes["gen_ai.response.id"] = message["id"]
                if isinstance(message.get("stop_reason"), str):
                    attributes["gen_ai.response.finish_reasons"] = (message["stop_reason"],)
            if error:
                code = str(error.get("code", ""))
                attributes["error.type"] = code
                span.set_status(Status(StatusCode.ERROR, code))
            span.set_attributes(attributes)
        finally:
            span.end()


class OtelTracer(tracing.Tracer):
    """The run path's tracer, spans made with the SDK and exported in batches."""

    def __init__(self, config: TraceConfig, *, exporter: SpanExporter | None = None) -> None:
        resource = Resource.create(
            {"service.name": config.service_name, "service.instance.id": THIS_PROCESS}
        )
        self.provider = TracerProvider(
            resource=resource, sampler=ParentBased(TraceIdRatioBased(config.sample_ratio))
        )
        self.provider.add_span_processor(
            BatchSpanProcessor(
                exporter
                or OTLPSpanExporter(
                    endpoint=config.endpoint, headers=config.headers, timeout=config.timeout
                )
            )
        )
        self.spans = self.provider.get_tracer("playground")
        #: The spans of the runs live in this process, by run id (their end write adds cost).
        self.live: dict[Any, Span] = {}
        self._calls: OrderedDict[str, SpanContext] = OrderedDict()

    # -- the run path (runs.tracing) ----------------------------------------------------------

    def run(self, begun: Begun, *, kind: str) -> tracing.RunTrace:
        try:
            return self._run(begun, kind=kind)
        except Exception:
            logger.exception("tracing a run failed")
            return super().run(begun, kind=kind)

    def _run(self, begun: Begun, *, kind: str) -> tracing.RunTrace:
        attributes: dict[str, Any] = {
            "playground.run.id": str(begun.run_id),
            "playground.conversation.id": str(begun.conversation_id),
            "playground.run.kind": kind,
            "playground.profile": begun.profile,
            "gen_ai.request.model": str(begun.body.get("model", "")),
        }
        if begun.compare_group is not None:
            attributes["playground.compare.group"] = begun.compare_group
            attributes["playground.compare.column"] = begun.column
        # Its parent is whatever span is current in the run's task (a grid's cell), if any.
        span = self.spans.start_span("run", start_time=_ns(begun.started_at), attributes=attributes)
        self.live[begun.run_id] = span
        return _RunSpan(self, span, begun)

    def call(
        self, *, call_id: Any, kind: str, profile: str, body: dict[str, Any]
    ) -> tracing.CallTrace:
        try:
            model = str(body.get("model", ""))
            attributes: dict[str, Any] = {
                "playground.run.id": str(call_id),
                "playground.run.kind": kind,
                "playground.profile": profile,
                "gen_ai.operation.name": "chat",
                "gen_ai.request.model": model,
            }
            if isinstance(body.get("max_tokens"), int):
                attributes["gen_ai.request.max_tokens"] = body["max_tokens"]
            # Its parent is whatever span is current (a grid's cell), if any.
            span = self.spans.start_span(
                f"chat {model}".strip(), kind=SpanKind.CLIENT, attributes=attributes
            )
            return _CallSpan(span)
        except Exception:
            logger.exception("tracing an upstream call failed")
            return super().call(call_id=call_id, kind=kind, profile=profile, body=body)

    @contextlib.contextmanager
    def grid_cell(self, *, cell_id: str) -> Iterator[None]:
        with self.spans.start_as_current_span(
            "grid cell",
            attributes={"playground.grid.cell_id": cell_id},
            record_exception=False,
            set_status_on_exception=False,
        ) as span:
            try:
                yield
            except BaseException as error:
                if not isinstance(error, asyncio.CancelledError):
                    span.set_attribute("error.type", _error_code(error))
                    span.set_status(Status(StatusCode.ERROR, _error_code(error)))
                raise

    # -- the other packages' hooks ------------------------------------------------------------

    def remember_call(self, call_id: str, run: SpanContext) -> None:
        self._calls[call_id] = run
        self._calls.move_to_end(call_id)
        while len(self._calls) > TOOL_CALLS_KEPT:
            self._calls.popitem(last=False)

    @_quiet
    def run_ended(self, ended: ledger.Ended) -> None:
        """The end write (``usage.ledger``): the run's cost, from the price table."""
        span = self.live.get(ended.run_id)
        if span is not None and ended.cost_nanos is not None:
            span.set_attribute("playground.run.cost", ended.cost_nanos / NANOS)

    @_quiet
    def mcp_call_ended(
        self,
        *,
        server: str,
        tool: str,
        tool_use_id: str,
        outcome: str,
        error_code: str,
        elapsed_ms: float | None,
        **_: object,
    ) -> None:
        """An MCP call was stored (``mcp.records``): its span, timed by the call itself."""
        end = time.time_ns()
        start = end - int((elapsed_ms or 0) * 1_000_000)
        asked_by = self._calls.get(tool_use_id)
        parent = (
            trace.set_span_in_context(NonRecordingSpan(asked_by))
            if asked_by is not None
            else otel_context.Context()  # a root: not whatever is current in the caller
        )
        attributes: dict[str, Any] = {
            "mcp.method.name": "tools/call",
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": tool,
            "gen_ai.tool.call.id": tool_use_id,
            "playground.mcp.server": server,
            "playground.mcp.outcome": outcome,
        }
        if elapsed_ms is not None:
            attributes["playground.mcp.elapsed_ms"] = elapsed_ms
        span = self.spans.start_span(
            f"tools/call {tool}",
            context=parent,
            kind=SpanKind.CLIENT,
            start_time=start,
            attributes=attributes,
        )
        if outcome == "error":
            span.set_attribute("error.type", error_code or "error")
            span.set_status(Status(StatusCode.ERROR, error_code or "error"))
        span.end(end_time=end)

    def flush(self, timeout_seconds: float = 10.0) -> bool:
        """Export every ended span now (tests; a stop)."""
        return self.provider.force_flush(int(timeout_seconds * 1000))


def install(config: TraceConfig, *, exporter: SpanExporter | None = None) -> OtelTracer:
    """Trace from now on: the run path's tracer, the end write's and MCP calls' hooks."""
    tracer = OtelTracer(config, exporter=exporter)
    ledger.ON_END.append(tracer.run_ended)
    records.CALL_ENDED.append(tracer.mcp_call_ended)
    tracing.install(tracer)
    return tracer


def uninstall(tracer: OtelTracer) -> None:
    """Stop tracing: the hooks go, what was ended is exported, the exporter closes."""
    tracing.install(None)
    with contextlib.suppress(ValueError):
        ledger.ON_END.remove(tracer.run_ended)
    with contextlib.suppress(ValueError):
        records.CALL_ENDED.remove(tracer.mcp_call_ended)
    tracer.provider.shutdown()
