"""How a run stands: the one list of run statuses, read by the model, the fold and the run task.

Rule: a status is a plain string on the wire and in the database (``Run.status``); this enum
is where the names are written once. ``StrEnum`` members are those strings (``RunStatus.COMPLETE
== "complete"``), so frames, JSON and queries need no conversion.
"""

from __future__ import annotations

import enum

__all__ = ["RunStatus"]


class RunStatus(enum.StrEnum):
    RUNNING = "running"
    COMPLETE = "complete"  # message_stop, or the stream ended after a stop reason
    STOPPED = "stopped"  # the user's stop
    FAILED = "failed"  # an upstream error, a protocol error or a fault of ours
    TRUNCATED = "truncated"  # the stream ended before the message did
    INTERRUPTED = "interrupted"  # the server stopped during the run
