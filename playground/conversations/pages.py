"""HTML pages: the conversation list (with "new") and a conversation.

Rule: pages render state, they change nothing but through ``playground.conversations`` (the
one form POST creates a conversation). Server values reach the page's JavaScript through one
``json_script`` payload (``page_data``), never inline script. JSON endpoints are in
``playground.conversations.api``.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.contrib.auth.views import redirect_to_login
from django.http import Http404, HttpRequest, HttpResponse
from django.middleware.csrf import get_token
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.csrf import ensure_csrf_cookie
from django.views.decorators.http import require_http_methods

from playground import conversations
from playground.conversations.paging import PAGE_SIZE, page_of
from playground.conversations.serialize import serialize_summary, shown_title
from playground.protocol.adapters import BUILT_IN
from playground.protocol.errors import NotFound, RequestValidationError
from playground.protocol.limits import page_limits
from playground.protocol.request_settings import TOOL_CHOICE_TYPES
from playground.protocol.settings_table import SETTINGS, Setting
from playground.usage.budgets import limits_left
from playground.usage.views import is_staff
from playground.web.ownership import acting_user

#: Fields the "new conversation" form may send (the rest is set on the conversation page).
FORM_FIELDS = ("title", "profile", "model", "system")


def _profiles() -> list[dict[str, Any]]:
    return [profile.public() for profile in settings.PLAYGROUND_PROFILES.values()]


def _common_urls() -> dict[str, str]:
    return {
        "home": reverse("home"),
        "api_conversations": reverse("api-conversations"),
        "profile_models": reverse("api-profile-models", kwargs={"profile": "PROFILE"}).replace(
            "PROFILE", "{profile}"
        ),
    }


@ensure_csrf_cookie
@require_http_methods(["GET", "POST"])
def home(request: HttpRequest) -> HttpResponse:
    """The conversation list; a form POST creates one and redirects to it.

    Template ``playground/conversation_list.html``, context:
      ``conversations``  the owner's conversations (QuerySet, newest change first)
      ``query``          the ``?q=`` title filter
      ``profiles``       ``[Profile.public()]``: name, label, kind, models, dialect
      ``simulator_url``  the simulator's base URL (shown on the page)
      ``error``          ``{"code","message","field"}`` when a form POST was refused, else None
      ``form_values``    what that refused POST held (the form shows it again), else {}
      ``page_data``      for ``json_script``: ``{"profiles", "conversations": [summary]`` (the
                         list's first page, ``conversations.paging``),
                         "urls": {"home", "api_conversations"}, "csrf_token"}``; a summary is
                         ``{id, title, profile, model, created_at, updated_at, url}``
    """
    owner = acting_user(request.user)
    if owner is None:
        return redirect_to_login(request.get_full_path())
    error = None
    status = 200
    form_values: dict[str, str] = {}
    if request.method == "POST":
        form_values = {name: request.POST.get(name, "") for name in ("profile", "model", "title")}
        fields = {
            name: request.POST[name]
            for name in FORM_FIELDS
            if name in request.POST and (request.POST[name].strip() or name == "system")
        }
        try:
            conversation = conversations.create_conversation(owner=owner, **fields)
        except RequestValidationError as exc:
            error, status = exc.as_dict(), exc.http_status
        else:
            return redirect("conversation", conversation_id=conversation.id)
    return _render_list(request, owner=owner, error=error, status=status, form_values=form_values)


def _render_list(
    request: HttpRequest,
    *,
    owner: AbstractBaseUser,
    error: dict[str, Any] | None,
    status: int,
    form_values: dict[str, str] | None = None,
) -> HttpResponse:
    query = request.GET.get("q", "")
    found = conversations.list_conversations(owner=owner, query=query)
    profiles = _profiles()
    page_data = {
        "profiles": profiles,
        "conversations": [
            serialize_summary(item)
            for item in page_of(found, limit=PAGE_SIZE, before=None).conversations
        ],
        "urls": _common_urls(),
        "csrf_token": get_token(request),
    }
    context = {
        "conversations": found,
        "query": query,
        "profiles": profiles,
        "simulator_url": settings.PLAYGROUND_SIMULATOR_URL,
        "error": error,
        "form_values": form_values or {},
        "page_data": page_data,
    }
    return render(request, "playground/conversation_list.html", context, status=status)


@ensure_csrf_cookie
@require_http_methods(["GET"])
def conversation_page(request: HttpRequest, conversation_id: str) -> HttpResponse:
    """One conversation (404 when missing or not the visitor's).

    Template ``playground/conversation.html``, context:
      ``conversation``  the Conversation
      ``profiles``      ``[Profile.public()]``
      ``page_data``     for ``json_script``:
        ``conversation``  ``serialize_conversation``: ``{id, title, profile, model, created_at,
                          updated_at, url, settings: {each setting by name},
                          tool_mocks: [mock], messages: [{id, position, role, content,
                          run: {id, status, profile, model, stop_reason, usage,
                          timings: {started_at, first_event_ms, first_token_ms, duration_ms},
                          error: {code, message, request_id} | null} | null,
                          branch: {index, count, ids}}],
                          pending_tool_uses: [tool_use block],
                          active_run: run | null, last_run: run | null}``
        ``profiles``      as above
        ``urls``          ``home``, ``api_conversations``, ``conversation`` (GET/PATCH/DELETE),
                          ``fork`` (POST), ``request`` (GET next request body),
                          ``mocks`` (GET/PUT saved tool mocks),
                          ``tool_results`` (POST), ``message`` (PATCH; replace ``{message_id}``),
                          ``message_select`` (POST: show that branch),
                          ``run`` and ``run_events`` (GET; replace ``{run_id}``), ``websocket``
                          (a path: prefix ws:// or wss:// and the host), ``attachments``
                          (POST an upload), ``attachment`` (GET; replace ``{sha256}``)
        ``budget_limits`` what the person's limits have left, tightest first
                          (``usage.budgets.limits_left``; ``urls.usage_limits`` answers it again)
        ``limits``        ``{"max_frame_bytes", "max_import_bytes"}`` and the limits table
                          (``protocol.limits.page_limits``: ``tool_name_pattern``…)
        ``csrf_token``    for the ``X-CSRFToken`` header
        ``settings_form`` the form's rows of the settings table (``Setting.describe``: name,
                          label, widget, type (a JSON Schema), default), which the
                          settings panel loads and collects by widget (``settings-fields.js``)
      ``setting_rows``  the settings table, as the form's rows (:func:`setting_rows`)
      ``form_limits``   what the form's widgets need: the limits, the thinking budget's
                        minimum, the tool_choice types
    """
    owner = acting_user(request.user)
    if owner is None:
        return redirect_to_login(request.get_full_path())
    try:
        conversation = conversations.get_conversation(owner=owner, conversation_id=conversation_id)
    except NotFound as exc:
        raise Http404(exc.message) from exc
    profiles = _profiles()
    page_data = {
        "conversation": conversations.serialize_conversation(conversation),
        "profiles": profiles,
        "urls": {
            **_common_urls(),
            **conversation_urls(conversation_id=str(conversation.id)),
            "usage_limits": reverse("api-usage-limits"),
        },
        "limits": {
            "max_frame_bytes": settings.PLAYGROUND_MAX_FRAME_BYTES,
            "max_import_bytes": settings.PLAYGROUND_MAX_IMPORT_BYTES,
            **page_limits(),
        },
        "csrf_token": get_token(request),
        # Whether the MCP panel shows: with a servers file even when it names none yet (it is
        # read again when it changes); the servers themselves come from GET /api/mcp/servers/.
        # In login mode people add servers of their own (``mcp.user_views``), so it shows there.
        "mcp_enabled": bool(
            settings.PLAYGROUND_MCP_CONFIG
            or settings.PLAYGROUND_MCP_SERVERS
            or settings.PLAYGROUND_REQUIRE_LOGIN
        ),
        "mcp_own_servers": bool(settings.PLAYGROUND_REQUIRE_LOGIN),
        "mcp_can_reload": bool(settings.PLAYGROUND_MCP_CONFIG) and is_staff(owner),
        # The settings panel loads and collects each of these rows by its widget.
        "settings_form": [item.describe() for row in setting_rows() for item in row],
        # What the person's limits have left (``usage.budgets``): the top bar's budget chip,
        # asked again (``urls.usage_limits``) after each run ends; none, no chip.
        "budget_limits": limits_left(owner.pk, timezone.now()),
    }
    context = {
        "conversation": conversation,
        "shown_title": shown_title(conversation) or str(conversation),
        "profiles": profiles,
        "page_data": page_data,
        "setting_rows": setting_rows(),
        "form_limits": {
            **page_limits(),
            # The form's default budget: the largest minimum, so every dialect takes it.
            "budget_tokens": max(int(a.rule("thinking").minimum or 1) for a in BUILT_IN),
            "tool_choice_types": TOOL_CHOICE_TYPES,
        },
    }
    return render(request, "playground/conversation.html", context)


def setting_rows() -> list[list[Setting]]:
    """The settings form, from the settings table: one row per setting, the numbers that
    follow each other sharing one (a two-column grid)."""
    rows: list[list[Setting]] = []
    for item in SETTINGS:
        numeric = item.widget in ("integer", "number")
        if numeric and rows and rows[-1][0].widget in ("integer", "number"):
            rows[-1].append(item)
        else:
            rows.append([item])
    return rows


def conversation_urls(*, conversation_id: str) -> dict[str, str]:
    """The API URLs and the WebSocket path a conversation page uses."""
    ids = {"conversation_id": conversation_id}
    run = reverse("api-run", kwargs={"run_id": "RUN"})
    run_events = reverse("api-run-events", kwargs={"run_id": "RUN"})
    message = reverse("api-message", kwargs={**ids, "message_id": "0"})
    select = reverse("api-message-select", kwargs={**ids, "message_id": "0"})
    return {
        "page": reverse("conversation", kwargs=ids),
        "conversation": reverse("api-conversation", kwargs=ids),
        "fork": reverse("api-conversation-fork", kwargs=ids),
        "request": reverse("api-conversation-request", kwargs=ids),
        "mocks": reverse("api-conversation-mocks", kwargs=ids),
        "tool_results": reverse("api-conversation-tool-results", kwargs=ids),
        "variables": reverse("api-conversation-variables", kwargs=ids),
        "mcp_servers": reverse("api-mcp-servers"),
        "mcp_connect": reverse("api-mcp-connect"),
        "mcp_answers": reverse("api-mcp-answers"),
        "mcp_reload": reverse("api-mcp-reload"),
        "mcp_my_servers": reverse("api-mcp-my-servers"),
        "mcp_sessions": reverse("api-mcp-sessions"),
        "mcp_call": reverse("api-mcp-call"),
        "mcp_resources": reverse("api-mcp-resources"),
        "mcp_resource": reverse("api-mcp-resource"),
        "mcp_subscribe": reverse("api-mcp-subscribe"),
        "mcp_prompts": reverse("api-mcp-prompts"),
        "mcp_prompt": reverse("api-mcp-prompt"),
        "mcp_complete": reverse("api-mcp-complete"),
        "mcp_watch": reverse("api-mcp-watch"),
        "mcp_calls": reverse("api-conversation-mcp-calls", kwargs=ids),
        "mcp_marks": reverse("api-conversation-mcp-tools", kwargs=ids),
        "mcp_approval": reverse("api-conversation-mcp-approval", kwargs=ids),
        "turns": reverse("api-conversation-turns", kwargs=ids),
        "message": message.removesuffix("0/") + "{message_id}/",
        "message_select": select.removesuffix("0/select/") + "{message_id}/select/",
        "run": run.replace("RUN", "{run_id}"),
        "run_events": run_events.replace("RUN", "{run_id}"),
        "websocket": f"/ws/conversations/{conversation_id}/",
        # Upload (POST multipart ``file``) and a file by its hash (``playground.attachments``).
        "attachments": reverse("api-attachments"),
        "attachment": reverse("api-attachment", kwargs={"sha256": "SHA"}).replace(
            "SHA", "{sha256}"
        ),
    }
