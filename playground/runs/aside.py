"""A run beside a conversation: a model's answer the conversation asked for without it being a
turn (an MCP server's ``sampling/createMessage`` during a tool call, ``playground.mcp.sampling``).

Rule: it is an ordinary run in everything but its place. One start write (here, with the
person's budgets checked and its usage reserved in the same transaction: ``usage.ledger``) makes
its ``Run`` row as every run's is made (``runs.start.new_run``), with its ``purpose`` and the
``tool_use_id`` of the call that asked; then ``RunManager.start_aside`` drives it as it drives
any run (a slot of its profile, the event log, checkpoints, the end write with its cost, the
lease, the drain), and the inspector reads it as any stored run (``/api/runs/<id>/``). It is not
the conversation's live run: it takes no place in the "one live run per conversation" index,
``hello`` does not name it, no socket follows it, and its answer is kept on the run
(``Run.kept_content``, ``runs.answer.ASIDE``), never a turn.

Synchronous ORM code: the run manager calls it through the run writes' thread.
"""

from __future__ import annotations

from typing import Any
from uuid import UUID

from django.db import transaction
from django.utils import timezone

from playground.models import Conversation
from playground.runs.start import begun_of, new_run
from playground.runs.store import Begun
from playground.usage.ledger import within_budget
from playground.web.ownership import owned_row

__all__ = ["PURPOSES", "begin_aside", "start_aside_write"]

#: What a run beside a conversation may be for.
PURPOSES = frozenset({"sampling"})


def begin_aside(
    *,
    owner: Any,
    conversation_id: UUID | str,
    profile: str,
    body: dict[str, Any],
    purpose: str,
    tool_use_id: str = "",
) -> list[Begun]:
    """The start write of a run beside the conversation ``owner`` owns; a list of one, as the
    budgets' reservation takes (``usage.ledger.within_budget``)."""
    if purpose not in PURPOSES:
        raise ValueError(f"no such purpose {purpose!r} (known: {', '.join(sorted(PURPOSES))})")
    with transaction.atomic():
        rows = Conversation.objects.filter(owner=owner).only("pk", "owner_id")
        conversation: Conversation = owned_row(rows, row_id=conversation_id, what="conversation")
        run = new_run(
            conversation=conversation,
            profile=profile,
            body=body,
            started_at=timezone.now(),
            purpose=purpose,
            tool_use_id=tool_use_id,
        )
    return [begun_of(run, conversation=conversation, body=body)]


#: The start write with the person's budgets: refused by one, nothing is written.
start_aside_write = within_budget(begin_aside)
