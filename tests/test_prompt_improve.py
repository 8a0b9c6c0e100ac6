"""Improve's request and answer: the version goes out in the tagged shape, the built-in
simulator answers it as a careful editor (deterministic, placeholders kept, settling once the
prompt says everything), and the proposal is read from the last tagged block."""

from __future__ import annotations

import json
from dataclasses import replace
from http.server import BaseHTTPRequestHandler
from typing import Any

import pytest
from channels.db import database_sync_to_async

from playground.prompts import services
from playground.prompts.definition import check_definition
from playground.prompts.improve import improve_request, read_proposal
from playground.protocol.errors import UpstreamMalformed
from playground.simulator.revision import revision_answer
from playground.upstream.client import close_clients
from playground.web.ownership import local_user
from tests.loopback_http import read_json_post, serve_http

TOOL = {"name": "get_weather", "input_schema": {"type": "object"}}


def definition(system: str, **more: object) -> dict:
    return check_definition({"system": system, **more})


def test_the_simulator_revises_a_prompt_keeping_its_text_and_placeholders() -> None:
    asked = improve_request(
        definition(
            "Help travellers in {{city}}.",
            tools=[TOOL],
            variables={"city": "Paris"},
            messages=[{"role": "user", "content": "Plan {{city}}"}],
        ),
        name="travel",
        number=2,
    )
    assert "<example_turns>" in asked and "<tools>get_weather</tools>" in asked
    answer = revision_answer(asked)
    assert answer is not None and answer == revision_answer(asked)  # deterministic
    system, notes = read_proposal(answer)
    assert system.startswith(
        "You are a careful, helpful assistant.\n\nHelp travellers in {{city}}."
    )
    assert "ask one clarifying question" in system and "get_weather" in system
    assert notes.splitlines()[1:] == [
        "- Named the assistant's role.",
        "- Said what a good answer looks like (form and length).",
        "- Said what to do with an ambiguous request.",
        "- Said what to do when the answer is not known.",
        "- Said when to use the tools.",
    ]
    # Improving the improvement settles: nothing is left to add.
    again = revision_answer(improve_request(definition(system, tools=[TOOL]), name="t", number=3))
    assert again is not None and read_proposal(again)[0] == system


def test_an_ordinary_prompt_is_not_taken_for_a_revision_request() -> None:
    assert revision_answer("Tell me about <system_prompt>x</system_prompt> tags") is None


def test_an_answer_without_the_tagged_block_is_refused_quoting_its_start() -> None:
    with pytest.raises(UpstreamMalformed, match="it began: 'Sure! Here is"):
        read_proposal("Sure! Here is a better prompt: be nice.")
    tagged = "<revised_system_prompt>{}</revised_system_prompt>"
    text = tagged.format("\nfirst\n") + " then " + tagged.format("last")
    assert read_proposal(text) == ("last", "")


@pytest.mark.django_db(transaction=True)
async def test_improve_through_the_api_proposes_on_the_simulator_and_names_a_failure(
    relay: Any, async_client: Any
) -> None:
    await database_sync_to_async(services.create_prompt)(
        owner=await database_sync_to_async(local_user)(),
        name="travel",
        definition={"system": "Help travellers in {{city}}.", "variables": {"city": "Rome"}},
    )
    asked = {"version": 1, "profile": "simulator", "model": "simulator-1"}
    answer = await async_client.post(
        "/api/prompts/travel/improve/", data=json.dumps(asked), content_type="application/json"
    )
    assert answer.status_code == 200, answer.content
    proposal = answer.json()
    assert proposal["changed"] and proposal["base"] == 1
    assert proposal["proposal"]["system"].startswith("You are a careful, helpful assistant.")
    assert proposal["proposal"]["variables"] == {"city": "Rome"}  # only the system prompt moves
    assert proposal["text"]["system"]["changed"] and "Named the" in proposal["notes"]
    # The upstream's refusal reaches the page as the error tree's, and nothing is saved.
    await database_sync_to_async(services.save_version)(
        prompt=await database_sync_to_async(services.get_prompt)(
            owner=await database_sync_to_async(local_user)(), name="travel"
        ),
        definition={"system": "Fail [[sim: status=529]]"},
        author=None,
    )
    failed = await async_client.post(
        "/api/prompts/travel/improve/",
        data=json.dumps({**asked, "version": 2}),
        content_type="application/json",
    )
    assert failed.status_code == 502 and failed.json()["error"]["code"] == "upstream_http_status"
    unknown = await async_client.post(
        "/api/prompts/travel/improve/",
        data=json.dumps({**asked, "profile": "nowhere"}),
        content_type="application/json",
    )
    assert unknown.status_code == 400 and unknown.json()["error"]["field"] == "profile"


def _sse(text: str) -> bytes:
    """A whole Messages stream answering ``text``, as an upstream sends it."""
    events = [
        ("message_start", {"type": "message_start", "message": {
            "id": "msg_stub", "type": "message", "role": "assistant", "model": "stub-1",
            "content": [], "stop_reason": None, "stop_sequence": None,
            "usage": {"input_tokens": 10, "output_tokens": 0}}}),
        ("content_block_start", {"type": "content_block_start", "index": 0,
                                 "content_block": {"type": "text", "text": ""}}),
        ("content_block_delta", {"type": "content_block_delta", "index": 0,
                                 "delta": {"type": "text_delta", "text": text}}),
        ("content_block_stop", {"type": "content_block_stop", "index": 0}),
        ("message_delta", {"type": "message_delta", "delta": {"stop_reason": "end_turn",
                           "stop_sequence": None}, "usage": {"output_tokens": 5}}),
        ("message_stop", {"type": "message_stop"}),
    ]  # fmt: skip
    return "".join(f"event: {name}\ndata: {json.dumps(data)}\n\n" for name, data in events).encode()


@pytest.mark.django_db(transaction=True)
async def test_the_meta_prompt_the_person_edited_is_the_requests_system_prompt(
    settings: Any, async_client: Any
) -> None:
    sent: list[dict[str, Any]] = []
    answer = _sse("- Shorter.\n<revised_system_prompt>Be brief.</revised_system_prompt>")

    class Upstream(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 (http.server's name)
            sent.append(read_json_post(self)["body"])
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Content-Length", str(len(answer)))
            self.end_headers()
            self.wfile.write(answer)

        def log_message(self, *args: Any) -> None:
            pass

    await database_sync_to_async(services.create_prompt)(
        owner=await database_sync_to_async(local_user)(),
        name="travel",
        definition={"system": "Help travellers in {{city}}."},
    )
    meta = "You edit prompts for a travel agency. Keep them under 20 words."
    with serve_http(Upstream) as url:
        # Its own name: a client is kept per profile name and loop.
        editor = replace(settings.PLAYGROUND_PROFILES["simulator"], name="editor", base_url=url)
        settings.PLAYGROUND_PROFILES = {**settings.PLAYGROUND_PROFILES, "editor": editor}
        asked = {"version": 1, "profile": "editor", "model": "stub-1", "meta_prompt": meta}
        proposed = await async_client.post(
            "/api/prompts/travel/improve/", data=json.dumps(asked), content_type="application/json"
        )
        await close_clients()
    assert proposed.status_code == 200, proposed.content
    assert proposed.json()["proposal"]["system"] == "Be brief."
    assert [body["system"] for body in sent] == [meta]
    assert "<system_prompt>\nHelp travellers in {{city}}.\n</system_prompt>" in json.dumps(
        sent[0]["messages"]
    ).replace("\\n", "\n")
