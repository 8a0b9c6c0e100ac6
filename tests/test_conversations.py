"""The conversation service: every change of state, and every refusal leaving state unchanged."""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.db.models import TextField
from django.db.models.functions import Cast
from django.test import override_settings
from django.utils import timezone

from playground import conversations
from playground.models import Conversation, Message, Run
from playground.protocol.errors import Conflict, NotFound, RequestValidationError, RunBusy
from playground.upstream.profiles import Profile

pytestmark = pytest.mark.django_db

# A thinking block as an upstream sent it: odd key order, non-ASCII text, a signature.
THINKING_TURN = (
    '[{"signature":"EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxDJi+f/=","type":"thinking",'
    '"thinking":"Let me think… ünïcode"},{"text":"Hi","type":"text","citations":null}]'
)
TOOL_TURN = json.dumps(
    [
        {"type": "text", "text": "Looking both up."},
        {"type": "tool_use", "id": "toolu_1", "name": "weather", "input": {"city": "Paris"}},
        {"type": "tool_use", "id": "toolu_2", "name": "time", "input": {}},
    ]
)


@pytest.fixture
def alice() -> Any:
    return get_user_model().objects.create_user("alice")


@pytest.fixture
def bob() -> Any:
    return get_user_model().objects.create_user("bob")


@pytest.fixture
def conversation(alice: Any) -> Conversation:
    return conversations.create_conversation(owner=alice, title="Chat")


def make_run(conversation: Conversation, *, status: str = Run.Status.COMPLETE) -> Run:
    return Run.objects.create(
        conversation=conversation,
        profile="simulator",
        model="simulator-1",
        request={},
        status=status,
        started_at=timezone.now(),
    )


def answer(conversation: Conversation, content_json: str) -> Message:
    """The assistant turn a finished run saves."""
    return conversations.append_assistant_message(
        conversation=conversation, run=make_run(conversation), content_json=content_json
    )


def state(conversation: Conversation) -> tuple[Any, ...]:
    """Everything stored about a conversation, to assert a refusal changed nothing."""
    row = Conversation.objects.get(pk=conversation.pk)
    fields = (row.title, row.settings)
    messages = tuple(
        Message.objects.filter(conversation_id=conversation.pk)
        .order_by("position")
        .values_list(
            "position", "role", Cast("content", TextField()), "run_id", "parent_id", "on_path"
        )
    )
    return fields, row.updated_at, messages, Run.objects.filter(conversation=row).count()


@pytest.fixture
def tool_conversation(conversation: Conversation) -> Conversation:
    """user, then an assistant turn calling toolu_1 and toolu_2."""
    conversations.append_user_message(conversation=conversation, content="Weather and time?")
    answer(conversation, TOOL_TURN)
    return conversation


def refused(error: type[Exception], call: Any, conversation: Conversation) -> Exception:
    before = state(conversation)
    with pytest.raises(error) as info:
        call()
    assert state(conversation) == before
    return info.value


# --- create / get / list -------------------------------------------------------------------------


def test_create_uses_defaults(alice: Any) -> None:
    created = conversations.create_conversation(owner=alice)
    stored = Conversation.objects.get(pk=created.pk)
    assert (
        stored.owner,
        stored.settings.profile,
        stored.settings.model,
        stored.settings.max_tokens,
    ) == (
        alice,
        "simulator",
        "simulator-1",
        1024,
    )


def test_create_stores_every_setting(alice: Any) -> None:
    tools = [{"name": "weather", "input_schema": {"type": "object"}}]
    created = conversations.create_conversation(
        owner=alice,
        title="T",
        model="simulator-1-thinking",
        system="Be brief.",
        max_tokens=4000,
        top_p=0.5,
        stop_sequences=["END"],
        tools=tools,
        tool_choice={"type": "auto"},
        thinking={"type": "enabled", "budget_tokens": 2048},
    )
    stored = Conversation.objects.get(pk=created.pk)
    assert (
        stored.settings.system,
        stored.settings.top_p,
        stored.settings.stop_sequences,
        stored.settings.tools,
        stored.settings.thinking,
    ) == (
        "Be brief.",
        0.5,
        ["END"],
        tools,
        {"type": "enabled", "budget_tokens": 2048},
    )


def test_create_picks_the_profiles_first_model(alice: Any) -> None:
    created = conversations.create_conversation(owner=alice, profile="simulator")
    assert created.settings.model == "simulator-1"


def test_create_refuses_a_profile_without_models_and_no_model(alice: Any) -> None:
    bare = Profile(name="bare", label="Bare", kind="custom", base_url="http://x", auth="none")
    with (
        override_settings(PLAYGROUND_PROFILES={"bare": bare}),
        pytest.raises(RequestValidationError) as info,
    ):
        conversations.create_conversation(owner=alice, profile="bare")
    assert info.value.field == "model"
    assert not Conversation.objects.exists()


