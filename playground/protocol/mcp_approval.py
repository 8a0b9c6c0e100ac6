"""Whether an MCP tool call may run: one decision, the same at every door.

Rule: a call runs only when the person approved this call (**allow once**: the call says
``approval: "once"``, which the page sends for a click on Run, Always allow or a tool's Run…
form), or the conversation's policy says *auto* for it. The policy is read in this order:
the tool's own choice (its mark's ``approval``: Always allow, or the tool's select); else its
server's choice, which **never reaches a tool that may be destructive** (``readOnlyHint`` not
true and ``destructiveHint`` not false, as MCP's defaults read them: an unannotated tool may
be, and so may a tool whose listing is not known); else every server's (``"*"``, which a
replay that runs its MCP tools again sets), which does. Anything else asks: *ask* is every
tool's default. The page's server side (what it stores and serves), the conversation's
socket, ``POST /api/mcp/call/`` and a grid's loop all decide here; the page's own copy
(``mcp-plan.js``'s ``approvalFor``) only chooses what to send, and is held equal to this one
by a test. Pure.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Annotated, Any, Literal

from pydantic import Field

from playground.protocol.errors import RequestValidationError
from playground.protocol.shape import Shape, parse

__all__ = [
    "ALL_SERVERS",
    "Verdict",
    "check_policy",
    "decide",
    "is_destructive",
    "own_approval",
    "with_server",
]

#: The policy's key for every server (a replay's "Run the MCP tools again").
ALL_SERVERS = "*"
_SERVERS_MAX = 200  # the operator's servers and a person's own, with room to spare
_SERVER_MAX = 100  # a server's name in the config file

Approval = Literal["ask", "auto"]


class _Policy(Shape):
    noun = "an MCP approval policy {servers: {name: ask|auto}}"

    servers: Annotated[
        dict[Annotated[str, Field(min_length=1, max_length=_SERVER_MAX)], Approval],
        Field(max_length=_SERVERS_MAX),
    ] = {}


@dataclass(frozen=True, kw_only=True)
class Verdict:
    """Whether the call runs, and why, in words a card can show."""

    runs: bool
    why: str


def check_policy(value: Any) -> dict[str, Any]:
    """The policy as stored (``{"servers": {name: "ask"|"auto"}}``), or
    :class:`RequestValidationError` naming the place (``servers.time``)."""
    return parse(_Policy, value if value is not None else {}).model_dump()


def with_server(policy: Any, *, server: str, approval: str | None) -> dict[str, Any]:
    """``policy`` with one server's choice set (``None``: back to asking), checked."""
    servers = dict((policy or {}).get("servers") or {})
    if approval is None:
        servers.pop(server, None)
    elif approval not in ("ask", "auto"):
        raise RequestValidationError(
            f"approval must be 'ask', 'auto' or null, got {approval!r}", field="approval"
        )
    else:
        servers[server] = approval
    return check_policy({"servers": servers})


def is_destructive(annotations: Any) -> bool:
    """Whether a tool may change or destroy something: not ``readOnlyHint``, and
    ``destructiveHint`` not false. Unknown annotations (``None``) may."""
    hints = annotations if isinstance(annotations, Mapping) else {}
    return hints.get("readOnlyHint") is not True and hints.get("destructiveHint") is not False


def own_approval(marks: Mapping[str, Any], *, server: str, tool: str) -> Approval | None:
    """The tool's own choice, from the marks of the conversation's tools that name it
    (``{name: {server, mcp_name, approval?}}``); two marks that disagree ask."""
    chosen = {
        mark.get("approval")
        for mark in marks.values()
        if isinstance(mark, Mapping) and mark.get("server") == server
        if mark.get("mcp_name") == tool
    }
    if "ask" in chosen:
        return "ask"
    return "auto" if "auto" in chosen else None


def decide(
    *,
    server: str,
    tool: str,
    once: bool,
    marks: Mapping[str, Any],
    policy: Any,
    annotations: Any = None,
) -> Verdict:
    """Whether a call of ``tool`` on ``server`` runs (see the module's rule). ``annotations``
    are the tool's as its server lists them (``None``: not known, so it may be destructive)."""
    name = f"{tool} on {server}"
    if once:
        return Verdict(runs=True, why=f"{name} was allowed once by the person")
    own = own_approval(marks, server=server, tool=tool)
    if own == "auto":
        return Verdict(runs=True, why=f"{name} is set to auto in this conversation")
    asks = "Run on its card allows one call; Always allow sets it to auto"
    if own == "ask":
        return Verdict(
            runs=False, why=f"{name} is set to ask, and this call was not approved ({asks})"
        )
    servers = (policy or {}).get("servers") or {}
    choice = servers.get(server)
    if choice == "auto" and not is_destructive(annotations):
        return Verdict(runs=True, why=f"{server}'s tools are on auto and {tool} is read-only")
    if choice == "auto":
        return Verdict(
            runs=False,
            why=(
                f"{server}'s tools are on auto, but {tool} may be destructive (not read-only), "
                f"so each call is approved by a person ({asks})"
            ),
        )
    if choice is None and servers.get(ALL_SERVERS) == "auto":
        return Verdict(runs=True, why=f"{name} runs again on its server (the replay's choice)")
    return Verdict(runs=False, why=f"{name} is set to ask, and this call was not approved ({asks})")
