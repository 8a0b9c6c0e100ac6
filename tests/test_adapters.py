"""The adapters (``protocol/adapters``): one object per upstream wire format, found by the
registry, answering every question the code used to ask by comparing a dialect's name."""

from __future__ import annotations

import json

import pytest

from playground.protocol.adapters import (
    ANTHROPIC,
    BUILT_IN,
    COMPATIBLE,
    DIALECTS,
    FRIENDLI,
    PLAIN,
    TRANSLATING,
    Adapter,
    ErrorBody,
    Rule,
    adapter_for,
    adapters,
    dialects,
    dialects_on_messages,
    registered,
)
from playground.protocol.errors import RequestValidationError
from playground.protocol.requests import Settings, build_request
from playground.protocol.settings_table import ALL, SETTING_NAMES, SETTINGS
from playground.upstream.profiles import Profile

#: The adapters of the wires other than the Messages API's.
WIRED = tuple(adapter.name for adapter in TRANSLATING)


class _Strict(Adapter):
    name = "strict-test"
    verifies_signatures = True


def test_the_built_in_dialects_are_the_three_adapters_in_the_docs_order() -> None:
    assert DIALECTS == ("anthropic", "friendli", "compatible")
    assert tuple(adapter.name for adapter in BUILT_IN) == DIALECTS
    # Then the adapters of the other wires, each named for its wire.
    assert dialects() == (*DIALECTS, *WIRED)
    assert dialects_on_messages() == DIALECTS


@pytest.mark.parametrize("adapter", BUILT_IN, ids=lambda adapter: adapter.name)
def test_a_dialects_name_and_a_profile_find_the_same_adapter(adapter: Adapter) -> None:
    profile = Profile(
        name="p", label="P", kind="custom", base_url="http://x", auth="none", dialect=adapter.name
    )

    assert adapter_for(adapter.name) is adapter
    assert adapter_for(profile) is adapter
    assert profile.adapter is adapter
    assert adapter_for(adapter) is adapter


def test_an_unknown_dialect_is_refused_naming_the_valid_ones() -> None:
    with pytest.raises(RequestValidationError) as caught:
        adapter_for("openai")

    assert caught.value.field == "dialect"
    assert caught.value.reason == (
        f"unknown dialect 'openai' (valid: anthropic, friendli, compatible, {', '.join(WIRED)})"
    )


def test_a_registered_adapter_is_known_only_while_its_block_runs() -> None:
    adapter = _Strict()
    with registered(adapter):
        assert adapter_for("strict-test") is adapter
        assert dialects() == (*DIALECTS, *WIRED, "strict-test")
        assert adapters() == (*BUILT_IN, *TRANSLATING, adapter)
    assert dialects() == (*DIALECTS, *WIRED)
    with pytest.raises(RequestValidationError):
        adapter_for("strict-test")


def test_a_taken_name_cannot_be_registered_again() -> None:
    class Impostor(Adapter):
        name = "anthropic"

    with pytest.raises(ValueError, match="taken"), registered(Impostor()):
        pass
    assert adapter_for("anthropic") is ANTHROPIC


@pytest.mark.parametrize("adapter", [*BUILT_IN, PLAIN], ids=lambda adapter: adapter.name)
def test_every_rule_names_a_setting_of_the_table(adapter: Adapter) -> None:
    assert set(adapter.rules) <= set(SETTING_NAMES)
    # A rule every dialect shares is each built-in adapter's but where the dialect has its own.
    for item in SETTINGS:
        if adapter.name not in item.rules:
            assert adapter.rule(item.name) == item.rule(ALL)


def test_a_setting_without_a_rule_has_the_empty_rule() -> None:
    assert ANTHROPIC.rule("system") == Rule()
    assert Rule().words() == ""


@pytest.mark.parametrize(
    ("adapter", "answers"),
    [
        (ANTHROPIC, (True, "run", True, True, True, "count_tokens")),
        (FRIENDLI, (False, "refused", False, False, False, "tokenize")),
        (COMPATIBLE, (False, "left", False, False, False, "estimate")),
        (PLAIN, (False, "left", False, False, False, "estimate")),
    ],
    ids=["anthropic", "friendli", "compatible", "plain"],
)
def test_each_adapter_answers_what_its_upstream_checks_and_keeps(
    adapter: Adapter, answers: tuple[object, ...]
) -> None:
    assert (
        adapter.verifies_signatures,
        adapter.server_tools,
        adapter.thinking_limits_sampling,
        adapter.checks_final_assistant,
        adapter.has_containers,
        adapter.token_count,
    ) == answers