def test_create_refuses_an_unknown_profile_listing_the_configured(alice: Any) -> None:
    with pytest.raises(RequestValidationError) as info:
        conversations.create_conversation(owner=alice, profile="nope")
    assert info.value.field == "profile"
    assert "simulator" in info.value.message
    assert not Conversation.objects.exists()


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        pytest.param({"colour": "red"}, "colour", id="unknown-field"),
        pytest.param({"title": 5}, "title", id="title-number"),
        pytest.param({"title": "x" * 201}, "title", id="title-too-long"),
        pytest.param({"model": ""}, "model", id="model-empty"),
        pytest.param({"system": ["x"]}, "system", id="system-list"),
        pytest.param({"max_tokens": "10"}, "max_tokens", id="max-tokens-string"),
        pytest.param({"max_tokens": True}, "max_tokens", id="max-tokens-bool"),
        pytest.param({"max_tokens": 0}, "max_tokens", id="max-tokens-zero"),
        pytest.param({"max_tokens": 2**40}, "max_tokens", id="max-tokens-huge"),
        pytest.param({"temperature": "hot"}, "temperature", id="temperature-string"),
        pytest.param({"temperature": 1.5}, "temperature", id="temperature-over-anthropic-max"),
        pytest.param({"top_k": 1.5}, "top_k", id="top-k-float"),
        pytest.param({"stop_sequences": "END"}, "stop_sequences", id="stop-string"),
        pytest.param({"stop_sequences": [1]}, "stop_sequences[0]", id="stop-item-number"),
        pytest.param({"tools": {}}, "tools", id="tools-object"),
        pytest.param({"tools": [{"name": "x"}]}, "tools[0].input_schema", id="tool-no-schema"),
        pytest.param({"tool_choice": "auto"}, "tool_choice", id="tool-choice-string"),
        pytest.param(
            {"thinking": {"type": "enabled", "budget_tokens": 4096}},
            "thinking.budget_tokens",
            id="budget-over-max-tokens",
        ),
    ],
)
def test_create_refuses_invalid_fields_naming_them(
    alice: Any, fields: dict[str, Any], field: str
) -> None:
    with pytest.raises(RequestValidationError) as info:
        conversations.create_conversation(owner=alice, **fields)
    assert info.value.field == field
    assert not Conversation.objects.exists()


def test_get_returns_the_owners_conversation(alice: Any, conversation: Conversation) -> None:
    found = conversations.get_conversation(owner=alice, conversation_id=str(conversation.id))
    assert found == conversation


@pytest.mark.parametrize(
    "conversation_id",
    [
        pytest.param("00000000-0000-0000-0000-000000000000", id="missing"),
        pytest.param("not-a-uuid", id="malformed"),
        pytest.param("", id="empty"),
    ],
)
def test_get_refuses_a_missing_id(alice: Any, conversation_id: str) -> None:
    with pytest.raises(NotFound):
        conversations.get_conversation(owner=alice, conversation_id=conversation_id)


def test_get_refuses_another_users_conversation(bob: Any, conversation: Conversation) -> None:
    with pytest.raises(NotFound):
        conversations.get_conversation(owner=bob, conversation_id=conversation.id)


def test_get_refuses_no_owner(conversation: Conversation) -> None:
    with pytest.raises(NotFound):
        conversations.get_conversation(owner=None, conversation_id=conversation.id)


def test_list_filters_by_title_and_owner(alice: Any, bob: Any) -> None:
    conversations.create_conversation(owner=alice, title="Paris weather")
    conversations.create_conversation(owner=alice, title="Recipes")
    conversations.create_conversation(owner=bob, title="Paris trip")
    titles = [c.title for c in conversations.list_conversations(owner=alice, query="paris")]
    assert titles == ["Paris weather"]


def test_list_without_query_is_newest_change_first(alice: Any) -> None:
    first = conversations.create_conversation(owner=alice, title="first")
    conversations.create_conversation(owner=alice, title="second")
    conversations.append_user_message(conversation=first, content="bump")
    titles = [c.title for c in conversations.list_conversations(owner=alice)]
    assert titles == ["first", "second"]


# --- update / delete -----------------------------------------------------------------------------


def test_update_changes_settings_and_title(conversation: Conversation) -> None:
    conversations.update_settings(
        conversation=conversation, changes={"temperature": 0.2, "title": " Renamed "}
    )
    stored = Conversation.objects.get(pk=conversation.pk)
    assert (stored.settings.temperature, stored.title) == (0.2, "Renamed")


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        pytest.param({"owner": 1}, "owner", id="unknown-field"),
        pytest.param({"temperature": 5}, "temperature", id="out-of-range"),
        pytest.param({"profile": "nope"}, "profile", id="unknown-profile"),
        pytest.param(
            {
                "thinking": {"type": "enabled", "budget_tokens": 1024},
                "max_tokens": 4000,
                "top_k": 5,
            },
            "top_k",
            id="cross-field-thinking-top-k",
        ),
    ],
)
def test_update_refusal_changes_nothing(
    conversation: Conversation, changes: dict[str, Any], field: str
) -> None:
    error = refused(
        RequestValidationError,
        lambda: conversations.update_settings(conversation=conversation, changes=changes),
        conversation,
    )
    assert error.field == field


