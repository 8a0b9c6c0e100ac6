"""JSON endpoints for conversations and their messages under ``/api/conversations/``.

Rule: each endpoint is wrapped by :func:`playground.web.endpoint.endpoint` (method, user, body,
one error shape), reads its body with its shape (``conversations.shapes``, before it looks
anything up, so a malformed body is refused first) and calls ``playground.conversations``; no
state change happens here.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.http import HttpRequest, HttpResponse, JsonResponse

from playground import conversations
from playground.conversations.paging import page_of, page_size
from playground.conversations.serialize import serialize_summary
from playground.conversations.shapes import (
    ForkBody,
    McpApprovalBody,
    McpMarksBody,
    MocksBody,
    RequestCheck,
    SelectBody,
    ToolResultsBody,
    UserTurn,
    VariablesBody,
)
from playground.models import Conversation
from playground.protocol.shape import parse
from playground.web.endpoint import endpoint


@endpoint("GET", "POST")
def conversation_collection(
    request: HttpRequest, *, owner: AbstractBaseUser, body: dict[str, Any]
) -> HttpResponse:
    """GET: ``{"conversations": [summary + match], "next": cursor | null}``, a page of them
    (``conversations.paging``: ``?limit=``, 50 by default, and ``?before=`` a page's ``next``);
    ``?q=`` keeps those whose title holds it or whose messages hold each of its words,
    ``match`` the first such message's ``{position, snippet}`` (null for a title match or no
    query). POST: create from settings fields; 201.
    POST ``?reuse=untouched`` with no fields (the page's "New conversation"): the newest
    conversation still as created, 200, or a new one, 201."""
    if request.method == "POST" and request.GET.get("reuse") == "untouched" and not body:
        conversation, created = conversations.new_or_untouched_conversation(owner=owner)
        return JsonResponse(
            conversations.serialize_conversation(conversation), status=201 if created else 200
        )
    if request.method == "POST":
        conversations.check_fields(body)  # first: an unknown key is no keyword argument
        conversation = conversations.create_conversation(owner=owner, **body)
        return JsonResponse(conversations.serialize_conversation(conversation), status=201)
    limit = page_size(request.GET.get("limit"))
    found, hits = conversations.search_conversations(owner=owner, query=request.GET.get("q", ""))
    page = page_of(found, limit=limit, before=request.GET.get("before") or None)
    listed = []
    for item in page.conversations:
        hit = hits.get(item.pk)
        match = {"position": hit.position, "snippet": hit.snippet} if hit else None
        listed.append({**serialize_summary(item), "match": match})
    return JsonResponse({"conversations": listed, "next": page.next})


@endpoint("GET", "PATCH", "DELETE")
def conversation_detail(
    request: HttpRequest, *, owner: AbstractBaseUser, body: dict[str, Any], conversation_id: str
) -> HttpResponse:
    """GET the conversation; PATCH settings (and title): a move to another profile answers
    with ``profile_check`` too (``profile_move``); DELETE it (204)."""
    conversation = conversations.get_conversation(owner=owner, conversation_id=conversation_id)
    if request.method == "DELETE":
        conversations.delete_conversation(conversation=conversation)
        return HttpResponse(status=204)
    if request.method == "PATCH":
        was = conversations.profile_named(conversation.settings.profile)
        conversation = conversations.update_settings(conversation=conversation, changes=body)
        if conversation.settings.profile != was.name:
            # Checked by the new profile's rules now, so the page says so before Send.
            answer = conversations.serialize_conversation(conversation)
            answer["profile_check"] = conversations.profile_move_check(conversation, was=was)
            return JsonResponse(answer)
    return JsonResponse(conversations.serialize_conversation(conversation))


@endpoint("POST")
def conversation_fork(
    request: HttpRequest, *, owner: AbstractBaseUser, body: dict[str, Any], conversation_id: str
) -> HttpResponse:
    """Body ``{upto_position?: int | null}``; 201 with the new conversation."""
    fork_body = parse(ForkBody, body)
    conversation = conversations.get_conversation(owner=owner, conversation_id=conversation_id)
    fork = conversations.fork_conversation(
        conversation=conversation, owner=owner, upto_position=fork_body.upto_position
    )
    return JsonResponse(conversations.serialize_conversation(fork), status=201)


@endpoint("GET", "POST")
def conversation_request(
    request: HttpRequest, *, owner: AbstractBaseUser, body: dict[str, Any], conversation_id: str
) -> HttpResponse:
    """GET ``{"profile": public profile, "request": body}``: what the next run would send.

    POST ``{content? | results?, text?, prefill?, continuing?, request?}`` (a check; nothing
    is stored): ``request``
    is what the next run would send once that turn is added, and ``edited`` the body an edit
    would send instead (null without one); a refused edit is the usual 400 error."""
    check = parse(RequestCheck, body) if request.method == "POST" else None
    conversation = conversations.get_conversation(owner=owner, conversation_id=conversation_id)
    if check is None:
        continuing = conversations.ends_awaiting_continuation(conversation)
        profile, request_body = conversations.next_request(
            conversation=conversation, continuing=continuing
        )
        return JsonResponse({"profile": profile.public(), "request": request_body})
    profile, request_body = conversations.draft_request(conversation=conversation, turn=check)
    edited = None
    if check.request is not None:
        _, edited = conversations.edited_request(conversation=conversation, request=check.request)
    return JsonResponse({"profile": profile.public(), "request": request_body, "edited": edited})


@endpoint("POST")
def conversation_rendered_prompt(
    request: HttpRequest, *, owner: AbstractBaseUser, body: dict[str, Any], conversation_id: str
) -> HttpResponse:
    """Body as ``…/request/``'s POST (``{content? | results?, text?, request?}``): the prompt
    text the profile's upstream renders the next request into (the edit, when ``request`` is
    given): ``{"profile": public profile, "text", "notes": [sentence]}``. Nothing is stored; a
    profile with no chat render is a 409, the upstream's refusal or silence a 502."""
    check = parse(RequestCheck, body)
    conversation = conversations.get_conversation(owner=owner, conversation_id=conversation_id)
    rendered = conversations.rendered_prompt(conversation=conversation, check=check)
    return JsonResponse(
        {
            "profile": rendered.profile.public(),
            "text": rendered.text,
            "notes": list(rendered.notes),
        }
    )