@pytest.mark.parametrize(
    ("adapter", "minimum", "max_tokens_required"),
    [(ANTHROPIC, 1024, True), (FRIENDLI, 1, False), (COMPATIBLE, 1, True)],
    ids=lambda value: getattr(value, "name", str(value)),
)
def test_the_ranges_that_differ_are_each_adapters_own(
    adapter: Adapter, minimum: int, max_tokens_required: bool
) -> None:
    assert adapter.rule("thinking").minimum == minimum
    assert adapter.rule("max_tokens").required is max_tokens_required


SENT = Settings(model="m", max_tokens=64)
MESSAGES = [{"role": "user", "content": "hi"}]


@pytest.mark.parametrize("adapter", BUILT_IN, ids=lambda adapter: adapter.name)
def test_the_container_goes_out_only_where_the_api_has_containers(adapter: Adapter) -> None:
    body = adapter.request_body(
        settings=SENT, messages=MESSAGES, stream=True, container="container_1"
    )

    assert ("container" in body) is adapter.has_containers
    assert body["messages"] == MESSAGES and body["messages"] is not MESSAGES
    assert body["messages"][0] is MESSAGES[0]


def test_build_request_asks_the_adapter_for_the_body() -> None:
    class Tagged(Adapter):
        name = "tagged-test"

        def request_body(self, **kwargs: object) -> dict[str, object]:
            return {"tagged": True, **super().request_body(**kwargs)}  # type: ignore[arg-type]

    with registered(Tagged()):
        body = build_request(settings=SENT, messages=MESSAGES, dialect="tagged-test")

    assert body == {
        "tagged": True,
        "model": "m",
        "max_tokens": 64,
        "messages": MESSAGES,
        "stream": True,
    }


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        pytest.param(
            b'{"type":"error","error":{"type":"overloaded_error","message":"busy"},'
            b'"request_id":"req_1"}',
            ErrorBody("overloaded_error", "busy", "req_1"),
            id="messages-shape",
        ),
        pytest.param(b'{"error":"bad model"}', ErrorBody(None, "bad model"), id="bare-string"),
        pytest.param(b'{"message":"nope"}', ErrorBody(None, "nope"), id="top-level-message"),
        pytest.param(b"<html>502</html>", ErrorBody(), id="not-json"),
        pytest.param(b"[1, 2]", ErrorBody(), id="not-an-object"),
        pytest.param(b"[" * 100_000, ErrorBody(), id="nested-too-deep"),
        pytest.param(
            json.dumps({"error": {"type": 7, "message": None}, "request_id": 3}).encode(),
            ErrorBody(),
            id="wrong-types",
        ),
    ],
)
def test_an_error_body_is_read_defensively(body: bytes, expected: ErrorBody) -> None:
    assert ANTHROPIC.error_body(body) == expected


@pytest.mark.parametrize(
    ("headers", "expected"),
    [
        ({"request-id": "a", "x-request-id": "b"}, "a"),
        ({"x-request-id": "b"}, "b"),
        ({"request-id": "", "x-request-id": "b"}, "b"),
        ({}, None),
    ],
    ids=["request-id-first", "x-request-id", "empty-skipped", "none"],
)
def test_the_request_id_is_read_from_the_adapters_headers(
    headers: dict[str, str], expected: str | None
) -> None:
    assert ANTHROPIC.request_id(headers) == expected


def test_the_stream_is_framed_and_named_by_the_adapter() -> None:
    decoder = COMPATIBLE.decoder(str)
    pairs = decoder.event("ping", '{"type": "ping"}') + decoder.event("message", "[DONE]")

    # The OpenAI end marker carries no event.
    assert pairs == [("ping", '{"type": "ping"}')]
    assert decoder.end() == []
    assert COMPATIBLE.parse_event('{"type": "ping"}', "ping").type == "ping"
