"""One adapter per upstream wire format, and the registry that hands a profile its own.

Rule: code that needs to know what an upstream takes, refuses, sends back or streams asks
:func:`adapter_for` (with a profile, a dialect's name or an adapter) and reads the answer; it
never compares a dialect's name, and never names a wire format (a profile's ``WIRE`` picks its
adapter through :func:`adapter_on_wire`). Each setting's rule per dialect is the settings table's
(``protocol.settings_table``); adding a server is one module with an
:class:`~playground.protocol.adapters.base.Adapter` subclass, registered here (or, in a test,
with :func:`registered`). The built-in dialects keep the order the docs show them in. Pure.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Protocol

from playground.protocol.adapters.anthropic import ANTHROPIC
from playground.protocol.adapters.base import Adapter, ErrorBody, Rule
from playground.protocol.adapters.compatible import COMPATIBLE
from playground.protocol.adapters.friendli import FRIENDLI
from playground.protocol.adapters.openai_chat import OPENAI_CHAT
from playground.protocol.adapters.vertex import VERTEX
from playground.protocol.adapters.wire import Decoder, Place
from playground.protocol.errors import RequestValidationError, show

__all__ = [
    "ANTHROPIC",
    "BUILT_IN",
    "COMPATIBLE",
    "DIALECTS",
    "FRIENDLI",
    "OPENAI_CHAT",
    "PLAIN",
    "Place",
    "TRANSLATING",
    "VERTEX",
    "Adapter",
    "Decoder",
    "ErrorBody",
    "HasDialect",
    "Rule",
    "adapter_for",
    "adapter_on_wire",
    "adapters",
    "dialects",
    "dialects_on_messages",
    "registered",
    "wires",
]

#: The adapters the playground ships, in the docs' order (the README's settings table).
BUILT_IN: tuple[Adapter, ...] = (ANTHROPIC, FRIENDLI, COMPATIBLE)
#: Their dialect names.
DIALECTS: tuple[str, ...] = tuple(adapter.name for adapter in BUILT_IN)

#: The plain Messages API, every check off (the base): what is read before a profile judges it
#: (a pasted request, a conversation whose profile is gone), so only what no dialect accepts
#: is refused there, and the wire format of a caller with no profile (the parity tests, the
#: benchmarks). Not a dialect a profile can name.
PLAIN = Adapter()

#: The adapters of the wires other than the Messages API's, each its wire's only one, with
#: its own rules (a profile picks one with ``PLAYGROUND_UPSTREAM_<NAME>_WIRE``).
TRANSLATING: tuple[Adapter, ...] = (VERTEX, OPENAI_CHAT)

_registry: dict[str, Adapter] = {adapter.name: adapter for adapter in (*BUILT_IN, *TRANSLATING)}


class HasDialect(Protocol):
    """A profile, or anything else that names its dialect."""

    @property
    def dialect(self) -> str: ...


def dialects() -> tuple[str, ...]:
    """Every registered dialect's name: the built-in ones, then any registered since."""
    return tuple(_registry)


def wires() -> tuple[str, ...]:
    """Every wire a profile may name: the Messages API's first, then each translating one."""
    return (PLAIN.wire, *dict.fromkeys(a.wire for a in _registry.values() if a.wire != PLAIN.wire))


def dialects_on_messages() -> tuple[str, ...]:
    """The dialects of the Messages API's own wire: the ones a profile's ``DIALECT`` names."""
    return tuple(name for name, adapter in _registry.items() if adapter.wire == PLAIN.wire)


def adapter_on_wire(wire: str, *, dialect: str | None) -> Adapter:
    """The adapter of a profile on ``wire``: on the Messages API's, its ``dialect``'s
    (anthropic's when None); on another, that wire's own adapter, whose rules are its own.
    ValueError naming the valid choices, or a dialect given for a wire that has its own."""
    if wire == PLAIN.wire:
        return adapter_for(dialect or ANTHROPIC.name)
    own = [adapter for adapter in _registry.values() if adapter.wire == wire]
    if not own:
        raise ValueError(f"unknown wire {wire!r} (valid: {', '.join(wires())})")
    if dialect is not None and dialect != own[0].name:
        raise ValueError(
            f"the wire {wire!r} has its own rules; a dialect ({dialect!r}) is only for"
            f" the {PLAIN.wire!r} wire"
        )
    return own[0]


def adapters() -> tuple[Adapter, ...]:
    """Every registered adapter, in the order of :func:`dialects`."""
    return tuple(_registry.values())


def adapter_for(which: str | Adapter | HasDialect) -> Adapter:
    """The adapter of a dialect's name, of a profile, or the adapter given.

    Raises :class:`RequestValidationError` (``field="dialect"``) naming the valid choices."""
    if isinstance(which, Adapter):
        return which
    name = which if isinstance(which, str) else which.dialect
    adapter = _registry.get(name)
    if adapter is None:
        raise RequestValidationError(
            f"unknown dialect {show(name)} (valid: {', '.join(_registry)})", field="dialect"
        )
    return adapter


@contextmanager
def registered(adapter: Adapter) -> Iterator[Adapter]:
    """``adapter`` is known by its name while the block runs (a test's own server rules)."""
    if adapter.name in _registry:
        raise ValueError(f"the dialect {adapter.name!r} is taken")
    _registry[adapter.name] = adapter
    try:
        yield adapter
    finally:
        del _registry[adapter.name]
