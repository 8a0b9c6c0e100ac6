"""The simulator's HTTP endpoint: ``POST /simulator/v1/messages``, a Messages API server.

Rule: this is the only simulator module that touches Django or reads settings. It decodes the
body, asks the pure script for a plan, and sends it: one JSON object, or an event stream paced
with ``asyncio.sleep``. The stream generator never catches ``CancelledError`` for good: when a
client goes away Django cancels it, and the cancellation must reach Daphne so the stall or the
pacing sleep ends at once.
"""

from __future__ import annotations

import asyncio
import json
import logging
import uuid
from collections.abc import AsyncIterator

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse, StreamingHttpResponse
from django.views.decorators.csrf import csrf_exempt

from playground.protocol.errors import RequestValidationError
from playground.simulator.attempts import ATTEMPTS
from playground.simulator.inputs import read_request
from playground.simulator.plan import HttpError, Plan, Stall, error_body
from playground.simulator.script import build_plan

logger = logging.getLogger("playground.simulator")

#: At full speed, events are sent in batches of about this many bytes rather than one by one.
BATCH_BYTES = 16 * 1024
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


async def stream_plan(plan: Plan) -> AsyncIterator[bytes]:
    """Send each step after its delay; at rate 0, batch events instead of one write each."""
    batch: list[str] = []
    size = 0
    try:
        for step in plan.steps:
            delay = plan.delay(step)
            if delay > 0:
                if batch:
                    yield "".join(batch).encode()
                    batch, size = [], 0
                await asyncio.sleep(delay)
            if isinstance(step, Stall):
                continue
            text = step.encode()
            batch.append(text)
            size += len(text)
            if plan.rate > 0 or size >= BATCH_BYTES:
                yield "".join(batch).encode()
                batch, size = [], 0
        if batch:
            yield "".join(batch).encode()
    except asyncio.CancelledError:
        logger.info("simulator stream %s cancelled: the client went away", plan.request_id)
        raise


@csrf_exempt
async def messages(request: HttpRequest) -> HttpResponse:
    request_id = "req_sim_" + uuid.uuid4().hex[:24]
    if request.method != "POST":
        return _error(
            status=405,
            error_type="invalid_request_error",
            message=f"method {request.method} not allowed; use POST",
            request_id=request_id,
            Allow="POST",
        )
    try:
        body = json.loads(request.body)
    except (ValueError, UnicodeDecodeError):
        return _error(
            status=400,
            error_type="invalid_request_error",
            message="the request body is not valid JSON",
            request_id=request_id,
        )
    try:
        sim = read_request(body)
    except RequestValidationError as exc:
        return _error(
            status=400,
            error_type="invalid_request_error",
            message=exc.message,
            request_id=request_id,
        )
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
        response = StreamingHttpResponse(stream_plan(plan), content_type="text/event-stream")
        response["Cache-Control"] = "no-cache"
    response["request-id"] = request_id
    return response
