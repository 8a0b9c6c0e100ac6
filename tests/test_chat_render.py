"""The chat render shapes (``protocol.chat_render``): a Messages body translated to FriendliAI's
chat render body, the answer read; the simulator's template (``simulator.chat_render``) and its
door, ``POST /simulator/v1/chat/render``, over real HTTP."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
from django.conf import settings as django_settings
from django.test import AsyncClient

from playground.protocol.adapters.base import RENDER_PATH
from playground.protocol.chat_render import (
    ChatRenderBody,
    read_render_answer,
    render_request,
)
from playground.protocol.errors import RequestValidationError
from playground.protocol.shape import parse
from playground.simulator.chat_render import render_prompt
from playground.upstream.profiles import profiles_from_environ

TIMEOUT = httpx.Timeout(30.0)
PNG = {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}


def loop_request() -> dict[str, Any]:
    """A finished tool loop with thinking: every block kind that has a chat form."""
    return {
        "model": "endpoint-1",
        "max_tokens": 256,
        "system": [{"type": "text", "text": "Be brief."}, {"type": "text", "text": "Be kind."}],
        "tools": [{"name": "get_weather", "input_schema": {"type": "object"}}],
        "messages": [
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "Weather here?"},
                    {"type": "image", "source": PNG},
                ],
            },
            {
                "role": "assistant",
                "content": [
                    {"type": "thinking", "thinking": "Call it.", "signature": "sig"},
                    {"type": "tool_use", "id": "t1", "name": "get_weather", "input": {"c": "é"}},
                    {"type": "tool_use", "id": "t2", "name": "get_weather", "input": {}},
                ],
            },
            {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": "t1", "content": "18C"},
                    {
                        "type": "tool_result",
                        "tool_use_id": "t2",
                        "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}],
                        "is_error": True,
                    },
                    {"type": "text", "text": "And tomorrow?"},
                ],
            },
        ],
    }


def test_a_tool_loop_translates_to_the_chat_shape_in_order() -> None:
    rendered = render_request(loop_request())

    assert rendered.notes == ()
    assert rendered.body == {
        "model": "endpoint-1",
        "messages": [
            {"role": "system", "content": "Be brief.\n\nBe kind."},
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "Weather here?"},
                    {
                        "type": "image_url",
                        "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="},
                    },
                ],
            },
            {
                "role": "assistant",
                "content": None,
                "reasoning_content": "Call it.",
                "tool_calls": [
                    {
                        "id": "t1",
                        "type": "function",
                        "function": {"name": "get_weather", "arguments": '{"c": "é"}'},
                    },
                    {
                        "id": "t2",
                        "type": "function",
                        "function": {"name": "get_weather", "arguments": "{}"},
                    },
                ],
            },
            {"role": "tool", "tool_call_id": "t1", "content": "18C"},
            {"role": "tool", "tool_call_id": "t2", "content": "a\nb"},
            {"role": "user", "content": "And tomorrow?"},
        ],
        "tools": [
            {
                "type": "function",
                "function": {"name": "get_weather", "parameters": {"type": "object"}},
            }
        ],
    }
    # What we build is what a chat render door reads (the simulator's, strictly).
    parse(ChatRenderBody, rendered.body)


def test_what_has_no_chat_form_is_left_out_and_said() -> None:
    request = loop_request()
    request["tools"].append({"type": "web_search_20250305", "name": "web_search"})
    request["messages"][1]["content"].insert(0, {"type": "redacted_thinking", "data": "x"})
    request["messages"][2]["content"][1]["content"].append({"type": "image", "source": PNG})

    rendered = render_request(request)

    assert rendered.notes == (
        "a redacted_thinking block has no chat-completions form and is not in the rendered prompt",
        "a tool result's image block has no chat-completions form and is not in the rendered "
        "prompt",
        "the server tool 'web_search' has no chat-completions form and is not in the rendered "
        "prompt",
    )
    assert [tool["function"]["name"] for tool in rendered.body["tools"]] == ["get_weather"]


@pytest.mark.parametrize(
    "answer",
    [
        pytest.param([], id="a-list"),
        pytest.param({"prompt": "x"}, id="no-text"),
        pytest.param({"text": 3}, id="text-not-a-string"),
    ],
)
def test_an_answer_without_text_is_refused(answer: Any) -> None:
    with pytest.raises(ValueError, match='expected a JSON object {"text": string}'):
        read_render_answer(answer)


def test_an_answer_may_carry_more_than_text() -> None:
    assert read_render_answer({"text": "<s>", "tokens": 1}) == "<s>"


def test_the_simulators_template_renders_every_turn_then_opens_the_assistants() -> None:
    body = parse(ChatRenderBody, render_request(loop_request()).body)

    assert render_prompt(body) == (
        "<|im_start|>system\nBe brief.\n\nBe kind.\n\n# Tools\n"
        "You may call one or more functions. Their signatures are inside <tools></tools>:\n"
        '<tools>\n{"name": "get_weather", "parameters": {"type": "object"}}\n</tools>\n'
        'For each call, answer <tool_call>{"name": …, "arguments": …}</tool_call>.<|im_end|>\n'
        "<|im_start|>user\nWeather here?\n<image><|im_end|>\n"
        "<|im_start|>assistant\n<think>\nCall it.\n</think>\n"
        '<tool_call>\n{"name": "get_weather", "arguments": {"c": "é"}}\n</tool_call>\n'
        '<tool_call>\n{"name": "get_weather", "arguments": {}}\n</tool_call><|im_end|>\n'
        '<|im_start|>tool\n<tool_response id="t1">\n18C\n</tool_response><|im_end|>\n'
        '<|im_start|>tool\n<tool_response id="t2">\na\nb\n</tool_response><|im_end|>\n'
        "<|im_start|>user\nAnd tomorrow?<|im_end|>\n"
        "<|im_start|>assistant\n"
    )


def test_the_render_path_is_friendlis() -> None:
    profiles = profiles_from_environ(
        {"FRIENDLI_TOKEN": "flp_x"}, simulator_url="http://127.0.0.1:8000/simulator"
    )

    assert RENDER_PATH == "/v1/chat/render"
    assert profiles["friendli-dedicated"].side_url("render") == (
        "https://api.friendli.ai/dedicated/v1/chat/render"
    )


# --- the simulator's door, over real HTTP -----------------------------------------------------


@pytest.fixture
def render_url(live_server_proc: Any) -> str:
    return live_server_proc.simulator_url + RENDER_PATH


def test_the_simulator_renders_over_http(render_url: str) -> None:
    body = render_request(loop_request()).body

    answer = httpx.post(render_url, json=body, timeout=TIMEOUT)

    assert answer.status_code == 200
    assert answer.headers["request-id"].startswith("req_sim_")
    assert answer.json() == {"text": render_prompt(parse(ChatRenderBody, body))}


@pytest.mark.parametrize(
    ("body", "words"),
    [
        pytest.param({"messages": []}, "model", id="no-model"),
        pytest.param(
            {"model": "m", "messages": [{"role": "robot", "content": "x"}]},
            "messages[0].role",
            id="unknown-role",
        ),
        pytest.param({"model": "m", "messages": [], "stream": True}, "stream", id="unknown-field"),
    ],
)
def test_the_simulator_refuses_a_bad_body_in_its_error_shape(
    render_url: str, body: dict[str, Any], words: str
) -> None:
    answer = httpx.post(render_url, json=body, timeout=TIMEOUT)

    assert answer.status_code == 400
    error = answer.json()["error"]
    assert error["type"] == "invalid_request_error"
    assert words in error["message"]


def test_the_simulator_renders_with_post_only(render_url: str) -> None:
    answer = httpx.get(render_url, timeout=TIMEOUT)

    assert (answer.status_code, answer.headers["allow"]) == (405, "POST")


@pytest.mark.django_db
async def test_in_login_mode_the_simulator_renders_for_the_apps_key_only(settings: Any) -> None:
    settings.PLAYGROUND_REQUIRE_LOGIN = True
    body = json.dumps({"model": "m", "messages": [{"role": "user", "content": "Hi"}]})
    url = "/simulator" + RENDER_PATH

    anonymous = await AsyncClient().post(url, data=body, content_type="application/json")
    keyed = await AsyncClient().post(
        url,
        data=body,
        content_type="application/json",
        headers={"x-api-key": django_settings.PLAYGROUND_SIMULATOR_KEY},
    )

    assert anonymous.status_code == 401
    assert keyed.json() == {"text": "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n"}


def test_a_refusal_names_the_field() -> None:
    with pytest.raises(RequestValidationError) as caught:
        parse(ChatRenderBody, {"model": "m", "messages": [{"role": "tool", "content": 1}]})

    assert caught.value.field == "messages[0].content"
