"""The prompt library: named prompts with immutable versions, labels that move, diffs,
rollbacks, conversations started from and saved as versions, Improve, serving to
applications, files, read-only links.

Rule: callers outside this package import its public names from here (``from playground
import prompts``). Inside: ``definition`` (what a version holds, checked once),
``conversation_settings`` (the one reader and maker of a conversation's settings here),
``services`` (every change, and ``resolve``: a label or number to its version), ``linking``
(conversations), ``columns`` (a compare or grid column naming a version or label), ``diffs``
(line diffs of the texts), ``serving`` (what an application gets), ``files`` (YAML and JSON),
``improve`` (the meta-prompt's proposal), ``prompt_json``; ``api``, ``links_api`` and
``pages`` are the doors.
"""

from __future__ import annotations

from typing import Any

from playground.models import PromptVersion
from playground.prompts.columns import PROMPT_KEY, ResolvedColumn, resolve_column
from playground.prompts.definition import check_definition, settings_of_definition
from playground.prompts.services import LATEST, get_prompt, resolve

__all__ = [
    "PROMPT_KEY",
    "LATEST",
    "ResolvedColumn",
    "resolve_column",
    "check_definition",
    "column_changes",
    "get_prompt",
    "resolve",
]


def column_changes(version: PromptVersion) -> dict[str, Any]:
    """The settings changes a compare or grid column makes to run ``version``'s prompt
    (``conversations.update_settings`` takes them): its profile, model, system prompt,
    tools, output schema and settings. Its template turns and variables are the row's."""
    return settings_of_definition(version.definition)