def test_delete_removes_conversation_messages_and_runs(conversation: Conversation) -> None:
    conversations.append_user_message(conversation=conversation, content="Hi")
    answer(conversation, '[{"type":"text","text":"Hello"}]')
    conversations.delete_conversation(conversation=conversation)
    assert (Conversation.objects.count(), Message.objects.count(), Run.objects.count()) == (0, 0, 0)


def test_delete_is_refused_while_a_run_is_live(conversation: Conversation) -> None:
    make_run(conversation, status=Run.Status.RUNNING)
    refused(
        RunBusy, lambda: conversations.delete_conversation(conversation=conversation), conversation
    )


# --- user messages -------------------------------------------------------------------------------


def test_append_user_string_becomes_a_text_block(conversation: Conversation) -> None:
    message = conversations.append_user_message(conversation=conversation, content="Hello")
    assert (message.position, message.role, message.content) == (
        0,
        "user",
        [{"type": "text", "text": "Hello"}],
    )


def test_first_message_titles_an_untitled_conversation(alice: Any) -> None:
    untitled = conversations.create_conversation(owner=alice)
    conversations.append_user_message(conversation=untitled, content="What is   the weather?")
    assert Conversation.objects.get(pk=untitled.pk).title == "What is the weather?"


def test_a_title_leaves_out_simulator_directives(alice: Any) -> None:
    untitled = conversations.create_conversation(owner=alice)
    conversations.append_user_message(
        conversation=untitled, content="[[sim: rate=20]] Tell me   about [[sim: long]]bridges"
    )
    assert Conversation.objects.get(pk=untitled.pk).title == "Tell me about bridges"


def test_a_title_follows_an_edit_of_the_first_message(alice: Any) -> None:
    untitled = conversations.create_conversation(owner=alice)
    first = conversations.append_user_message(conversation=untitled, content="Bridges")
    answer(untitled, '[{"type":"text","text":"ok"}]')
    conversations.edit_message(conversation=untitled, message_id=first.pk, content="Tunnels")
    assert Conversation.objects.get(pk=untitled.pk).title == "Tunnels"


def test_a_typed_title_does_not_follow_an_edit(alice: Any) -> None:
    untitled = conversations.create_conversation(owner=alice)
    first = conversations.append_user_message(conversation=untitled, content="Bridges")
    conversations.update_settings(conversation=untitled, changes={"title": "Mine"})
    conversations.edit_message(conversation=untitled, message_id=first.pk, content="Tunnels")
    assert Conversation.objects.get(pk=untitled.pk).title == "Mine"


def test_an_untitled_conversation_has_one_name(alice: Any) -> None:
    assert str(conversations.create_conversation(owner=alice)) == "Untitled"


def test_a_message_after_an_unanswered_one_joins_it_when_asked(conversation: Conversation) -> None:
    # The run of "one" saved nothing (it failed before its first event): the person goes on.
    first = conversations.append_user_message(conversation=conversation, content="one")
    joined = conversations.append_user_message(
        conversation=conversation, content="two", unanswered="join"
    )
    assert joined.pk == first.pk
    stored = list(conversation.messages.order_by("position"))
    assert [m.content for m in stored] == [
        [{"type": "text", "text": "one"}, {"type": "text", "text": "two"}]
    ]


@pytest.mark.parametrize("unanswered", [None, "replace"], ids=["by-default", "asked"])
def test_a_message_after_an_unanswered_one_goes_alone(
    conversation: Conversation, unanswered: Any
) -> None:
    # A turn refused for its content would refuse every later send it is glued to: the new
    # message goes alone, and the unanswered one stays as its alternative (nothing deleted).
    conversations.append_user_message(conversation=conversation, content="Hello")
    answer(conversation, '[{"type":"text","text":"Hi"}]')
    failed = conversations.append_user_message(conversation=conversation, content="bad one")
    alone = conversations.append_user_message(
        conversation=conversation, content="good one", unanswered=unanswered
    )
    assert alone.pk != failed.pk and alone.position == failed.position
    on_screen = list(conversation.messages.filter(on_path=True).order_by("position"))
    assert [m.content[0]["text"] for m in on_screen] == ["Hello", "Hi", "good one"]
    failed.refresh_from_db()
    assert failed.content == [{"type": "text", "text": "bad one"}] and not failed.on_path


def test_a_first_message_sent_alone_after_an_unanswered_one_titles_the_conversation(
    alice: Any,
) -> None:
    untitled = conversations.create_conversation(owner=alice)
    conversations.append_user_message(conversation=untitled, content="Bridges of Paris")
    conversations.append_user_message(conversation=untitled, content="Tunnels of Lyon")
    assert Conversation.objects.get(pk=untitled.pk).title == "Tunnels of Lyon"


