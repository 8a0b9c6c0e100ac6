"""The base adapter: the Messages API's wire format, and the questions every adapter answers.

Rule: what differs between upstreams is asked of the profile's adapter, never decided by
comparing a dialect's name. An adapter owns its wire (the URL and path, the headers and auth,
the body as sent, a decoder per stream, its error bodies and request ids: ``wire``) and the
rules its servers check:
each setting's :class:`Rule` (read from the settings table's column of its dialect,
``protocol.settings_table``), and the few flags the
checks of ``request_settings``, ``request_messages`` and ``continuation`` read. The base is the
Messages API as the official SDK reads it, with every check off; an adapter changes only what
its servers do differently, so adding a server's rules is one subclass. Pure.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Literal

from playground.protocol.adapters.error_bodies import ErrorBody, error_in, read_error_body
from playground.protocol.adapters.wire import Decoder, MessagesDecoder, Place, Redact
from playground.protocol.errors import MalformedEventError
from playground.protocol.events import ErrorEvent, Event, parse_event
from playground.protocol.settings_table import EACH, SETTINGS, Rule, setting

if TYPE_CHECKING:
    from playground.protocol.settings_table import Settings

__all__ = ["RENDER_PATH", "Adapter", "ErrorBody", "Rule"]

#: FriendliAI's chat render endpoint, after the base URL (``/dedicated``, ``/serverless``): it
#: answers ``{"text": …}``, the prompt after the chat template.
RENDER_PATH = "/v1/chat/render"

#: The settings a request body carries under a key of their own, in the order it sends them.
_SENT = tuple(item for item in SETTINGS if item.request_key not in (None, EACH))
#: The settings sent as fields of their own (the extra fields).
_SPREAD = tuple(item.name for item in SETTINGS if item.request_key == EACH)


#: A side door's name as the person reads it.
_DOORS = {
    "models": "model list",
    "count_tokens": "token count (count_tokens)",
    "render": "chat render",
    "tokenize": "tokenizer",
}


def _error_of_text(data: str) -> ErrorBody | None:
    """The error a JSON text holds, or None (not JSON, or no error in it)."""
    try:
        decoded = json.loads(data)
    except (ValueError, RecursionError):
        return None
    if not isinstance(decoded, dict) or "type" in decoded:
        return None
    return error_in(decoded)


class Adapter:
    """One upstream's wire format and rules; the base is the plain Messages API, checks off."""

    #: The dialect's name: a profile's ``dialect``, the configuration's word, the page's.
    name: str = "messages"
    #: The wire format's name, a custom profile's ``WIRE``: the Messages API's unless the
    #: adapter translates at send time (then its name is the dialect a profile gets).
    wire: str = "messages"
    #: The :class:`Place` fields a profile on this wire must give (Vertex AI's region, project).
    needs: tuple[str, ...] = ()
    #: The wire knows its host from the place, so a profile's base URL is optional.
    own_host: bool = False
    #: The upstream lists its models at ``GET {base}/v1/models`` (``upstream.model_list``).
    lists_models: bool = True
    #: Profile headers this wire does not send (a version it carries in its body instead).
    drops_headers: frozenset[str] = frozenset()
    #: Whose rules in the settings table this adapter's checks read: its own name's when
    #: None (a dialect the table does not name reads the rules every dialect shares).
    rules_of: str | None = None
    #: Setting name -> a rule of this adapter's own, over the settings table's (a server the
    #: table does not know, as a test's).
    rules: Mapping[str, Rule] = MappingProxyType({})
    #: The upstream verifies a thinking block's signature sent back: one without is refused.
    verifies_signatures: bool = False
    #: Server tools (web search, code execution...): ``run`` by this upstream, ``refused``
    #: before sending (it would drop them without a word), or ``left`` to the server.
    server_tools: Literal["run", "refused", "left"] = "left"
    #: Thinking excludes forced tool use, a changed temperature and top_k.
    thinking_limits_sampling: bool = False
    #: A final assistant turn (a continuation, a prefill) is checked as the API checks it.
    checks_final_assistant: bool = False
    #: The API has code-execution containers: a follow-up turn names the one it ran in.
    has_containers: bool = False
    #: A ``tool_reference`` in a tool result (a client's tool search) loads the tool named:
    #: Anthropic and SGLang expand it; a server that would read it as nothing refuses it.
    tool_references: bool = True
    #: How the next request's tokens are counted: the API's ``count_tokens``, the chat render
    #: then the tokenizer (where the profile renders prompts), or the estimate.
    token_count: Literal["count_tokens", "tokenize", "estimate"] = "estimate"
    #: Response headers that carry the request id, first found wins.
    request_id_headers: tuple[str, ...] = ("request-id", "x-request-id")
    #: The side doors this wire has, each a path after the base URL: the model list, the
    #: count (``count_tokens``), FriendliAI's chat render and tokenizer. A door missing here
    #: is refused by :meth:`side_url` with :attr:`no_door_why`, never tried.
    side_doors: Mapping[str, str] = MappingProxyType(
        {
            "models": "/v1/models",
            "count_tokens": "/v1/messages/count_tokens",
            "render": RENDER_PATH,
            "tokenize": "/v1/tokenize",
        }
    )
    #: Why a door is missing, for the person (after "the <wire> wire has no <door>").
    no_door_why: str = ""
    #: The Python SDK that speaks this wire, for the "View code" script: Anthropic's client,
    #: its Vertex AI client, or OpenAI's (``transfer/snippets``).
    sdk: Literal["anthropic", "anthropic-vertex", "openai"] = "anthropic"
    #: The answer streams the Messages API's own events, as they are (so a plain SSE reader
    #: of Messages events reads it).
    streams_messages: bool = True

    def rule(self, name: str) -> Rule:
        """What this adapter allows of the setting ``name``."""
        own = self.rules.get(name)
        return own if own is not None else setting(name).rule(self.rules_of or self.name)

    def __repr__(self) -> str:
        return f"<adapter {self.name}>"

    # -- the request ---------------------------------------------------------------------

    def request_body(
        self,
        *,
        settings: Settings,
        messages: Sequence[dict[str, Any]],
        stream: bool,
        container: str | None,
    ) -> dict[str, Any]:
        """The body of a checked request. It never carries a null or an empty optional
        field, and ``messages`` is a new list of the very objects given (assistant turns go
        back as received); ``container`` only where the API has containers."""
        body: dict[str, Any] = {}
        for item in _SENT:
            value = getattr(settings, item.name)
            # Left out: None, and an empty string or list ("no system prompt", "no tools").
            if value is not None and not (isinstance(value, str | list) and not value):
                body[item.request_key or item.name] = (
                    list(value) if isinstance(value, list) else value
                )
            if item.name == "system":
                body["messages"] = list(messages)
        # The fields the settings table does not know, each under its own name (checked to
        # carry no credential: ``protocol.extra_fields``).
        for name in _SPREAD:
            body.update(getattr(settings, name))
        if container and self.has_containers:
            body["container"] = container
        body["stream"] = stream
        return body

    # -- the wire -------------------------------------------------------------------------

    def url(self, place: Place, *, model: str) -> str:
        """Where a streamed request for ``model`` goes."""
        return f"{place.base_url}/v1/messages"

    def side_url(self, place: Place, door: str) -> str | None:
        """Where the side request ``door`` (a key of :attr:`side_doors`) goes, or None when
        this wire has no such door (:meth:`no_door` says so)."""
        path = self.side_doors.get(door)
        return None if path is None else f"{place.base_url}{path}"

    def no_door(self, door: str) -> str:
        """The words for a side request this wire cannot make."""
        what = _DOORS.get(door, door)
        why = f": {self.no_door_why}" if self.no_door_why else ""
        return f"the {self.wire} wire has no {what}{why}"

    def auth_headers(
        self, *, auth: str, credential: str, extra: Iterable[tuple[str, str]] = ()
    ) -> dict[str, str]:
        """The headers that say who is asking (the credential included: never log these), and
        the profile's own ``extra`` ones this wire sends."""
        headers = {name: value for name, value in extra if name not in self.drops_headers}
        if credential:
            if auth == "bearer":
                headers["authorization"] = f"Bearer {credential}"
            elif auth == "x-api-key":
                headers["x-api-key"] = credential
        return headers

    def wire_body(self, body: dict[str, Any]) -> dict[str, Any]:
        """The body as it goes on this wire, from the Messages body we store and edit (which is
        never changed). RequestValidationError naming the field that has no place on this wire;
        the base sends the Messages body itself."""
        return body

    def decoder(self, redact: Redact) -> Decoder:
        """A fresh reader for one response, keeping what the stream has said so far."""
        return MessagesDecoder(redact)

    def parse_event(self, data: str, name: str) -> Event:
        """The protocol event of one event's (redacted) data; MalformedEventError if none.

        An error is read in every shape the servers write one (``error_bodies``): its type
        from the server's code when it gives no type (GLM, DashScope), and data with no
        ``type`` whose ``error`` is an object (LiteLLM's proxy, OpenAI's error chunk) is an
        error event, not a malformed one."""
        try:
            event = parse_event(data, name)
        except MalformedEventError:
            said = _error_of_text(data)
            if said is None:
                raise
            return ErrorEvent(
                said.error_type,
                said.message or "the upstream reported an error",
                said.request_id,
                json.loads(data),
            )
        if isinstance(event, ErrorEvent) and event.error_type is None:
            said = error_in(event.raw)
            if said is not None and said.error_type is not None:
                return ErrorEvent(
                    said.error_type, said.message or event.message, event.request_id, event.raw
                )
        return event

    # -- errors --------------------------------------------------------------------------

    def error_body(self, body: bytes) -> ErrorBody:
        """What an error body says, read defensively in every shape the servers write one
        (``error_bodies``: the Messages API's, OpenAI's, GLM's, DashScope's, MiniMax's, a
        bare string); anything else says nothing."""
        return read_error_body(body)

    def request_id(self, headers: Mapping[str, str]) -> str | None:
        """The request id a response's headers carry (not yet scrubbed of the key)."""
        value = None
        for header in self.request_id_headers:
            value = headers.get(header)
            if value:
                break
        return value
