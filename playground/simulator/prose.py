"""Deterministic, plausible text for the simulator: answers, thinking, tool talk, tokens.

Rule: PURE. Every choice is drawn from the ``random.Random`` passed in, so the same request
gives the same words; nothing here reads a clock or the environment. A "token" is a word piece
from :func:`tokenize`, whose pieces always join back to the exact text.
"""

from __future__ import annotations

import base64
import hashlib
import random
import re
from collections.abc import Sequence

SIGNATURE_PREFIX = "simsig_"

_TOKEN = re.compile(r"\s*[A-Za-z]{1,6}|\s*\d{1,3}|\s*[^\sA-Za-z\d]|\s+")
_ARTICLE = re.compile(r"\b([Aa]) (?=[aeiouAEIOU])")
_WORD = re.compile(r"[A-Za-z][A-Za-z'-]*[A-Za-z]|[A-Za-z]")
_STOPWORDS = frozenset(
    """a about above after again all also am an and any are as at be because been before being
    below between both but by can could did do does doing down during each explain few for from
    further give had has have having he her here hers how i if in into is it its itself just
    know let like me more most my no nor not now of off on once only or other our out over own
    please same she should show so some such tell than that the their them then there these they
    this those through to too under until up use using very was we were what when where which
    while who whom why will with would write you your yours call check get find look run make
    want need""".split()  # noqa: SIM905 - a word list reads better as prose
)
_ADJECTIVES = (
    "practical", "subtle", "useful", "common", "important", "surprising", "careful", "simple",
    "robust", "well-known", "overlooked", "central",
)  # fmt: skip
_NOUNS = (
    "trade-off", "pattern", "detail", "constraint", "approach", "question", "example", "idea",
    "measurement", "baseline", "assumption", "edge case",
)  # fmt: skip
_SENTENCES = (
    "When people first look at {topic}, the {adj} part is usually the {noun}.",
    "A {adj} way to think about {kw} is as a {noun} rather than a rule.",
    "In practice, {kw} depends on the context more than on any single {noun}.",
    "It helps to start with a small {noun} and grow from there.",
    "Most of the confusion around {kw} comes from one {adj} {noun}.",
    "The short version: {topic} rewards patience and a clear {noun}.",
    "Experts tend to disagree about {kw2}, but they agree on the {noun}.",
    "If you measure one thing, measure the {noun} that {kw} actually changes.",
    "A {adj} {noun} is worth more here than a clever one.",
    "There is a {adj} link between {kw} and {kw2} that is easy to miss.",
    "Keep notes as you go; {kw} is easier to reason about with a written {noun}.",
    "None of this is final, and the {noun} may look different next year.",
)
_THOUGHTS = (
    "The user is asking about {topic}.",
    "Let me think about what matters most for {kw}.",
    "I should mention the {adj} {noun} first, then the details.",
    "Maybe an example would make {kw2} clearer.",
    "I want to keep this {adj} and avoid overclaiming.",
    "A short structure will help: overview, key points, a closing note.",
    "Is there a {noun} I am missing? Probably the one about {kw}.",
)


def tokenize(text: str) -> list[str]:
    """Split ``text`` into word pieces ("tokens"); ``"".join(tokenize(t)) == t`` always."""
    return _TOKEN.findall(text)


def count_tokens(text: str) -> int:
    return len(tokenize(text))


def sign_thinking(thinking: str) -> str:
    """An opaque signature that is deterministic and lets us detect a modified block."""
    digest = hashlib.sha256(b"sim-thinking\x00" + thinking.encode()).digest()
    return SIGNATURE_PREFIX + base64.urlsafe_b64encode(digest).decode().rstrip("=")


def keywords(text: str) -> list[str]:
    """Content words of ``text``, in order of first appearance, without repeats."""
    seen: list[str] = []
    # Identifiers (tool names like get_weather) and contractions are not topics.
    plain = re.sub(r"\S*_\S*", " ", text)
    for word in _WORD.findall(plain):
        if word.lower().split("'")[0] in _STOPWORDS:
            continue
        if word.lower() not in _STOPWORDS and len(word) >= 3 and word not in seen:
            seen.append(word)
    return seen


def topic_of(text: str) -> str:
    words = keywords(text)
    return " ".join(words[:3]) if words else "your question"