def test_text_after_unanswered_tool_results_joins_them_or_is_refused_alone(
    conversation: Conversation,
) -> None:
    conversations.append_user_message(conversation=conversation, content="Weather?")
    answer(
        conversation,
        '[{"type":"tool_use","id":"toolu_1","name":"get_weather","input":{}}]',
    )
    results = conversations.append_tool_results(
        conversation=conversation, results=[{"tool_use_id": "toolu_1", "content": "rain"}]
    )
    with pytest.raises(Conflict, match="tool results that have no answer yet"):
        conversations.append_user_message(
            conversation=conversation, content="and?", unanswered="replace"
        )
    joined = conversations.append_user_message(conversation=conversation, content="and?")
    assert joined.pk == results.pk
    assert [b["type"] for b in joined.content] == ["tool_result", "text"]


def test_append_user_blocks_are_kept(conversation: Conversation) -> None:
    blocks = [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]
    message = conversations.append_user_message(conversation=conversation, content=blocks)
    assert message.content == blocks


def test_append_user_follows_the_last_position(conversation: Conversation) -> None:
    conversations.append_user_message(conversation=conversation, content="one")
    answer(conversation, '[{"type":"text","text":"two"}]')
    message = conversations.append_user_message(conversation=conversation, content="three")
    assert message.position == 2


@pytest.mark.parametrize(
    ("content", "field"),
    [
        pytest.param("", "content", id="empty-string"),
        pytest.param("  \n", "content", id="blank-string"),
        pytest.param([], "content", id="empty-list"),
        pytest.param(None, "content", id="null"),
        pytest.param(5, "content", id="number"),
        pytest.param(["text"], "content[0]", id="block-not-object"),
        pytest.param([{"type": "text", "text": ""}], "content[0].text", id="empty-text-block"),
        pytest.param([{"type": "tool_use"}], "content[0]", id="assistant-block-type"),
        pytest.param(
            [{"type": "tool_result", "tool_use_id": "x"}], "content[0]", id="stray-tool-result"
        ),
    ],
)
def test_append_user_refuses_invalid_content(
    conversation: Conversation, content: Any, field: str
) -> None:
    error = refused(
        RequestValidationError,
        lambda: conversations.append_user_message(conversation=conversation, content=content),
        conversation,
    )
    assert error.field == field


def test_append_user_is_refused_while_a_run_is_live(conversation: Conversation) -> None:
    make_run(conversation, status=Run.Status.RUNNING)
    refused(
        RunBusy,
        lambda: conversations.append_user_message(conversation=conversation, content="Hi"),
        conversation,
    )


def test_append_user_is_refused_while_tool_calls_await_results(
    tool_conversation: Conversation,
) -> None:
    error = refused(
        Conflict,
        lambda: conversations.append_user_message(conversation=tool_conversation, content="Hi"),
        tool_conversation,
    )
    assert type(error) is Conflict
    assert "toolu_1, toolu_2" in error.message
    assert "tool results" in error.message


# --- tool results --------------------------------------------------------------------------------


def test_pending_tool_uses_are_the_last_assistant_turns_calls(
    tool_conversation: Conversation,
) -> None:
    pending = conversations.pending_tool_uses(conversation=tool_conversation)
    assert [block["id"] for block in pending] == ["toolu_1", "toolu_2"]


def test_no_tool_uses_are_pending_after_results(tool_conversation: Conversation) -> None:
    conversations.append_tool_results(
        conversation=tool_conversation,
        results=[
            {"tool_use_id": "toolu_1", "content": "sunny"},
            {"tool_use_id": "toolu_2", "content": "noon"},
        ],
    )
    assert conversations.pending_tool_uses(conversation=tool_conversation) == []


def test_tool_results_come_first_in_call_order_then_text(tool_conversation: Conversation) -> None:
    message = conversations.append_tool_results(
        conversation=tool_conversation,
        results=[
            {"tool_use_id": "toolu_2", "content": [{"type": "text", "text": "noon"}]},
            {"tool_use_id": "toolu_1", "content": "no such city", "is_error": True},
        ],
        text="Thanks",
    )
    assert message.content == [
        {
            "type": "tool_result",
            "tool_use_id": "toolu_1",
            "content": "no such city",
            "is_error": True,
        },
        {
            "type": "tool_result",
            "tool_use_id": "toolu_2",
            "content": [{"type": "text", "text": "noon"}],
        },
        {"type": "text", "text": "Thanks"},
    ]


def test_an_empty_tool_result_is_sent_without_content(tool_conversation: Conversation) -> None:
    message = conversations.append_tool_results(
        conversation=tool_conversation,
        results=[{"tool_use_id": "toolu_1", "content": ""}, {"tool_use_id": "toolu_2"}],
    )
    assert message.content == [
        {"type": "tool_result", "tool_use_id": "toolu_1"},
        {"type": "tool_result", "tool_use_id": "toolu_2"},
    ]


