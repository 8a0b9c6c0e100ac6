"""What the environment may say about upstreams: each group of variables as a typed model.

Rule: a profile's variables are read here and nowhere else, each group by one model whose
fields are the variables (or, for a custom profile, the keys after
``PLAYGROUND_UPSTREAM_<NAME>_``: :class:`CustomUpstreamKeys`, where **a new key is one field**).
Every ``PLAYGROUND_UPSTREAM_*`` variable handed in belongs to a profile whose ``_BASE_URL`` (or
``_WIRE``) is set, or is refused naming it and the keys a profile takes; a bad value is refused
naming the variable, the value and what it takes (``environment.described``).
``upstream.profiles`` builds the profiles from these models; settings hands in the environment,
less its own variables.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Annotated, Literal, TypeVar
from urllib.parse import urlsplit

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError
from pydantic_core import PydanticCustomError

from playground.environment import CommaList, Flag, Text, Url, Word, described
from playground.protocol.adapters import dialects_on_messages, wires

ANTHROPIC_VERSION_DEFAULT = "2023-06-01"
FRIENDLI_DEDICATED_URL = "https://api.friendli.ai/dedicated"
FRIENDLI_SERVERLESS_URL = "https://api.friendli.ai/serverless"
ANTHROPIC_URL = "https://api.anthropic.com"
#: A custom profile's variables: this, its NAME, ``_`` and a key (:class:`CustomUpstreamKeys`).
CUSTOM_PREFIX = "PLAYGROUND_UPSTREAM_"
_NAME_RE = re.compile(r"[A-Z0-9][A-Z0-9_]*")


def _known_dialect(raw: str) -> str:
    if raw not in dialects_on_messages():
        raise PydanticCustomError(
            "dialect", "expected one of {choices}", {"choices": ", ".join(dialects_on_messages())}
        )
    return raw


def _known_wire(raw: str) -> str:
    if raw not in wires():
        raise PydanticCustomError(
            "wire", "expected one of {choices}", {"choices": ", ".join(wires())}
        )
    return raw


def _base_url(raw: str) -> str:
    parts = urlsplit(raw)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise PydanticCustomError("base_url", "expected an http:// or https:// URL")
    if raw.endswith("/v1/messages") or raw.endswith("/v1"):
        raise PydanticCustomError(
            "base_url", "give the base URL without /v1/messages (the playground appends it)"
        )
    return raw


#: A profile's base URL, without its trailing slash and without ``/v1/messages``.
BaseUrl = Annotated[Url, AfterValidator(_base_url)]
# Anthropic's rules unless told otherwise: they are the strictest, so a custom server that is
# Anthropic behind a proxy (LiteLLM, a gateway) gets its refusals before sending, and a server
# that needs less says so once, in its DIALECT.
Dialect = Annotated[str, Word, AfterValidator(_known_dialect)]
# The wire format (``protocol.adapters``: its adapter's URL, headers, body and stream): the
# Messages API's unless named; another wire has its own rules, so it takes no DIALECT.
Wire = Annotated[str, Word, AfterValidator(_known_wire)]
AuthStyle = Annotated[Literal["bearer", "x-api-key", "none"], Word]


class CustomUpstreamKeys(BaseModel):
    """One custom profile's keys: ``PLAYGROUND_UPSTREAM_<NAME>_`` and a field's name.

    Adding a key is one field here (README.md's "Upstreams" says what it means); a variable of
    that shape with any other suffix stops start-up naming it and these."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    # The profile exists because this (or WIRE) is set; a wire that knows its host from the
    # place (Vertex AI's region) needs none.
    BASE_URL: BaseUrl | None = None
    AUTH: AuthStyle = "bearer"
    API_KEY: Text = Field(default="", repr=False)
    LABEL: str = ""
    MODELS: CommaList = ()
    # 1: it serves FriendliAI's chat render (the adapter's render side door).
    RENDER: Flag = False
    DIALECT: Dialect = "anthropic"
    WIRE: Wire = "messages"
    # Where on a wire addressed by them (Vertex AI's region and project).
    REGION: Text = ""
    PROJECT: Text = ""
    # A bearer token read at send time and refreshed before it expires (upstream.credentials):
    # a command's output, or a file's text; instead of API_KEY.
    TOKEN_COMMAND: Text = ""
    TOKEN_FILE: Text = ""


class FriendliKeys(BaseModel):
    """FriendliAI's keys: one token and team for both products, each product's own three."""

    model_config = ConfigDict(frozen=True)

    FRIENDLI_TOKEN: Text = Field(default="", repr=False)
    FRIENDLI_TEAM: Text = ""
    FRIENDLI_DEDICATED_BASE_URL: BaseUrl = FRIENDLI_DEDICATED_URL
    FRIENDLI_DEDICATED_MODELS: CommaList = ()
    # Both products document chat/render; Dedicated's is the one offered unasked (an
    # endpoint's own template is what a person debugs there).
    FRIENDLI_DEDICATED_RENDER: Flag = True
    FRIENDLI_SERVERLESS_BASE_URL: BaseUrl = FRIENDLI_SERVERLESS_URL
    FRIENDLI_SERVERLESS_MODELS: CommaList = ()
    FRIENDLI_SERVERLESS_RENDER: Flag = False


class AnthropicKeys(BaseModel):
    model_config = ConfigDict(frozen=True)

    ANTHROPIC_API_KEY: Text = Field(default="", repr=False)
    ANTHROPIC_BASE_URL: BaseUrl = ANTHROPIC_URL
    ANTHROPIC_VERSION: Text = ANTHROPIC_VERSION_DEFAULT
    ANTHROPIC_MODELS: CommaList = ("claude-sonnet-4-5", "claude-opus-4-1", "claude-haiku-4-5")


class SimulatorKeys(BaseModel):
    model_config = ConfigDict(frozen=True)

    PLAYGROUND_SIMULATOR_URL: BaseUrl
    # The simulator's variant with FriendliAI's render endpoint (``simulator-render``).
    PLAYGROUND_SIMULATOR_RENDER: Flag = False


_Keys = TypeVar("_Keys", bound=BaseModel)


def read_keys(model: type[_Keys], values: Mapping[str, str], *, prefix: str = "") -> _Keys:
    """``model`` from ``values`` (empty ones count as unset), or ValueError naming the
    variable (``prefix`` + the field's name), the value and what was expected."""
    given = {name: value for name, value in values.items() if value.strip()}
    if model.model_config.get("extra") != "forbid":
        given = {name: value for name, value in given.items() if name in model.model_fields}
    try:
        return model.model_validate(given)
    except ValidationError as exc:
        raise ValueError(described(exc, prefix=prefix)) from None


def custom_keys(environ: Mapping[str, str]) -> dict[str, dict[str, str]]:
    """Each custom profile's keys by suffix, under its NAME: every ``PLAYGROUND_UPSTREAM_*``
    variable belongs to a profile whose ``_BASE_URL`` is set, or is refused by name."""
    suffixes = sorted(CustomUpstreamKeys.model_fields, key=len, reverse=True)
    known = ", ".join(CustomUpstreamKeys.model_fields)
    variables = sorted(name for name in environ if name.startswith(CUSTOM_PREFIX))
    groups: dict[str, dict[str, str]] = {
        variable.removeprefix(CUSTOM_PREFIX).removesuffix(f"_{key}"): {}
        for variable in variables
        for key in ("BASE_URL", "WIRE")
        if variable.endswith(f"_{key}") and variable != f"{CUSTOM_PREFIX}{key}"
    }
    splits = {
        variable: [
            (rest.removesuffix(f"_{suffix}"), suffix)
            for suffix in suffixes
            if rest.endswith(f"_{suffix}") and len(rest) > len(suffix) + 1
        ]
        for variable in variables
        for rest in [variable.removeprefix(CUSTOM_PREFIX)]
    }
    # A key that is no key first: a misspelt BASE_URL leaves its profile's other keys orphans.
    for variable, candidates in splits.items():
        if not candidates:
            raise ValueError(
                f"{variable}: no such key; a profile's keys are {CUSTOM_PREFIX}<NAME>_ and"
                f" one of {known}"
            )
    for variable, candidates in splits.items():
        # Of two profiles whose names share a start (BOX, BOX_API), the longer name's.
        owners = [(name, suffix) for name, suffix in candidates if name in groups]
        if not owners:
            name = candidates[0][0]
            raise ValueError(
                f"{variable}: no profile {name} ({CUSTOM_PREFIX}{name}_BASE_URL or _WIRE is"
                " not set)"
            )
        name, suffix = max(owners, key=lambda owner: len(owner[0]))
        if not _NAME_RE.fullmatch(name):
            raise ValueError(f"{variable}: a profile's NAME is upper-case letters, digits and _")
        groups[name][suffix] = environ[variable]
    return groups
