"""The simulator's HTTP endpoints: ``POST /simulator/v1/messages``, a Messages API server,
``POST /simulator/v1/messages/count_tokens``, Anthropic's token count (``inputs``), ``GET
/simulator/v1/models``, its model list (``model_list``), and ``POST
/simulator/v1/chat/render``, FriendliAI's chat render (``chat_render``: the prompt text after a
stand-in chat template).

Rule: this is the only simulator module that touches Django or reads settings. In login mode
it answers only a logged-in user or the app's own upstream client (which sends
``PLAYGROUND_SIMULATOR_KEY``, derived from ``SECRET_KEY``; no browser ever sees it): anyone else
gets a 401. It decodes the body (``json_input``: no lone surrogate, no deep nesting), reads it
(``inputs``: the playground's own shapes and rules, refused in the same words), asks the
pure script for a plan, and sends it: one JSON object, or an event stream paced by
``streaming.stream_plan``. Served, the stream's body goes out past Django (``streaming``: the
view hands its plan to ``StreamHandoff`` in the ASGI scope); under Django's test client it
streams through Django. The stream generator never catches ``CancelledError`` for good: when a
client goes away the stream is cancelled, and the cancellation must reach the server so the
stall or the pacing sleep ends at once.
"""

from __future__ import annotations

import asyncio
import hmac
import uuid

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse, StreamingHttpResponse
from django.views.decorators.csrf import csrf_exempt

from playground.protocol.chat_render import ChatRenderBody
from playground.protocol.errors import RequestValidationError
from playground.protocol.json_input import read_json_bytes
from playground.protocol.requests import VARIANT_HEADER
from playground.protocol.shape import parse
from playground.simulator.attempts import ATTEMPTS
from playground.simulator.chat_render import render_prompt
from playground.simulator.inputs import count_input_tokens, read_request
from playground.simulator.model_list import model_page
from playground.simulator.plan import HttpError, error_body
from playground.simulator.script import build_plan
from playground.simulator.streaming import HANDOFF, Handoff, empty_stream, stream_plan
from playground.upstream.profiles import SIMULATOR_MODELS

#: Reason phrases Django does not know (it would say "Unknown Status Code").
REASONS = {529: "Overloaded"}


def _error(
    *, status: int, error_type: str, message: str, request_id: str, **headers: str
) -> JsonResponse:
    body = error_body(error_type=error_type, message=message, request_id=request_id)
    response = JsonResponse(body, status=status)
    response["request-id"] = request_id
    for name, value in headers.items():
        response[name.replace("_", "-")] = value
    return response


def _from_plan_error(error: HttpError, request_id: str) -> JsonResponse:
    response = JsonResponse(error.body, status=error.status)
    if error.status in REASONS:
        response.reason_phrase = REASONS[error.status]
    response["request-id"] = request_id
    for name, value in error.headers:
        response[name] = value
    return response


def _sent_key(request: HttpRequest) -> str:
    bearer = request.headers.get("authorization", "")
    if bearer[:7].lower() == "bearer ":
        return bearer[7:].strip()
    return request.headers.get("x-api-key", "")


async def _allowed(request: HttpRequest) -> bool:
    """Local mode: anyone (the server is bound to 127.0.0.1). Login mode: the app's key, or a
    logged-in user's session (a page or a snippet run from the owner's browser session)."""
    if not settings.PLAYGROUND_REQUIRE_LOGIN:
        return True
    sent = _sent_key(request)
    if sent and hmac.compare_digest(sent.encode(), settings.PLAYGROUND_SIMULATOR_KEY.encode()):
        return True
    user = await request.auser()
    return bool(user.is_authenticated)


async def _refused_at_door(
    request: HttpRequest, *, method: str, request_id: str
) -> JsonResponse | None:
    """401 for a caller login mode does not let in, 405 for another method; else None."""
    if not await _allowed(request):
        return _error(
            status=401,
            error_type="authentication_error",
            message="log in first: in login mode the simulator answers logged-in users only",
            request_id=request_id,
        )
    if request.method != method:
        return _error(
            status=405,
            error_type="invalid_request_error",
            message=f"method {request.method} not allowed; use {method}",
            request_id=request_id,
            Allow=method,
        )
    return None