GOOD_2 = {"tool_use_id": "toolu_2", "content": "noon"}


@pytest.mark.parametrize(
    ("results", "text", "field"),
    [
        pytest.param("sunny", None, "results", id="not-a-list"),
        pytest.param([], None, "results", id="empty"),
        pytest.param([GOOD_2], None, "results", id="incomplete"),
        pytest.param(["sunny", GOOD_2], None, "results[0]", id="not-an-object"),
        pytest.param([{"content": "x"}, GOOD_2], None, "results[0].tool_use_id", id="missing-id"),
        pytest.param(
            [{"tool_use_id": "toolu_9", "content": "x"}, GOOD_2],
            None,
            "results[0].tool_use_id",
            id="unknown-id",
        ),
        pytest.param([GOOD_2, GOOD_2], None, "results[1].tool_use_id", id="duplicate-id"),
        pytest.param(
            [{"tool_use_id": "toolu_1", "content": 5}, GOOD_2],
            None,
            "results[0].content",
            id="content-number",
        ),
        pytest.param(
            [GOOD_2, {"tool_use_id": "toolu_1", "content": [{"type": "tool_use"}]}],
            None,
            "results[1].content[0]",
            id="bad-inner-block-named-by-result-index",
        ),
        pytest.param(
            [{"tool_use_id": "toolu_1", "is_error": "yes"}, GOOD_2],
            None,
            "results[0].is_error",
            id="is-error-string",
        ),
        pytest.param(
            [{"tool_use_id": "toolu_1", "output": "x"}, GOOD_2],
            None,
            "results[0].output",
            id="unknown-key",
        ),
        pytest.param([{"tool_use_id": "toolu_1"}, GOOD_2], 5, "text", id="text-number"),
    ],
)
def test_tool_results_refusals_name_the_result(
    tool_conversation: Conversation, results: Any, text: Any, field: str
) -> None:
    error = refused(
        RequestValidationError,
        lambda: conversations.append_tool_results(
            conversation=tool_conversation, results=results, text=text
        ),
        tool_conversation,
    )
    assert error.field == field


@pytest.mark.parametrize("results", [[{"content": "x"}], [{"tool_use_id": "toolu_9"}]])
def test_tool_result_id_refusals_list_the_pending_ids(
    tool_conversation: Conversation, results: Any
) -> None:
    with pytest.raises(RequestValidationError) as info:
        conversations.append_tool_results(conversation=tool_conversation, results=results)
    assert "toolu_1, toolu_2" in info.value.message


def test_tool_results_are_refused_when_nothing_is_pending(conversation: Conversation) -> None:
    conversations.append_user_message(conversation=conversation, content="Hi")
    answer(conversation, '[{"type":"text","text":"Hello"}]')
    refused(
        Conflict,
        lambda: conversations.append_tool_results(
            conversation=conversation, results=[{"tool_use_id": "toolu_1", "content": "x"}]
        ),
        conversation,
    )


def test_tool_results_are_refused_while_a_run_is_live(tool_conversation: Conversation) -> None:
    make_run(tool_conversation, status=Run.Status.RUNNING)
    refused(
        RunBusy,
        lambda: conversations.append_tool_results(
            conversation=tool_conversation,
            results=[{"tool_use_id": "toolu_1"}, {"tool_use_id": "toolu_2"}],
        ),
        tool_conversation,
    )


# --- edit / regenerate ---------------------------------------------------------------------------


@pytest.fixture
def two_rounds(conversation: Conversation) -> list[Message]:
    first = conversations.append_user_message(conversation=conversation, content="one")
    answer(conversation, '[{"type":"text","text":"two"}]')
    conversations.append_user_message(conversation=conversation, content="three")
    answer(conversation, '[{"type":"text","text":"four"}]')
    return [first]


def test_edit_puts_the_new_message_on_screen_in_place_of_what_followed(
    conversation: Conversation, two_rounds: list[Message]
) -> None:
    conversations.edit_message(
        conversation=conversation, message_id=two_rounds[0].pk, content="ONE"
    )
    stored = list(conversations.path_of(conversation))
    assert [(m.position, m.content) for m in stored] == [(0, [{"type": "text", "text": "ONE"}])]


def test_edit_keeps_the_old_message_and_what_followed_as_a_branch(
    conversation: Conversation, two_rounds: list[Message]
) -> None:
    before = list(conversations.path_of(conversation).values_list("pk", flat=True))
    edited = conversations.edit_message(
        conversation=conversation, message_id=two_rounds[0].pk, content="ONE"
    )
    kept = list(
        conversation.messages.filter(on_path=False)
        .order_by("position")
        .values_list("pk", flat=True)
    )
    assert (kept, edited.parent_id, edited.pk in before) == (before, None, False)


def test_edit_keeps_the_runs_for_history(
    conversation: Conversation, two_rounds: list[Message]
) -> None:
    conversations.edit_message(
        conversation=conversation, message_id=str(two_rounds[0].pk), content="ONE"
    )
    assert conversation.runs.count() == 2


