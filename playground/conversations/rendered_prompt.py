"""The rendered prompt: the next request as the upstream's chat template turns it into text.

Rule: the body rendered is the request editor's, built by the same steps (``next_turn``: the
send's dry run with the turn about to be sent, or the person's edit checked by the profile's
rules), so the prompt shown is the prompt of the request the next run would send. Only a
profile that says it renders (``Profile.renders_prompt``) is asked; the server asks, with the
profile's key, and the browser gets the text, the translation's notes and the public profile.
Nothing is stored.
"""

from __future__ import annotations

from dataclasses import dataclass

from asgiref.sync import async_to_sync
from django.conf import settings

from playground.attachments.store import expand_request
from playground.conversations.fields import profile_named
from playground.conversations.next_turn import draft_request, edited_request
from playground.conversations.shapes import RequestCheck
from playground.models import Conversation
from playground.protocol.chat_render import render_request
from playground.protocol.errors import Conflict
from playground.upstream.profiles import Profile
from playground.upstream.render import fetch_rendered_prompt

__all__ = ["RenderedPrompt", "rendered_prompt"]


@dataclass(frozen=True, slots=True)
class RenderedPrompt:
    profile: Profile
    text: str
    notes: tuple[str, ...]


def _offering(conversation: Conversation) -> Profile:
    profile = profile_named(conversation.settings.profile)
    if not profile.renders_prompt:
        offering = [p.label for p in settings.PLAYGROUND_PROFILES.values() if p.renders_prompt]
        hint = f" (these do: {', '.join(offering)})" if offering else ""
        raise Conflict(
            f"the profile {profile.label!r} offers no rendered prompt: only an upstream with a "
            f"chat render endpoint does, such as FriendliAI Dedicated{hint}"
        )
    if profile.side_url("render") is None:
        raise Conflict(f"the profile {profile.label!r}: {profile.adapter.no_door('render')}")
    return profile


def rendered_prompt(*, conversation: Conversation, check: RequestCheck) -> RenderedPrompt:
    """The prompt text of the next request (``check.request``, the edit, when given)."""
    profile = _offering(conversation)
    if check.request is not None:
        _, body = edited_request(conversation=conversation, request=check.request)
    else:
        _, body = draft_request(conversation=conversation, turn=check)
    # Files are held by reference until a request leaves: the upstream renders their bytes.
    translated = render_request(expand_request(owner_id=conversation.owner_id, body=body))
    text = async_to_sync(fetch_rendered_prompt)(
        profile, translated.body, timeout=settings.PLAYGROUND_RENDER_TIMEOUT_SECONDS
    )
    return RenderedPrompt(profile=profile, text=text, notes=translated.notes)
