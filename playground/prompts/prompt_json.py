"""A prompt as the page and the API read it: its versions (without their definitions: a
prompt of a hundred versions is opened by its list), labels with their history, and one
version whole.

Rule: reads only, a fixed number of queries whatever the number of versions (the list reads
the version rows' small columns, never their definitions). ``public`` (a read-only link):
no one's name (authors, who moved a label), no ids, nothing that opens the owner's data.
"""

from __future__ import annotations

from typing import Any

from playground.models import Prompt, PromptLabel, PromptLabelMove, PromptVersion

__all__ = ["LIST_FIELDS", "serialize_prompt", "serialize_summary", "serialize_version"]

#: The columns the version list reads.
LIST_FIELDS = ("id", "number", "digest", "message", "origin", "author_name", "created_at")
HISTORY_MAX = 200


def serialize_summary(prompt: Prompt) -> dict[str, Any]:
    """A prompt in the library's list."""
    return {
        "name": prompt.name,
        "description": prompt.description,
        "updated_at": prompt.updated_at.isoformat(),
        "created_at": prompt.created_at.isoformat(),
    }


def _listed(
    version: PromptVersion, labels: dict[int, list[str]], *, public: bool = False
) -> dict[str, Any]:
    return {
        "number": version.number,
        "digest": version.digest,
        "message": version.message,
        "origin": version.origin,
        "author": "" if public else version.author_name,
        "created_at": version.created_at.isoformat(),
        "labels": labels.get(version.number, []),
    }


def serialize_version(
    version: PromptVersion, *, labels: list[str] | None = None, public: bool = False
) -> dict[str, Any]:
    """One version whole: its place in the list and its definition."""
    if labels is None:
        labels = list(
            PromptLabel.objects.filter(version=version)
            .order_by("name")
            .values_list("name", flat=True)
        )
    return {
        **_listed(version, {version.number: labels}, public=public),
        "definition": version.definition,
    }


def serialize_prompt(prompt: Prompt, *, public: bool = False) -> dict[str, Any]:
    """The prompt with every version listed, its labels and their history (newest first)."""
    label_rows = list(
        PromptLabel.objects.filter(prompt=prompt)
        .order_by("name")
        .values_list("name", "version__number", "moved_at")
    )
    by_number: dict[int, list[str]] = {}
    for name, number, _ in label_rows:
        by_number.setdefault(number, []).append(name)
    versions = PromptVersion.objects.filter(prompt=prompt).order_by("-number").only(*LIST_FIELDS)
    moves = (
        PromptLabelMove.objects.filter(prompt=prompt)
        .order_by("-moved_at", "-id")
        .values("label", "version__number", "previous__number", "moved_by_name", "moved_at")
    )[:HISTORY_MAX]
    return {
        **serialize_summary(prompt),
        "shared": None if public else prompt.share_token_hash is not None,
        "labels": [
            {"name": name, "version": number, "moved_at": moved_at.isoformat()}
            for name, number, moved_at in label_rows
        ],
        "label_history": [
            {
                "label": move["label"],
                "version": move["version__number"],
                "previous": move["previous__number"],
                "by": "" if public else move["moved_by_name"],
                "at": move["moved_at"].isoformat(),
            }
            for move in moves
        ],
        "versions": [_listed(version, by_number, public=public) for version in versions],
    }
