"""Upstream profiles: which servers the playground may call, and how to authenticate.

Rule: profiles are built once, by settings, from the environment it passes in; a profile
exists only when configured (the simulator always). Keys live only on the server: a
profile's :meth:`Profile.public` view, the only one meant for a page, an export or a log,
has no key and no URL.

A profile also says whether its upstream renders a conversation into the model's prompt text
(``renders_prompt``: FriendliAI's ``POST {base}/v1/chat/render``, the adapter's ``render``
side door): FriendliAI Dedicated does by default, anything else only when configured
to (``FRIENDLI_SERVERLESS_RENDER``, ``PLAYGROUND_UPSTREAM_<NAME>_RENDER``), and the built-in
simulator's variant ``simulator-render`` (``PLAYGROUND_SIMULATOR_RENDER=1``) does too.

A profile's ``dialect`` names its adapter (``protocol.adapters``: its wire format and the rules
its requests are checked by, :attr:`Profile.adapter`): ``friendli`` for FriendliAI's,
``anthropic`` for the rest unless a custom profile names another registered one
(``PLAYGROUND_UPSTREAM_<NAME>_DIALECT``), or a wire other than the Messages API's
(``_WIRE``), whose adapter is then the profile's, with its own rules.

Each group of variables is read by a typed model of ``profile_keys`` (a custom profile's
``PLAYGROUND_UPSTREAM_<NAME>_*`` by :class:`CustomUpstreamKeys`: a new key is one field there).
A bad value, or a ``PLAYGROUND_UPSTREAM_*`` variable that is no profile's key, raises
ValueError naming the variable. This module imports no I/O library, so settings can import it
cheaply.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from playground.protocol.adapters import Adapter, Place, adapter_for, adapter_on_wire
from playground.upstream.profile_keys import (
    ANTHROPIC_VERSION_DEFAULT,
    CUSTOM_PREFIX,
    AnthropicKeys,
    CustomUpstreamKeys,
    FriendliKeys,
    SimulatorKeys,
    custom_keys,
    read_keys,
)

SIMULATOR_MODELS = ("simulator-1", "simulator-1-thinking")


@dataclass(frozen=True, slots=True)
class Profile:
    """One configured upstream.

    ``dialect`` selects request validation rules: ``anthropic`` (Anthropic's stricter rules,
    used for the simulator and, unless configured otherwise, custom servers too), ``friendli``
    or ``compatible`` (vLLM, llama.cpp, Ollama, LiteLLM). ``lists_models``: the
    upstream serves ``GET /v1/models`` (``upstream.model_list``); FriendliAI Dedicated does
    not (a model there is an endpoint id), so its names come only from the configuration.
    ``renders_prompt``: the upstream serves the chat render (see the module docstring).
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
    #: Where on its wire (Vertex AI's region and project; empty for the Messages API).
    region: str = ""
    project: str = ""
    #: A credential read at send time and refreshed before it expires (``upstream.credentials``):
    #: a command's output, or a file's text. Empty: the static ``api_key``.
    token_command: str = ""
    token_file: str = ""

    @property
    def adapter(self) -> Adapter:
        """The adapter of the profile's dialect: its wire format and its rules."""
        return adapter_for(self.dialect)

    @property
    def place(self) -> Place:
        """Where the profile's upstream is, as its adapter builds a URL from it."""
        return Place(base_url=self.base_url, region=self.region, project=self.project)

    @property
    def messages_url(self) -> str:
        """Where a streamed request goes (the model, on a wire whose path names it, left out:
        for a log or a trace's host and port)."""
        return self.adapter.url(self.place, model="")

    def side_url(self, door: str) -> str | None:
        """Where the side request ``door`` goes on the profile's wire (its adapter's
        ``side_doors``: ``models``, ``count_tokens``, ``render``, ``tokenize``), or None when
        the wire has none (``self.adapter.no_door(door)`` says so)."""
        return self.adapter.side_url(self.place, door)

    def auth_headers(self, credential: str | None = None) -> dict[str, str]:
        """Headers for a request with ``credential`` (the static key when None) as its adapter
        sends them, the credential included: never log or return these."""
        return self.adapter.auth_headers(
            auth=self.auth,
            credential=self.api_key if credential is None else credential,
            extra=self.headers,
        )

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
    simulator = read_keys(
        SimulatorKeys,
        {
            "PLAYGROUND_SIMULATOR_URL": simulator_url,
            "PLAYGROUND_SIMULATOR_RENDER": environ.get("PLAYGROUND_SIMULATOR_RENDER", ""),
        },
    )
    profiles: dict[str, Profile] = {
        "simulator": Profile(
            name="simulator",
            label="Built-in simulator",
            kind="simulator",
            base_url=simulator.PLAYGROUND_SIMULATOR_URL,
            auth="x-api-key" if simulator_key else "none",
            api_key=simulator_key,
            models=SIMULATOR_MODELS,
        )
    }
    if simulator.PLAYGROUND_SIMULATOR_RENDER:
        # The same simulator with FriendliAI's render endpoint, so the rendered prompt can be
        # tried (and browser-tested) with no key and no network.
        profiles["simulator-render"] = replace(
            profiles["simulator"],
            name="simulator-render",
            label="Built-in simulator (renders prompts)",
            renders_prompt=True,
        )

    friendli = read_keys(FriendliKeys, environ)
    if friendli.FRIENDLI_TOKEN:
        headers = (("x-friendli-team", friendli.FRIENDLI_TEAM),) if friendli.FRIENDLI_TEAM else ()
        # One token serves both FriendliAI products; each has its own base URL and models.
        products = (
            (
                "dedicated",
                friendli.FRIENDLI_DEDICATED_BASE_URL,
                friendli.FRIENDLI_DEDICATED_MODELS,
                friendli.FRIENDLI_DEDICATED_RENDER,
            ),
            (
                "serverless",
                friendli.FRIENDLI_SERVERLESS_BASE_URL,
                friendli.FRIENDLI_SERVERLESS_MODELS,
                friendli.FRIENDLI_SERVERLESS_RENDER,
            ),
        )
        for product, base_url, models, renders_prompt in products:
            name = f"friendli-{product}"
            profiles[name] = Profile(
                name=name,
                label=f"FriendliAI {product.title()}",
                kind=name,
                base_url=base_url,
                auth="bearer",
                api_key=friendli.FRIENDLI_TOKEN,
                headers=headers,
                models=models,
                dialect="friendli",
                # Serverless lists its models at /serverless/v1/models; Dedicated has no list.
                lists_models=product == "serverless",
                renders_prompt=renders_prompt,
            )

    anthropic = read_keys(AnthropicKeys, environ)
    if anthropic.ANTHROPIC_API_KEY:
        profiles["anthropic"] = Profile(
            name="anthropic",
            label="Anthropic",
            kind="anthropic",
            base_url=anthropic.ANTHROPIC_BASE_URL,
            auth="x-api-key",
            api_key=anthropic.ANTHROPIC_API_KEY,
            headers=(("anthropic-version", anthropic.ANTHROPIC_VERSION),),
            models=anthropic.ANTHROPIC_MODELS,
        )

    for key, values in custom_keys(environ).items():
        prefix = f"{CUSTOM_PREFIX}{key}_"
        name = key.lower().replace("_", "-")
        if name in profiles:
            raise ValueError(f"{prefix}BASE_URL: the name {name!r} is taken by a built-in profile")
        custom = read_keys(CustomUpstreamKeys, values, prefix=prefix)
        named = "DIALECT" in custom.model_fields_set
        try:
            adapter = adapter_on_wire(custom.WIRE, dialect=custom.DIALECT if named else None)
        except ValueError as exc:
            raise ValueError(f"{prefix}{'DIALECT' if named else 'WIRE'}: {exc}") from None
        for need in adapter.needs:
            if not getattr(custom, need.upper()):
                raise ValueError(
                    f"{prefix}{need.upper()} is required with {prefix}WIRE={custom.WIRE}"
                )
        if custom.BASE_URL is None and not adapter.own_host:
            wired = f" with {prefix}WIRE={custom.WIRE}" if "WIRE" in custom.model_fields_set else ""
            raise ValueError(f"{prefix}BASE_URL is required{wired}")
        if custom.TOKEN_COMMAND and custom.TOKEN_FILE:
            raise ValueError(f"{prefix}TOKEN_COMMAND and {prefix}TOKEN_FILE: give one of them")
        tokens = bool(custom.TOKEN_COMMAND or custom.TOKEN_FILE)
        if custom.AUTH != "none" and not custom.API_KEY and not tokens:
            raise ValueError(
                f"{prefix}API_KEY (or {prefix}TOKEN_COMMAND, {prefix}TOKEN_FILE) is required"
                f" with {prefix}AUTH={custom.AUTH} (or set AUTH=none)"
            )
        profiles[name] = Profile(
            name=name,
            label=custom.LABEL or key.replace("_", " ").title(),
            kind="custom",
            base_url=custom.BASE_URL or "",
            auth=custom.AUTH,
            api_key=custom.API_KEY,
            # Whatever the auth: the SDK always sends it, and a gateway that forwards to
            # Anthropic (or checks it itself) refuses a request without it. A wire that
            # carries its version in the body drops it (``Adapter.drops_headers``).
            headers=(("anthropic-version", ANTHROPIC_VERSION_DEFAULT),),
            models=custom.MODELS,
            dialect=adapter.name,
            lists_models=adapter.lists_models,
            renders_prompt=custom.RENDER,
            region=custom.REGION,
            project=custom.PROJECT,
            token_command=custom.TOKEN_COMMAND,
            token_file=custom.TOKEN_FILE,
        )
    return profiles
