"""The simulator as a prompt editor: a request asking for a ``<revised_system_prompt>`` of a
``<system_prompt>`` (the prompt library's Improve, ``prompts/improve.py``) is answered with a
revision a careful editor would make, and a list of its changes.

Rule: PURE and deterministic, like the rest of the script: the same prompt gives the same
revision. The revision keeps the original text as written (its ``{{variables}}`` included)
and adds, in a fixed order, each piece of guidance the prompt lacks: a role, the answer's form,
what to do with an ambiguous request, with an unknown, and with the tools it was given. A
prompt that already says all of it is given back unchanged, and the notes say so, so
improving an improved prompt settles instead of growing without end.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

__all__ = ["revision_answer"]

_SYSTEM = re.compile(r"<system_prompt>\n?(.*?)\n?</system_prompt>", re.DOTALL)
_TOOLS = re.compile(r"<tools>(.*?)</tools>", re.DOTALL)
ASK = "<revised_system_prompt>"


def _says(text: str, words: Sequence[str]) -> bool:
    lowered = text.lower()
    return any(word in lowered for word in words)


def _additions(system: str, tools: list[str]) -> list[tuple[str, str]]:
    """``(sentence, note)`` for each piece of guidance ``system`` lacks, in order."""
    found: list[tuple[str, str]] = []
    if not _says(system, ("you are", "your role", "act as")):
        found.append(("You are a careful, helpful assistant.", "Named the assistant's role."))
    if not _says(system, ("concise", "brief", "length", "format", "words", "bullet", "short")):
        found.append((
            "Answer concisely: lead with the answer, then the reasons, in short paragraphs "
            "or a list.",
            "Said what a good answer looks like (form and length).",
        ))  # fmt: skip
    if not _says(system, ("ambiguous", "unclear", "clarif")):
        found.append((
            "If a request is ambiguous, ask one clarifying question before answering.",
            "Said what to do with an ambiguous request.",
        ))  # fmt: skip
    if not _says(system, ("not sure", "unsure", "don't know", "do not know", "uncertain")):
        found.append((
            "If you do not know, say so plainly instead of guessing.",
            "Said what to do when the answer is not known.",
        ))  # fmt: skip
    if tools and not _says(system, ("tool",)):
        found.append((
            f"Use the tools ({', '.join(tools)}) when they give a better answer than your own "
            "knowledge, and say which one you used.",
            "Said when to use the tools.",
        ))  # fmt: skip
    return found


def revision_answer(prompt: str) -> str | None:
    """The answer to a revision request, or ``None`` when ``prompt`` asks for none."""
    if ASK not in prompt:
        return None
    match = _SYSTEM.search(prompt)
    if match is None:
        return None
    system = match.group(1).strip()
    tools_match = _TOOLS.search(prompt)
    tools = [t.strip() for t in tools_match.group(1).split(",") if t.strip()] if tools_match else []
    additions = _additions(system, tools)
    if not additions:
        notes = (
            "- No change: the prompt already names a role, the answer's form, and what to do "
            "when a request is unclear or the answer unknown."
        )
        revised = system
    else:
        notes = "\n".join(f"- {note}" for _, note in additions)
        role = [sentence for sentence, note in additions if note.startswith("Named")]
        rest = [sentence for sentence, note in additions if not note.startswith("Named")]
        parts = [*role, system] if system else role
        revised = "\n\n".join(part for part in [*parts, " ".join(rest)] if part)
    closing = "</revised_system_prompt>"
    return f"Here is the revised system prompt. Changes:\n{notes}\n\n{ASK}\n{revised}\n{closing}"