def test_edit_refuses_an_assistant_message(
    conversation: Conversation, two_rounds: list[Message]
) -> None:
    assistant = conversation.messages.get(position=1)
    refused(
        Conflict,
        lambda: conversations.edit_message(
            conversation=conversation, message_id=assistant.pk, content="x"
        ),
        conversation,
    )


@pytest.mark.parametrize("message_id", ["999999", "abc", ""])
def test_edit_refuses_an_unknown_message(
    conversation: Conversation, two_rounds: list[Message], message_id: str
) -> None:
    refused(
        NotFound,
        lambda: conversations.edit_message(
            conversation=conversation, message_id=message_id, content="x"
        ),
        conversation,
    )


def test_edit_refuses_another_conversations_message(
    alice: Any, conversation: Conversation, two_rounds: list[Message]
) -> None:
    other = conversations.create_conversation(owner=alice)
    refused(
        NotFound,
        lambda: conversations.edit_message(
            conversation=other, message_id=two_rounds[0].pk, content="x"
        ),
        conversation,
    )


def test_edit_refuses_empty_content(conversation: Conversation, two_rounds: list[Message]) -> None:
    error = refused(
        RequestValidationError,
        lambda: conversations.edit_message(
            conversation=conversation, message_id=two_rounds[0].pk, content=""
        ),
        conversation,
    )
    assert error.field == "content"


def test_edit_is_refused_while_a_run_is_live(
    conversation: Conversation, two_rounds: list[Message]
) -> None:
    make_run(conversation, status=Run.Status.RUNNING)
    refused(
        RunBusy,
        lambda: conversations.edit_message(
            conversation=conversation, message_id=two_rounds[0].pk, content="x"
        ),
        conversation,
    )


def test_regenerate_takes_the_last_answer_off_screen_and_keeps_it_and_its_run(
    conversation: Conversation, two_rounds: list[Message]
) -> None:
    last = conversations.path_of(conversation).last()
    conversations.prepare_regenerate(conversation=conversation)
    roles = list(conversations.path_of(conversation).values_list("role", flat=True))
    kept = Message.objects.get(pk=last.pk)
    assert (roles, conversation.runs.count()) == (["user", "assistant", "user"], 2)
    assert (kept.on_path, kept.run_id) == (False, last.run_id)


def test_regenerate_after_a_run_that_saved_nothing_changes_nothing(
    conversation: Conversation,
) -> None:
    conversations.append_user_message(conversation=conversation, content="Hi")
    before = state(conversation)
    conversations.prepare_regenerate(conversation=conversation)
    assert state(conversation) == before


def test_regenerate_is_refused_without_messages(conversation: Conversation) -> None:
    refused(
        Conflict, lambda: conversations.prepare_regenerate(conversation=conversation), conversation
    )


def test_regenerate_is_refused_while_a_run_is_live(
    conversation: Conversation, two_rounds: list[Message]
) -> None:
    make_run(conversation, status=Run.Status.RUNNING)
    refused(
        RunBusy, lambda: conversations.prepare_regenerate(conversation=conversation), conversation
    )


# --- fork ----------------------------------------------------------------------------------------


def test_fork_copies_settings_and_content_verbatim(alice: Any, bob: Any) -> None:
    original = conversations.create_conversation(
        owner=alice, title="Orig", system="Be brief.", temperature=0.3
    )
    conversations.append_user_message(conversation=original, content="Hi")
    answer(original, THINKING_TURN)
    fork = conversations.fork_conversation(conversation=original, owner=bob)
    copied = list(
        fork.messages.order_by("position").values_list("role", Cast("content", TextField()), "run")
    )
    source = list(
        original.messages.order_by("position").values_list("role", Cast("content", TextField()))
    )
    assert copied == [(role, text, None) for role, text in source]
    assert (
        fork.owner,
        fork.title,
        fork.settings.system,
        fork.settings.temperature,
        fork.runs.count(),
    ) == (
        bob,
        "Orig (fork)",
        "Be brief.",
        0.3,
        0,
    )


def test_fork_upto_position_copies_a_prefix(
    alice: Any, conversation: Conversation, two_rounds: list[Message]
) -> None:
    fork = conversations.fork_conversation(conversation=conversation, owner=alice, upto_position=1)
    assert list(fork.messages.values_list("position", flat=True)) == [0, 1]


@pytest.mark.parametrize("upto", [7, -1, True, "1"])
def test_fork_refuses_a_bad_position(
    alice: Any, conversation: Conversation, two_rounds: list[Message], upto: Any
) -> None:
    with pytest.raises(RequestValidationError) as info:
        conversations.fork_conversation(conversation=conversation, owner=alice, upto_position=upto)
    assert info.value.field == "upto_position"
    assert Conversation.objects.count() == 1


# --- the assistant turn and the next request -----------------------------------------------------