def _invalid(exc: RequestValidationError, request_id: str) -> JsonResponse:
    return _error(
        status=400, error_type="invalid_request_error", message=exc.message, request_id=request_id
    )


@csrf_exempt
async def models(request: HttpRequest) -> HttpResponse:
    """The model list, as Anthropic's ``GET /v1/models`` answers (the same login rule)."""
    request_id = "req_sim_" + uuid.uuid4().hex[:24]
    refused = await _refused_at_door(request, method="GET", request_id=request_id)
    if refused is not None:
        return refused
    try:
        page = model_page(models=SIMULATOR_MODELS, query=request.GET.dict())
    except RequestValidationError as exc:
        return _invalid(exc, request_id)
    response = JsonResponse(page)
    response["request-id"] = request_id
    return response


@csrf_exempt
async def chat_render(request: HttpRequest) -> HttpResponse:
    """``{model, messages, tools?, chat_template_kwargs?}`` answered ``{"text": prompt}``, as
    FriendliAI's chat render answers (the same login rule and refusals as the other doors)."""
    request_id = "req_sim_" + uuid.uuid4().hex[:24]
    refused = await _refused_at_door(request, method="POST", request_id=request_id)
    if refused is not None:
        return refused
    try:
        body = parse(ChatRenderBody, read_json_bytes(request.body))
    except RequestValidationError as exc:
        return _invalid(exc, request_id)
    response = JsonResponse({"text": render_prompt(body)})
    response["request-id"] = request_id
    return response


@csrf_exempt
async def count_tokens(request: HttpRequest) -> HttpResponse:
    """Anthropic's ``POST /v1/messages/count_tokens``: ``{"input_tokens": n}``, the number a
    run of the same request reports in its usage (``inputs.count_input_tokens``)."""
    request_id = "req_sim_" + uuid.uuid4().hex[:24]
    refused = await _refused_at_door(request, method="POST", request_id=request_id)
    if refused is not None:
        return refused
    try:
        tokens = count_input_tokens(read_json_bytes(request.body))
    except RequestValidationError as exc:
        return _invalid(exc, request_id)
    response = JsonResponse({"input_tokens": tokens})
    response["request-id"] = request_id
    return response


def _variant(request: HttpRequest) -> int:
    """The attempt the playground names (``requests.VARIANT_HEADER``); 0 if none or unread."""
    raw = request.headers.get(VARIANT_HEADER, "")
    return int(raw) if raw.isdigit() and len(raw) <= 6 else 0


@csrf_exempt
async def messages(request: HttpRequest) -> HttpResponse:
    request_id = "req_sim_" + uuid.uuid4().hex[:24]
    refused = await _refused_at_door(request, method="POST", request_id=request_id)
    if refused is not None:
        return refused
    try:
        # The playground's reader and shapes: the same refusal, in the same words, as at
        # every other door (Anthropic's error body has no field, so the message names it).
        sim = read_request(read_json_bytes(request.body), variant=_variant(request))
    except RequestValidationError as exc:
        return _invalid(exc, request_id)
    attempt = ATTEMPTS.next(sim.fingerprint) if sim.directives.times else 1
    # A long answer takes a moment to lay out; a thread keeps every other stream moving.
    plan = await asyncio.to_thread(
        build_plan,
        sim,
        request_id=request_id,
        rate=settings.PLAYGROUND_SIMULATOR_RATE,
        attempt=attempt,
    )
    if plan.error is not None:
        return _from_plan_error(plan.error, request_id)
    if not sim.stream:
        if plan.message_stall:
            await asyncio.sleep(plan.message_stall)
        if plan.message_error is not None:
            return _from_plan_error(plan.message_error, request_id)
        response: HttpResponse = JsonResponse(plan.message)
    else:
        # Under ``StreamHandoff`` (served) the stream's body is sent there, past Django.
        handoff: Handoff | None = getattr(request, "scope", {}).get(HANDOFF)
        if handoff is not None:
            handoff.plan = plan
            content = empty_stream()
        else:
            content = stream_plan(plan)
        response = StreamingHttpResponse(content, content_type="text/event-stream")
        response["Cache-Control"] = "no-cache"
    response["request-id"] = request_id
    return response
