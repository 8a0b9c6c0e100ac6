"""A compare or grid column that names a prompt version or label instead of settings.

Rule: a column is settings changes over its conversation's (``conversations.column_request``);
one may also say ``"prompt": "name@ref"`` (``ref`` a label, ``vN`` or a number; ``name``
alone is the newest version). That is turned, when the column starts, into the version's
settings (profile, model, system prompt, tools, output schema and the rest) with the
column's own changes over them, and the version it resolved to is told back
(:class:`ResolvedColumn`), so a label that moves later does not change what a run said it ran.
The prompt is the column's owner's only: anyone else's is "not found".
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from django.contrib.auth.models import AbstractBaseUser

from playground.models import PromptVersion
from playground.prompts.definition import settings_of_definition
from playground.prompts.services import LATEST, get_prompt, resolve
from playground.protocol.errors import NotFound, RequestValidationError

__all__ = ["PROMPT_KEY", "ResolvedColumn", "resolve_column"]

PROMPT_KEY = "prompt"


@dataclass(frozen=True, slots=True)
class ResolvedColumn:
    """A column's settings changes, and the version they came from (``None``: no prompt)."""

    changes: dict[str, Any]
    version: PromptVersion | None

    @property
    def reference(self) -> dict[str, Any] | None:
        """``{prompt, version}`` for a header, an experiment or a log; ``None`` without one."""
        if self.version is None:
            return None
        return {"prompt": self.version.prompt.name, "version": self.version.number}


def resolve_column(
    *, owner: AbstractBaseUser, column: Mapping[str, Any], field: str
) -> ResolvedColumn:
    """``column`` with its ``prompt`` turned into settings (see the module rule); refusals
    name the place (``columns[1].prompt``)."""
    if PROMPT_KEY not in column:
        return ResolvedColumn(changes=dict(column), version=None)
    named = column[PROMPT_KEY]
    if not isinstance(named, str) or not named.strip():
        raise RequestValidationError(
            "expected a prompt as name@label or name@vN", field=f"{field}.{PROMPT_KEY}"
        )
    name, _, reference = named.strip().partition("@")
    try:
        version = resolve(get_prompt(owner=owner, name=name), reference or LATEST)
    except NotFound as exc:
        raise RequestValidationError(exc.message, field=f"{field}.{PROMPT_KEY}") from exc
    own = {key: value for key, value in column.items() if key != PROMPT_KEY}
    return ResolvedColumn(
        changes={**settings_of_definition(version.definition), **own}, version=version
    )