def test_assistant_content_is_stored_byte_for_byte(conversation: Conversation) -> None:
    conversations.append_user_message(conversation=conversation, content="Hi")
    odd = ' [ {"type" : "text",   "text":"caf\\u00e9", "z":1.50} ] '
    message = answer(conversation, odd)
    # The column, read as text: the bytes as given.
    assert (
        Message.objects.filter(pk=message.pk)
        .values_list(Cast("content", TextField()), flat=True)
        .get()
        == odd
    )


def test_thinking_signature_and_key_order_survive_into_the_next_request(
    conversation: Conversation,
) -> None:
    conversations.append_user_message(conversation=conversation, content="Hi")
    answer(conversation, THINKING_TURN)
    conversations.append_user_message(conversation=conversation, content="More")
    _, body = conversations.next_request(conversation=conversation)
    sent = json.dumps(body["messages"][1]["content"], ensure_ascii=False, separators=(",", ":"))
    assert sent == THINKING_TURN


@pytest.mark.parametrize(
    "content_json",
    [
        pytest.param("not json", id="not-json"),
        pytest.param("[]", id="empty-list"),
        pytest.param('{"type":"text"}', id="object"),
        pytest.param('[{"text":"no type"}]', id="block-without-type"),
    ],
)
def test_assistant_turn_refuses_invalid_content(
    conversation: Conversation, content_json: str
) -> None:
    conversations.append_user_message(conversation=conversation, content="Hi")
    run = make_run(conversation)
    error = refused(
        RequestValidationError,
        lambda: conversations.append_assistant_message(
            conversation=conversation, run=run, content_json=content_json
        ),
        conversation,
    )
    assert error.field == "content_json"


def test_assistant_turn_needs_a_user_turn_to_answer(conversation: Conversation) -> None:
    run = make_run(conversation)
    refused(
        Conflict,
        lambda: conversations.append_assistant_message(
            conversation=conversation, run=run, content_json='[{"type":"text","text":"x"}]'
        ),
        conversation,
    )


def test_assistant_turn_refuses_another_conversations_run(
    alice: Any, conversation: Conversation
) -> None:
    conversations.append_user_message(conversation=conversation, content="Hi")
    run = make_run(conversations.create_conversation(owner=alice))
    refused(
        Conflict,
        lambda: conversations.append_assistant_message(
            conversation=conversation, run=run, content_json='[{"type":"text","text":"x"}]'
        ),
        conversation,
    )


def test_next_request_is_the_streaming_body(alice: Any) -> None:
    conversation = conversations.create_conversation(
        owner=alice, system="Be brief.", temperature=0.5, stop_sequences=["END"]
    )
    conversations.append_user_message(conversation=conversation, content="Hi")
    profile, body = conversations.next_request(conversation=conversation)
    assert profile.name == "simulator"
    assert body == {
        "model": "simulator-1",
        "max_tokens": 1024,
        "system": "Be brief.",
        "messages": [{"role": "user", "content": [{"type": "text", "text": "Hi"}]}],
        "temperature": 0.5,
        "stop_sequences": ["END"],
        "stream": True,
    }


def test_next_request_refuses_a_conversation_without_messages(
    conversation: Conversation,
) -> None:
    with pytest.raises(RequestValidationError) as info:
        conversations.next_request(conversation=conversation)
    assert info.value.field == "messages"


def test_next_request_refuses_when_the_assistant_spoke_last(
    conversation: Conversation, two_rounds: list[Message]
) -> None:
    with pytest.raises(RequestValidationError) as info:
        conversations.next_request(conversation=conversation)
    assert info.value.field == "messages"


def test_next_request_refuses_a_profile_no_longer_configured(conversation: Conversation) -> None:
    conversations.append_user_message(conversation=conversation, content="Hi")
    gone = conversation.settings.model_copy(update={"profile": "gone"})
    Conversation.objects.filter(pk=conversation.pk).update(settings=gone)
    conversation.refresh_from_db()
    with pytest.raises(RequestValidationError) as info:
        conversations.next_request(conversation=conversation)
    assert info.value.field == "profile"


# --- serialisation -------------------------------------------------------------------------------


def test_serialize_shows_messages_runs_and_pending_calls(tool_conversation: Conversation) -> None:
    data = conversations.serialize_conversation(tool_conversation)
    user, assistant = data["messages"]
    assert (user["run"], assistant["run"]["status"], assistant["content"][1]["id"]) == (
        None,
        "complete",
        "toolu_1",
    )
    assert [block["id"] for block in data["pending_tool_uses"]] == ["toolu_1", "toolu_2"]


def test_serialize_shows_the_active_run(conversation: Conversation) -> None:
    run = make_run(conversation, status=Run.Status.RUNNING)
    assert conversations.serialize_conversation(conversation)["active_run"]["id"] == str(run.id)


