"""Upstream profiles: which servers the playground may call, and how to authenticate.

Rule: profiles are built once, by settings, from the environment it passes in; a profile
exists only when configured (the simulator always). Keys live only on the server: a
profile's :meth:`Profile.public` view, the only one meant for a page, an export or a log,
has no key and no URL.

A profile also says whether its upstream renders a conversation into the model's prompt text
(``renders_prompt``: FriendliAI's ``POST {base}/v1/chat/render``, the path kept here as
:data:`RENDER_PATH`): FriendliAI Dedicated does by default, anything else only when configured
to (``FRIENDLI_SERVERLESS_RENDER``, ``PLAYGROUND_UPSTREAM_<NAME>_RENDER``), and the built-in
simulator's variant ``simulator-render`` (``PLAYGROUND_SIMULATOR_RENDER=1``) does too.

A profile's ``dialect`` names its adapter (``protocol.adapters``: its wire format and the rules
its requests are checked by, :attr:`Profile.adapter`): ``friendli`` for FriendliAI's,
``anthropic`` for the rest unless a custom profile names another registered one
(``PLAYGROUND_UPSTREAM_<NAME>_DIALECT``).

This module imports no I/O library, so settings can import it cheaply.
"""

from __future__ import annotations

import hashlib
import hmac
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any
from urllib.parse import urlsplit

from playground.protocol.adapters import Adapter, adapter_for, dialects

AUTH_STYLES = ("bearer", "x-api-key", "none")
ANTHROPIC_VERSION_DEFAULT = "2023-06-01"
FRIENDLI_DEDICATED_URL = "https://api.friendli.ai/dedicated"
FRIENDLI_SERVERLESS_URL = "https://api.friendli.ai/serverless"
ANTHROPIC_URL = "https://api.anthropic.com"
SIMULATOR_MODELS = ("simulator-1", "simulator-1-thinking")
#: FriendliAI's chat render endpoint, after the profile's base URL (``/dedicated``,
#: ``/serverless``): it answers ``{"text": …}``, the prompt after the chat template.
RENDER_PATH = "/v1/chat/render"
_FLAG_WORDS = {"1": True, "true": True, "yes": True, "on": True}
_FLAG_WORDS |= {"0": False, "false": False, "no": False, "off": False}

_CUSTOM_RE = re.compile(r"^PLAYGROUND_UPSTREAM_([A-Z0-9][A-Z0-9_]*)_BASE_URL$")


@dataclass(frozen=True, slots=True)
class Profile:
    """One configured upstream.

    ``dialect`` selects request validation rules: ``anthropic`` (Anthropic's stricter rules,
    used for the simulator and, unless configured otherwise, custom servers too), ``friendli``
    or ``compatible`` (vLLM, llama.cpp, Ollama, LiteLLM). ``lists_models``: the
    upstream serves ``GET /v1/models`` (``upstream.model_list``); FriendliAI Dedicated does
    not (a model there is an endpoint id), so its names come only from the configuration.
    ``renders_prompt``: the upstream serves :data:`RENDER_PATH` (see the module docstring).
    """

    name: str
    label: str
    kind: str
    base_url: str
    auth: str
    api_key: str = field(default="", repr=False)
    headers: tuple[tuple[str, str], ...] = ()
    models: tuple[str, ...] = ()
    dialect: str = "anthropic"
    lists_models: bool = True
    renders_prompt: bool = False

    @property
    def adapter(self) -> Adapter:
        """The adapter of the profile's dialect: its wire format and its rules."""
        return adapter_for(self.dialect)

    @property
    def messages_url(self) -> str:
        return f"{self.base_url}/v1/messages"

    @property
    def render_url(self) -> str:
        return f"{self.base_url}{RENDER_PATH}"

    @property
    def count_tokens_url(self) -> str:
        """Anthropic's token count (the simulator serves it too)."""
        return f"{self.base_url}/v1/messages/count_tokens"

    @property
    def tokenize_url(self) -> str:
        """FriendliAI's tokenizer (``/dedicated``, ``/serverless`` and Container alike)."""
        return f"{self.base_url}/v1/tokenize"

    @property
    def models_url(self) -> str:
        return f"{self.base_url}/v1/models"

    def auth_headers(self) -> dict[str, str]:
        """Headers for a request, the key included: never log or return these."""
        headers = dict(self.headers)
        if self.api_key:
            if self.auth == "bearer":
                headers["authorization"] = f"Bearer {self.api_key}"
            elif self.auth == "x-api-key":
                headers["x-api-key"] = self.api_key
        return headers

    def public(self) -> dict[str, Any]:
        """What a browser may know of this profile: no key, no URL, no headers."""
        return {
            "name": self.name,
            "label": self.label,
            "kind": self.kind,
            "models": list(self.models),
            "dialect": self.dialect,
            "renders_prompt": self.renders_prompt,
        }


def _split_list(raw: str | None) -> tuple[str, ...]:
    return tuple(item.strip() for item in (raw or "").split(",") if item.strip())


def _flag(environ: Mapping[str, str], variable: str, *, default: bool) -> bool:
    raw = environ.get(variable, "").strip().lower()
    if not raw:
        return default
    if raw not in _FLAG_WORDS:
        raise ValueError(f"{variable}={raw!r}: expected 1 or 0 (true/false, yes/no, on/off)")
    return _FLAG_WORDS[raw]


def _dialect(environ: Mapping[str, str], variable: str) -> str:
    # Anthropic's rules unless told otherwise: they are the strictest, so a custom server that
    # is Anthropic behind a proxy (LiteLLM, a gateway) gets its refusals before sending, and a
    # server that needs less says so once, here.
    raw = environ.get(variable, "").strip().lower()
    if not raw:
        return "anthropic"
    if raw not in dialects():
        raise ValueError(f"{variable}={raw!r}: expected one of {', '.join(dialects())}")
    return raw


