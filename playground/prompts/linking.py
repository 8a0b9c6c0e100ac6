"""Prompts and conversations: a version opened as a conversation, a conversation saved as a
version, and how far a conversation has drifted from the version it started from.

Rules:
- A conversation started from a version holds its settings, its template messages as turns
  (placeholders kept, as every conversation keeps them), its variables' defaults as values and
  its mocks; ``PromptUse`` records the version.
- Drift is measured on what the version defines: the settings, the tools, the output schema,
  the mocks, and the template turns as the first turns of the branch on screen. Turns after
  them are the conversation's use of the prompt, and the variables' values are the person's
  test values: neither is drift. Saving the drift makes the next version from the
  conversation's settings and its first turns (as many as the template had), the variables'
  defaults kept.
- "Save as a prompt version" from any conversation takes the whole branch on screen.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction

from playground import conversations
from playground.models import Conversation, Prompt, PromptUse, PromptVersion
from playground.prompts import conversation_settings as settings_bridge
from playground.prompts.definition import SETTING_KEYS, from_conversation, settings_of_definition
from playground.prompts.services import Saved, create_prompt, save_version
from playground.protocol.errors import NotFound, RequestValidationError

__all__ = [
    "drift_of",
    "origin_of",
    "save_conversation",
    "save_drift",
    "start_conversation",
]

#: What drift compares: every key but the variables' values (the person's test values).
_DRIFT_KEYS = ("profile", "model", "system", "messages", "tools", "output_config", "settings",
               "tool_mocks")  # fmt: skip


def start_conversation(*, version: PromptVersion, owner: AbstractBaseUser) -> Conversation:
    """A new conversation holding ``version`` (see the module rules)."""
    definition = version.definition
    prompt = version.prompt
    title = f"{prompt.name} v{version.number}"[: conversations.TITLE_MAX]
    conversation = settings_bridge.draft(
        settings_of_definition(definition),
        owner=owner,
        title=title,
        variables=dict(definition["variables"]),
        tool_mocks=list(definition["tool_mocks"]),
    )
    try:
        settings_bridge.validate(conversation)
    except RequestValidationError as exc:
        raise RequestValidationError(
            f"v{version.number} cannot open here: {exc.reason}", field=exc.field
        ) from exc
    turns = [(message["role"], message["content"]) for message in definition["messages"]]
    with transaction.atomic():
        stored = conversations.store_new_conversation(conversation=conversation, turns=turns)
        PromptUse.objects.create(conversation=stored, version=version)
    return stored


def origin_of(conversation: Conversation) -> PromptVersion | None:
    """The version the conversation started from, if it did."""
    use = PromptUse.objects.filter(conversation=conversation).select_related("version__prompt")
    found = use.first()
    return found.version if found is not None else None


def _drifted_definition(conversation: Conversation, version: PromptVersion) -> dict[str, Any]:
    """The conversation's definition, measured the way drift is (module rules)."""
    template = version.definition["messages"]
    path = [message.as_api() for message in conversations.path_of(conversation)]
    mine = from_conversation(conversation, messages=path[: len(template)])
    mine["variables"] = dict(version.definition["variables"])
    return mine


def drift_of(conversation: Conversation) -> dict[str, Any] | None:
    """``None`` for a conversation started from no version; else ``{prompt, version,
    drifted, changed: [key…], newest}``: which parts of the definition differ."""
    version = origin_of(conversation)
    if version is None:
        return None
    prompt = version.prompt
    try:
        mine = _drifted_definition(conversation, version)
    except RequestValidationError:
        mine = None  # a conversation the definition's rules no longer take: drifted, whole
    theirs = dict(version.definition)
    # A setting declared since the version was saved: the version has its default.
    defaults = settings_bridge.default_settings()
    theirs["settings"] = {**{key: defaults[key] for key in SETTING_KEYS}, **theirs["settings"]}
    changed = [key for key in _DRIFT_KEYS if mine is None or mine[key] != theirs[key]]
    newest = prompt.versions.order_by("-number").values_list("number", flat=True).first()
    return {
        "prompt": prompt.name,
        "version": version.number,
        "newest": newest,
        "drifted": bool(changed),
        "changed": changed,
    }


def save_drift(
    *, conversation: Conversation, author: AbstractBaseUser, message: str = ""
) -> PromptVersion:
    """The conversation's drift as the prompt's next version; the conversation then follows
    the new version (so it no longer reads as drifted)."""
    version = origin_of(conversation)
    if version is None:
        raise NotFound("this conversation was not started from a prompt version")
    definition = _drifted_definition(conversation, version)
    with transaction.atomic():
        saved = save_version(
            prompt=version.prompt,
            definition=definition,
            author=author,
            message=message,
            origin=f"from a conversation started from v{version.number}",
        )
        PromptUse.objects.filter(conversation=conversation).update(version=saved.version)
    return saved.version


def save_conversation(
    *,
    conversation: Conversation,
    owner: AbstractBaseUser,
    name: str,
    message: str = "",
) -> Saved:
    """The branch on screen as a version of the owner's prompt ``name`` (made when new)."""
    definition = from_conversation(conversation)
    origin = f"from the conversation {conversation.title or 'Untitled'!r}"[:200]
    prompt = Prompt.objects.filter(owner=owner, name=name).first()
    if prompt is None:
        version = create_prompt(
            owner=owner, name=name, definition=definition, message=message, origin=origin
        )
        return Saved(version=version, created=True)
    return save_version(
        prompt=prompt, definition=definition, author=owner, message=message, origin=origin
    )