@endpoint("POST")
def conversation_token_count(
    request: HttpRequest, *, owner: AbstractBaseUser, body: dict[str, Any], conversation_id: str
) -> HttpResponse:
    """Body as ``…/request/``'s POST: the next request's input tokens, asked of the upstream
    by the server with the profile's key (``token_count``): ``{"input_tokens", "method",
    "estimated", "note"}``. Nothing is stored; the upstream's refusal or silence is a 502."""
    check = parse(RequestCheck, body)
    conversation = conversations.get_conversation(owner=owner, conversation_id=conversation_id)
    counted = conversations.count_tokens(conversation=conversation, check=check)
    return JsonResponse(counted.as_dict())


@endpoint("GET", "PUT")
def conversation_mocks(
    request: HttpRequest, *, owner: AbstractBaseUser, body: dict[str, Any], conversation_id: str
) -> HttpResponse:
    """GET ``{"tool_mocks": [...]}``; PUT the same to replace the list (the stored list back)."""
    mocks_body = parse(MocksBody, body) if request.method == "PUT" else None
    conversation = conversations.get_conversation(owner=owner, conversation_id=conversation_id)
    if mocks_body is not None:
        conversations.set_tool_mocks(conversation=conversation, mocks=mocks_body.tool_mocks)
    return JsonResponse({"tool_mocks": conversation.tool_mocks})


@endpoint("GET", "POST")
def conversation_mcp_marks(
    request: HttpRequest, *, owner: AbstractBaseUser, body: dict[str, Any], conversation_id: str
) -> HttpResponse:
    """GET ``{"mcp_tools": {name: {server, mcp_name}}}``; POST the same to add those marks
    (``conversations.mcp_marks``); the conversation's marks back."""
    marks_body = parse(McpMarksBody, body) if request.method == "POST" else None
    conversation = conversations.get_conversation(owner=owner, conversation_id=conversation_id)
    if marks_body is not None:
        conversations.add_mcp_marks(conversation=conversation, marks=marks_body.mcp_tools)
    return JsonResponse({"mcp_tools": conversation.mcp_tools})