def _base_url(raw: str, variable: str) -> str:
    url = raw.strip().rstrip("/")
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ValueError(f"{variable}={raw!r}: expected an http:// or https:// URL")
    if url.endswith("/v1/messages") or url.endswith("/v1"):
        raise ValueError(
            f"{variable}={raw!r}: give the base URL without /v1/messages "
            "(the playground appends it)"
        )
    return url


def simulator_key(*, secret_key: str) -> str:
    """The credential the app's own upstream client sends to the built-in simulator, which in
    login mode answers only it and logged-in users. Derived from ``SECRET_KEY``, so every
    process of one deployment agrees on it and nothing needs configuring."""
    digest = hmac.new(secret_key.encode(), b"playground simulator key", hashlib.sha256)
    return "sim-" + digest.hexdigest()


def profiles_from_environ(
    environ: Mapping[str, str], *, simulator_url: str, simulator_key: str = ""
) -> dict[str, Profile]:
    """Build every configured profile, simulator first. Raises ValueError naming the variable.

    ``simulator_key`` (see :func:`simulator_key`), when given, is the simulator profile's key.
    """
    profiles: dict[str, Profile] = {
        "simulator": Profile(
            name="simulator",
            label="Built-in simulator",
            kind="simulator",
            base_url=_base_url(simulator_url, "PLAYGROUND_SIMULATOR_URL"),
            auth="x-api-key" if simulator_key else "none",
            api_key=simulator_key,
            models=SIMULATOR_MODELS,
        )
    }
    if _flag(environ, "PLAYGROUND_SIMULATOR_RENDER", default=False):
        # The same simulator with FriendliAI's render endpoint, so the rendered prompt can be
        # tried (and browser-tested) with no key and no network.
        profiles["simulator-render"] = replace(
            profiles["simulator"],
            name="simulator-render",
            label="Built-in simulator (renders prompts)",
            renders_prompt=True,
        )

    friendli_key = environ.get("FRIENDLI_TOKEN", "").strip()
    if friendli_key:
        team = environ.get("FRIENDLI_TEAM", "").strip()
        headers = (("x-friendli-team", team),) if team else ()
        # One token serves both FriendliAI products; each has its own base URL and models.
        for product, default_url in (
            ("dedicated", FRIENDLI_DEDICATED_URL),
            ("serverless", FRIENDLI_SERVERLESS_URL),
        ):
            prefix = f"FRIENDLI_{product.upper()}_"
            name = f"friendli-{product}"
            profiles[name] = Profile(
                name=name,
                label=f"FriendliAI {product.title()}",
                kind=name,
                base_url=_base_url(
                    environ.get(prefix + "BASE_URL") or default_url, prefix + "BASE_URL"
                ),
                auth="bearer",
                api_key=friendli_key,
                headers=headers,
                models=_split_list(environ.get(prefix + "MODELS")),
                dialect="friendli",
                # Serverless lists its models at /serverless/v1/models; Dedicated has no list.
                lists_models=product == "serverless",
                # Both products document chat/render; Dedicated's is the one this playground
                # offers unasked (an endpoint's own template is what a person debugs there).
                renders_prompt=_flag(environ, prefix + "RENDER", default=product == "dedicated"),
            )

    anthropic_key = environ.get("ANTHROPIC_API_KEY", "").strip()
    if anthropic_key:
        profiles["anthropic"] = Profile(
            name="anthropic",
            label="Anthropic",
            kind="anthropic",
            base_url=_base_url(
                environ.get("ANTHROPIC_BASE_URL") or ANTHROPIC_URL, "ANTHROPIC_BASE_URL"
            ),
            auth="x-api-key",
            api_key=anthropic_key,
            headers=(
                (
                    "anthropic-version",
                    environ.get("ANTHROPIC_VERSION") or ANTHROPIC_VERSION_DEFAULT,
                ),
            ),
            models=_split_list(environ.get("ANTHROPIC_MODELS"))
            or ("claude-sonnet-4-5", "claude-opus-4-1", "claude-haiku-4-5"),
        )

    for variable in sorted(environ):
        match = _CUSTOM_RE.match(variable)
        if not match:
            continue
        key = match.group(1)
        prefix = f"PLAYGROUND_UPSTREAM_{key}_"
        name = key.lower().replace("_", "-")
        if name in profiles:
            raise ValueError(f"{variable}: the name {name!r} is taken by a built-in profile")
        auth = (environ.get(prefix + "AUTH") or "bearer").strip().lower()
        if auth not in AUTH_STYLES:
            raise ValueError(f"{prefix}AUTH={auth!r}: expected one of {', '.join(AUTH_STYLES)}")
        api_key = environ.get(prefix + "API_KEY", "").strip()
        if auth != "none" and not api_key:
            raise ValueError(
                f"{prefix}API_KEY is required with {prefix}AUTH={auth} (or set AUTH=none)"
            )
        profiles[name] = Profile(
            name=name,
            label=environ.get(prefix + "LABEL") or key.replace("_", " ").title(),
            kind="custom",
            base_url=_base_url(environ[variable], variable),
            auth=auth,
            api_key=api_key,
            # Whatever the auth: the SDK always sends it, and a gateway that forwards to
            # Anthropic (or checks it itself) refuses a request without it.
            headers=(("anthropic-version", ANTHROPIC_VERSION_DEFAULT),),
            models=_split_list(environ.get(prefix + "MODELS")),
            dialect=_dialect(environ, prefix + "DIALECT"),
            renders_prompt=_flag(environ, prefix + "RENDER", default=False),
        )
    return profiles