def _fill(rng: random.Random, template: str, *, topic: str, words: Sequence[str]) -> str:
    pool = list(words) or [topic]
    return _ARTICLE.sub(
        r"\1n ",
        template.format(
            topic=topic,
            kw=rng.choice(pool),
            kw2=rng.choice(pool),
            adj=rng.choice(_ADJECTIVES),
            noun=rng.choice(_NOUNS),
        ),
    )


def _paragraph(rng: random.Random, *, topic: str, words: Sequence[str]) -> str:
    count = rng.randint(2, 4)
    return " ".join(
        _fill(rng, rng.choice(_SENTENCES), topic=topic, words=words) for _ in range(count)
    )


def _list(rng: random.Random, *, words: Sequence[str]) -> str:
    items = rng.sample(_NOUNS, k=rng.randint(3, 4))
    pool = list(words) or ["this"]
    return "\n".join(
        f"- **{item.capitalize()}**: how it shapes {rng.choice(pool)}" for item in items
    )


def _code(rng: random.Random, *, topic: str) -> str:
    ident = re.sub(r"\W+", "_", topic.lower()).strip("_") or "topic"
    weight = rng.randint(2, 9)
    return (
        "```python\n"
        f"def score_{ident}(items: list[str]) -> int:\n"
        f'    """Rank notes about {topic} by length."""\n'
        f"    return sum(len(item) * {weight} for item in items)\n"
        "```"
    )


def _table(rng: random.Random, *, words: Sequence[str]) -> str:
    rows = [f"| {w} | {rng.choice(_ADJECTIVES)} | {rng.randint(1, 99)} |" for w in words[:3]]
    if not rows:
        rows = [f"| example | {rng.choice(_ADJECTIVES)} | {rng.randint(1, 99)} |"]
    return "\n".join(["| Aspect | Character | Score |", "|---|---|---|", *rows])


def answer_text(rng: random.Random, *, topic_text: str, long: int | None = None) -> str:
    """A short markdown answer that mentions the topic; exactly ``long`` chars when given."""
    topic = topic_of(topic_text)
    words = keywords(topic_text)
    parts = [f"Here is an overview of {topic}. " + _paragraph(rng, topic=topic, words=words)]
    if rng.random() < 0.5:
        parts.insert(0, f"## {topic[:1].upper()}{topic[1:]}")
    if rng.random() < 0.5:
        parts.append(_list(rng, words=words))
    parts.append(_paragraph(rng, topic=topic, words=words))
    if rng.random() < 0.35:
        parts.append(_code(rng, topic=topic))
    if rng.random() < 0.3:
        parts.append(_table(rng, words=words))
    parts.append(f"In short, {topic} is worth exploring step by step.")
    text = "\n\n".join(parts)
    if long is None:
        return text
    chunks = [text]
    size = len(text)
    while size < long:
        paragraph = "\n\n" + _paragraph(rng, topic=topic, words=words)
        chunks.append(paragraph)
        size += len(paragraph)
    return "".join(chunks)[:long]


def thinking_text(rng: random.Random, *, topic_text: str) -> str:
    topic = topic_of(topic_text)
    words = keywords(topic_text)
    picks = [_THOUGHTS[0], *rng.sample(_THOUGHTS[1:], k=rng.randint(2, 4))]
    return " ".join(_fill(rng, t, topic=topic, words=words) for t in picks)


def tool_preamble(rng: random.Random, *, names: Sequence[str], topic_text: str) -> str:
    joined = " and ".join(f"`{name}`" for name in names)
    opener = rng.choice(("I'll use", "Let me call", "I will check with"))
    return f"{opener} {joined} to help with {topic_of(topic_text)}."


def _quote(text: str, limit: int = 200) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def results_answer(
    rng: random.Random, *, results: Sequence[tuple[str, str, bool]], topic_text: str
) -> str:
    """Answer a turn of tool results, ``(name, content, is_error)`` each, quoting every one."""
    lines = []
    for name, content, is_error in results:
        if is_error:
            lines.append(f'The `{name}` tool failed with the error: "{_quote(content)}".')
        else:
            lines.append(f'The `{name}` tool returned: "{_quote(content)}".')
    topic = topic_of(topic_text)
    failed = any(is_error for _, _, is_error in results)
    closing = (
        f"Because a tool failed, my answer about {topic} is incomplete; you may want to retry."
        if failed
        else f"Based on that, here is what it means for {topic}: "
        + _paragraph(rng, topic=topic, words=keywords(topic_text))
    )
    return "\n\n".join([*lines, closing])