@endpoint("POST")
def conversation_mcp_approval(
    request: HttpRequest, *, owner: AbstractBaseUser, body: dict[str, Any], conversation_id: str
) -> HttpResponse:
    """POST ``{"server", "approval": "ask"|"auto"|null}``: which servers' tools run without a
    click (``protocol.mcp_approval``); ``{"mcp_approval": {"servers": {…}}}`` back."""
    fields = parse(McpApprovalBody, body)
    conversation = conversations.get_conversation(owner=owner, conversation_id=conversation_id)
    policy = conversations.set_mcp_approval(
        conversation=conversation, server=fields.server, approval=fields.approval
    )
    return JsonResponse({"mcp_approval": policy})


@endpoint("POST")
def conversation_turns(
    request: HttpRequest, *, owner: AbstractBaseUser, body: dict[str, Any], conversation_id: str
) -> HttpResponse:
    """POST ``{"turns": [{role, content}, …]}``: turns appended as they are, none run (a
    prompt's, ``conversations.inserted_turns``); the conversation back, as it is drawn."""
    conversation = conversations.get_conversation(owner=owner, conversation_id=conversation_id)
    conversations.append_turns(conversation=conversation, body=body)
    fresh = conversations.get_conversation(owner=owner, conversation_id=conversation_id)
    return JsonResponse(conversations.serialize_conversation(fresh))


@endpoint("PUT")
def conversation_variables(
    request: HttpRequest, *, owner: AbstractBaseUser, body: dict[str, Any], conversation_id: str
) -> HttpResponse:
    """Body ``{variables: {name: text}}``: the prompt variables' values, all of them (a name
    left out is forgotten); returns the conversation."""
    variables = parse(VariablesBody, body).variables
    conversation = conversations.get_conversation(owner=owner, conversation_id=conversation_id)
    conversation = conversations.update_variables(conversation=conversation, values=variables)
    return JsonResponse(conversations.serialize_conversation(conversation))


@endpoint("POST")
def conversation_tool_results(
    request: HttpRequest, *, owner: AbstractBaseUser, body: dict[str, Any], conversation_id: str
) -> HttpResponse:
    """Body ``{results: [{tool_use_id, content, is_error?}], text?}``; stores the turn and
    returns the conversation (201). It starts no run: the WebSocket ``tool_results`` does."""
    parse(ToolResultsBody, body)
    return _changed(
        owner,
        conversation_id,
        lambda conversation: conversations.append_tool_results(
            conversation=conversation, results=body["results"], text=body.get("text")
        ),
        status=201,
    )


@endpoint("PATCH")
def message_detail(
    request: HttpRequest,
    *,
    owner: AbstractBaseUser,
    body: dict[str, Any],
    conversation_id: str,
    message_id: str,
) -> HttpResponse:
    """Body ``{content: str | blocks}``: edit a user message. The edit is a new alternative of
    it, on screen; the old message and what followed it stay as a branch (``select``)."""
    parse(UserTurn, body)
    return _changed(
        owner,
        conversation_id,
        lambda conversation: conversations.edit_message(
            conversation=conversation, message_id=message_id, content=body["content"]
        ),
    )


@endpoint("POST")
def message_select(
    request: HttpRequest,
    *,
    owner: AbstractBaseUser,
    body: dict[str, Any],
    conversation_id: str,
    message_id: str,
) -> HttpResponse:
    """Body ``{}``: put the branch through this message on screen (with, below it, the latest
    alternative of each later turn) and return the conversation. The next request, a share
    and an export take that branch. Refused while a run is live (409 ``busy``)."""
    fields: Any = parse(SelectBody, body)
    return _changed(
        owner,
        conversation_id,
        lambda conversation: conversations.select_message(
            conversation=conversation,
            message_id=message_id,
            adopt_settings=fields.adopt_settings,
        ),
    )


def _changed(
    owner: AbstractBaseUser,
    conversation_id: str,
    change: Callable[[Conversation], object],
    *,
    status: int = 200,
) -> JsonResponse:
    """Apply ``change`` (a service call) to the owner's conversation; answer with the
    conversation as it now stands, reloaded (the service wrote through a locked copy)."""
    conversation = conversations.get_conversation(owner=owner, conversation_id=conversation_id)
    change(conversation)
    conversation.refresh_from_db()
    return JsonResponse(conversations.serialize_conversation(conversation), status=status)