def test_serialize_never_carries_a_key_or_an_upstream_url(alice: Any) -> None:
    secret = Profile(
        name="secret",
        label="Secret",
        kind="custom",
        base_url="https://upstream.example",
        auth="bearer",
        api_key="sk-very-secret",
        models=("m",),
    )
    with override_settings(PLAYGROUND_PROFILES={"secret": secret}):
        conversation = conversations.create_conversation(owner=alice, profile="secret")
        conversations.append_user_message(conversation=conversation, content="Hi")
        text = json.dumps(conversations.serialize_conversation(conversation))
    assert "sk-very-secret" not in text
    assert "upstream.example" not in text


def test_selecting_an_answer_with_adopt_settings_takes_its_runs_model_and_settings(
    conversation: Conversation,
) -> None:
    # A compare's "Keep this one": the next message goes where the kept answer came from.
    conversations.append_user_message(conversation=conversation, content="Hi")
    first = answer(conversation, '[{"type":"text","text":"one"}]')
    column = make_run(conversation)
    Run.objects.filter(pk=column.pk).update(
        model="simulator-1-thinking",
        request={"model": "simulator-1-thinking", "max_tokens": 700, "temperature": 0.2},
    )
    column.refresh_from_db()
    conversations.prepare_regenerate(conversation=conversation)
    other = conversations.append_assistant_message(
        conversation=conversation, run=column, content_json='[{"type":"text","text":"two"}]'
    )
    conversations.select_message(conversation=conversation, message_id=other.pk)
    row = Conversation.objects.get(pk=conversation.pk)
    assert (row.settings.model, row.settings.max_tokens) == (
        "simulator-1",
        1024,
    )  # a plain switch keeps them
    conversations.select_message(
        conversation=conversation, message_id=other.pk, adopt_settings=True
    )
    row = Conversation.objects.get(pk=conversation.pk)
    assert (
        row.settings.profile,
        row.settings.model,
        row.settings.max_tokens,
        row.settings.temperature,
    ) == (
        "simulator",
        "simulator-1-thinking",
        700,
        0.2,
    )
    conversations.select_message(conversation=conversation, message_id=first.pk)
    assert Conversation.objects.get(pk=conversation.pk).settings.model == "simulator-1-thinking"


# --- the code-execution container --------------------------------------------------------------


def _answer_in(conversation: Conversation, container: dict[str, Any] | None) -> Message:
    message = answer(conversation, '[{"type":"text","text":"Made a.csv."}]')
    Run.objects.filter(pk=message.run_id).update(container=container)
    return message


def test_the_next_request_runs_in_the_container_an_earlier_turn_made(
    conversation: Conversation,
) -> None:
    # A follow-up keeps the files an earlier turn made (Anthropic: top-level ``container``).
    later = (timezone.now() + timedelta(hours=1)).isoformat()
    conversations.append_user_message(conversation=conversation, content="Make a.csv")
    _answer_in(conversation, {"id": "container_011CA", "expires_at": later})
    conversations.append_user_message(conversation=conversation, content="Plot it")
    _answer_in(conversation, None)  # a turn without code execution keeps the container
    conversations.append_user_message(conversation=conversation, content="And again")

    _, body = conversations.next_request(conversation=conversation)
    assert body["container"] == "container_011CA"


def test_an_expired_container_is_not_sent(conversation: Conversation) -> None:
    earlier = (timezone.now() - timedelta(minutes=1)).isoformat()
    conversations.append_user_message(conversation=conversation, content="Make a.csv")
    _answer_in(conversation, {"id": "container_011CA", "expires_at": earlier})
    conversations.append_user_message(conversation=conversation, content="Plot it")

    _, body = conversations.next_request(conversation=conversation)
    assert "container" not in body


def test_the_container_goes_back_only_on_the_anthropic_dialect(conversation: Conversation) -> None:
    compatible = Profile(
        name="ollama",
        label="Ollama",
        kind="custom",
        base_url="http://x",
        auth="none",
        models=("qwen3",),
        dialect="compatible",
    )
    conversations.append_user_message(conversation=conversation, content="Make a.csv")
    _answer_in(conversation, {"id": "container_011CA"})
    conversations.append_user_message(conversation=conversation, content="Plot it")
    moved = conversation.settings.model_copy(update={"profile": "ollama", "model": "qwen3"})
    Conversation.objects.filter(pk=conversation.pk).update(settings=moved)
    conversation.refresh_from_db()

    with override_settings(PLAYGROUND_PROFILES={"ollama": compatible}):
        _, body = conversations.next_request(conversation=conversation)
    assert "container" not in body


def test_a_container_left_on_another_branch_is_not_sent(conversation: Conversation) -> None:
    first = conversations.append_user_message(conversation=conversation, content="Make a.csv")
    _answer_in(conversation, {"id": "container_011CA"})
    # The person edits the first message: the new branch has no run with a container.
    conversations.edit_message(conversation=conversation, message_id=first.id, content="Hi")

    _, body = conversations.next_request(conversation=conversation)
    assert "container" not in body
