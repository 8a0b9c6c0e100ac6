"""Exports: the request body (which one, and never a key), the Markdown transcript, snippets."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.test import Client

from playground import conversations
from playground.models import Conversation
from playground.transfer import exporting, snippets
from playground.upstream.profiles import profiles_from_environ
from playground.web.ownership import acting_user
from tests.share_support import answer, make_run, seed_tool_loop

pytestmark = pytest.mark.django_db

SECRET = "sk-very-secret-key-0123456789"
TEAM = "team-private-42"
ENVIRON = {
    "FRIENDLI_TOKEN": SECRET,
    "FRIENDLI_TEAM": TEAM,
    "FRIENDLI_DEDICATED_MODELS": "dep-abc123",
    "ANTHROPIC_API_KEY": SECRET,
    "PLAYGROUND_UPSTREAM_LOCAL_LLAMA_BASE_URL": "http://127.0.0.1:9999",
    "PLAYGROUND_UPSTREAM_LOCAL_LLAMA_API_KEY": SECRET,
    "PLAYGROUND_UPSTREAM_LOCAL_LLAMA_MODELS": "llama",
}
PROFILES = ["simulator", "friendli-dedicated", "anthropic", "local-llama"]


@pytest.fixture
def owner() -> Any:
    return acting_user(None)


@pytest.fixture
def keyed(settings: Any) -> None:
    """Profiles with a key configured, as a real deployment has."""
    settings.PLAYGROUND_PROFILES = profiles_from_environ(
        ENVIRON, simulator_url=settings.PLAYGROUND_SIMULATOR_URL
    )


def asking(owner: Any, *, profile: str = "simulator") -> Conversation:
    conversation = conversations.create_conversation(owner=owner, profile=profile, title="Ask")
    conversations.append_user_message(conversation=conversation, content="Tell me about tides")
    return conversation


def get(client: Client, conversation: Conversation, what: str) -> Any:
    return client.get(f"/api/conversations/{conversation.id}/export/{what}")


# --- Which request -----------------------------------------------------------------------------


def test_a_waiting_user_turn_exports_the_next_request(client: Client, owner: Any) -> None:
    conversation = asking(owner)

    response = get(client, conversation, "request.json")

    assert response["X-Playground-Request-Source"] == "next_request"
    assert response.json() == conversations.next_request(conversation=conversation)[1]


def test_an_answered_turn_exports_the_last_runs_body(client: Client, owner: Any) -> None:
    conversation = asking(owner)
    sent = {"model": "simulator-1", "messages": [{"role": "user", "content": "x"}], "stream": True}
    answer(conversation, [{"type": "text", "text": "Tides..."}], request=sent)

    response = get(client, conversation, "request.json")

    assert response["X-Playground-Request-Source"] == "last_run"
    assert response.json() == sent


def test_an_answer_without_a_run_is_rebuilt_up_to_the_last_user_turn(owner: Any) -> None:
    original = seed_tool_loop(owner)
    fork = conversations.fork_conversation(conversation=original, owner=owner)  # runs stay behind

    exported = exporting.export_request(conversation=fork)

    assert exported.source == "rebuilt"
    assert [m["role"] for m in exported.body["messages"]] == ["user", "assistant", "user"]
    assert exported.body["messages"][-1]["content"][0]["type"] == "tool_result"


def test_an_empty_conversation_is_refused(client: Client, owner: Any) -> None:
    conversation = conversations.create_conversation(owner=owner)

    response = get(client, conversation, "request.json")

    assert (response.status_code, response.json()["error"]["field"]) == (400, "messages")


def test_someone_elses_conversation_is_404(owner: Any, client: Client) -> None:
    from django.contrib.auth import get_user_model

    other = asking(get_user_model().objects.create_user("carol"))

    for what in ("request.json", "transcript.md", "code/?lang=curl"):
        assert get(client, other, what).status_code == 404


# --- Never a key -------------------------------------------------------------------------------


@pytest.mark.parametrize("profile", PROFILES)
def test_no_export_holds_a_key_or_team(
    client: Client, owner: Any, keyed: None, profile: str
) -> None:
    conversation = asking(owner, profile=profile)
    outputs = [
        get(client, conversation, "request.json"),
        get(client, conversation, "transcript.md"),
    ]
    outputs += [get(client, conversation, f"code/?lang={lang}") for lang in snippets.SNIPPET_LANGS]

    for response in outputs:
        assert response.status_code == 200
        assert SECRET not in response.content.decode()
        assert TEAM not in response.content.decode()


@pytest.mark.parametrize(
    ("profile", "expected"),
    [
        ("simulator", None),
        ("friendli-dedicated", '-H "authorization: Bearer $FRIENDLI_TOKEN"'),
        ("anthropic", '-H "x-api-key: $ANTHROPIC_API_KEY"'),
        ("local-llama", '-H "authorization: Bearer $PLAYGROUND_UPSTREAM_LOCAL_LLAMA_API_KEY"'),
    ],
    ids=PROFILES,
)
def test_curl_reads_the_key_from_the_environment(
    client: Client, owner: Any, keyed: None, profile: str, expected: str | None
) -> None:
    code = get(client, asking(owner, profile=profile), "code/?lang=curl").content.decode()

    if expected is None:
        assert "authorization" not in code and "x-api-key" not in code
    else:
        assert expected in code


def test_friendlis_team_header_is_a_variable_too(client: Client, owner: Any, keyed: None) -> None:
    conversation = asking(owner, profile="friendli-dedicated")

    for lang in snippets.SNIPPET_LANGS:
        code = get(client, conversation, f"code/?lang={lang}").content.decode()
        assert "FRIENDLI_TEAM" in code


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize("lang", ["python-anthropic", "python-httpx"])
def test_python_snippets_compile(owner: Any, keyed: None, profile: str, lang: str) -> None:
    exported = exporting.export_request(conversation=asking(owner, profile=profile))

    code = snippets.code_snippet(lang=lang, profile=exported.profile, body=exported.body)

    compile(code, f"<{lang}>", "exec")


def test_the_base_url_is_the_profiles(client: Client, owner: Any, keyed: None) -> None:
    code = get(client, asking(owner, profile="local-llama"), "code/?lang=curl").content.decode()

    assert code.startswith("curl -N http://127.0.0.1:9999/v1/messages")


@pytest.mark.parametrize("lang", ["", "ruby", "CURL"], ids=["missing", "ruby", "case"])
def test_an_unknown_language_is_refused(client: Client, owner: Any, lang: str) -> None:
    response = get(client, asking(owner), f"code/?lang={lang}")

    assert (response.status_code, response.json()["error"]["field"]) == (400, "lang")
    assert "curl, python-anthropic, python-httpx" in response.json()["error"]["message"]


def test_a_heredoc_cannot_be_closed_by_the_conversation(owner: Any) -> None:
    conversation = conversations.create_conversation(owner=owner)
    conversations.append_user_message(conversation=conversation, content="a\nJSON\n$(rm -rf ~)")
    exported = exporting.export_request(conversation=conversation)

    code = snippets.code_snippet(lang="curl", profile=exported.profile, body=exported.body)

    assert code.count("\nJSON\n") == 1 and code.endswith("\nJSON\n")
    body_text = code.split("<<'JSON'\n", 1)[1].removesuffix("JSON\n")
    assert json.loads(body_text) == exported.body


# --- Markdown ----------------------------------------------------------------------------------


def test_the_transcript_has_every_part(client: Client, owner: Any) -> None:
    conversation = seed_tool_loop(owner)

    markdown = get(client, conversation, "transcript.md").content.decode()

    assert markdown.startswith("# Weather in Paris\n")
    assert "## System\n\n```\nBe brief.\n```" in markdown
    assert "<details>\n<summary>Thinking</summary>\n\n```\nParis, so metric.\n```" in markdown
    assert '**Tool call** `get_weather` (`toolu_1`)\n\n```json\n{\n  "city": "Paris"\n}\n```' in (
        markdown
    )
    assert "**Tool result** for `toolu_1`\n\n```\n18 °C\n```" in markdown
    assert "_`simulator-1` · complete · stop: tool_use · 12 in / 48 out tokens_" in markdown


@pytest.mark.parametrize(
    ("text", "fence"), [("plain", "```"), ("has ``` inside", "````"), ("````` five", "``````")]
)
def test_fences_outgrow_the_backticks_inside(text: str, fence: str) -> None:
    assert exporting.fenced(text) == f"{fence}\n{text}\n{fence}"


def test_a_bundle_whose_answer_holds_a_lone_surrogate_imports_back(
    client: Client, owner: Any
) -> None:
    # A server may cut a stream inside an emoji: the answer is kept as sent ("\ud83d"), but the
    # import refuses lone surrogates, so its own bundle came back a 400.
    item = conversations.create_conversation(owner=owner, title="Cut")
    conversations.append_user_message(conversation=item, content="Smile")
    conversations.append_assistant_message(
        conversation=item,
        run=make_run(item),
        content_json=json.dumps([{"type": "text", "text": "a smile \ud83d cut"}]),
    )
    download = client.get(f"/api/conversations/{item.id}/export/bundle.json")
    assert download.status_code == 200
    again = client.post("/api/import/", data=download.content, content_type="application/json")
    assert again.status_code == 201, again.content
    imported = Conversation.objects.get(pk=again.json()["id"])
    last = imported.messages.order_by("position").last()
    assert last is not None and last.content == [{"type": "text", "text": "a smile \ufffd cut"}]
