"""Search: conversations whose title or message content holds every word of a query.

Rules:
- A query is words (letters and digits, any script) and symbols (an emoji, "€"); punctuation
  and operators are not special, so nothing a person types is a query syntax error. Every
  term must match somewhere in the conversation (its title, or any message on screen: the
  words of a question and its answer are found together), each word as a prefix ("volc"
  finds "volcanoes"), case and accents aside, each symbol as it is (the indexes skip symbols,
  so those are looked for in the text itself).
- Content is a message's ``search_text`` (:func:`search_text_of`: its text blocks and the text
  of its tool results; not thinking, not tool inputs), indexed by PostgreSQL's text search or
  SQLite's FTS5 (``search_index``); without either, ``icontains`` on the same text.
- A hit names the first matching message (position) and a snippet around the first word, plain
  text; the page marks the words itself (``static/playground/search.js``).
"""

from __future__ import annotations

import functools
import json
import re
import unicodedata
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from django.contrib.postgres.search import SearchQuery, SearchVector
from django.db import connection
from django.db.models import QuerySet
from django.db.models.expressions import RawSQL

from playground.conversations.branches import paths_of
from playground.conversations.search_index import FTS_TABLE, fts5_available
from playground.models import Conversation, Message
from playground.protocol.json_text import safe_text

__all__ = ["Hit", "Hits", "matching_conversations", "search_text_of", "terms_of"]

_WORD = re.compile(r"\w+", re.UNICODE)
#: A term of its own: a symbol outside ASCII (emoji, currency, arrows), which the full-text
#: indexes treat as a separator and so never find.
_SYMBOL_CATEGORIES = ("So", "Sm", "Sc", "Sk")
#: Words longer than this are cut (no real word is; an FTS query stays small).
WORD_MAX = 64
TERMS_MAX = 8
SNIPPET_CHARS = 160


def search_text_of(content: Any) -> str:
    """The words of a message's content (blocks, or their JSON text), one block a line.

    A lone surrogate or a NUL (kept exactly in the content's JSON text, as an escape) becomes
    U+FFFD here: this column is plain text, which takes neither (PostgreSQL refuses NUL)."""
    if isinstance(content, str):
        try:
            content = json.loads(content)
        except ValueError:
            return _plain(content)
    if isinstance(content, str):
        return _plain(content)
    return _plain("\n".join(_texts(content if isinstance(content, list) else [])))


def _plain(text: str) -> str:
    return safe_text(text).replace("\x00", "\ufffd")


def _texts(blocks: Iterable[Any]) -> Iterable[str]:
    for block in blocks:
        if not isinstance(block, dict):
            continue
        if block.get("type") == "text" and isinstance(block.get("text"), str):
            yield block["text"]
        elif block.get("type") == "tool_result":
            inner = block.get("content")
            if isinstance(inner, str):
                yield inner
            elif isinstance(inner, list):
                yield from _texts(inner)


def terms_of(query: str) -> list[str]:
    """The words and symbols of a query, lower-cased, each once, at most :data:`TERMS_MAX`."""
    terms = []
    for piece in re.finditer(r"\w+|\S", query):
        text = piece.group(0)
        if _WORD.fullmatch(text):
            terms.append(text[:WORD_MAX].lower())
        elif _is_symbol(text):
            terms.append(text)
    return list(dict.fromkeys(terms))[:TERMS_MAX]


def _is_symbol(char: str) -> bool:
    return not char.isascii() and unicodedata.category(char) in _SYMBOL_CATEGORIES


@dataclass(frozen=True, slots=True)
class Hit:
    """The first message of a conversation the query found, and a snippet of it."""

    position: int
    snippet: str


class Hits(Mapping[Any, Hit]):
    """Each found conversation's :class:`Hit`, its snippet cut when it is read: a page of the
    list shows 50 of however many conversations match, and the home page reads none."""

    def __init__(self, first: dict[Any, tuple[int, str]], terms: list[str]) -> None:
        self._first = first
        self._terms = terms

    def __getitem__(self, pk: Any) -> Hit:
        position, text = self._first[pk]
        return Hit(position=position, snippet=snippet(text, self._terms))

    def __iter__(self) -> Iterator[Any]:
        return iter(self._first)

    def __len__(self) -> int:
        return len(self._first)


def matching_conversations(
    *, conversations: QuerySet[Conversation], terms: list[str]
) -> tuple[set[Any], Mapping[Any, Hit]]:
    """The ids of ``conversations`` where every term is found (in the title or any message on
    screen), and for each found in a message, its first such message as a :class:`Hit`."""
    if not terms:
        return set(), {}
    titles = dict(conversations.values_list("pk", "title"))
    # The branch on screen only: an alternative off the path is not what the conversation says.
    messages = paths_of(conversations)
    found: set[Any] | None = None
    first: dict[Any, tuple[int, str]] = {}
    for term in terms:
        with_term = {pk for pk, title in titles.items() if term in title.lower()}
        rows = _matching(messages, term).order_by("conversation_id", "position")
        for conversation_id, position, text in rows.values_list(
            "conversation_id", "position", "search_text"
        ):
            with_term.add(conversation_id)
            if conversation_id not in first or position < first[conversation_id][0]:
                first[conversation_id] = (position, text)
        found = with_term if found is None else found & with_term
    found = found or set()
    return found, Hits({pk: hit for pk, hit in first.items() if pk in found}, terms)


def _matching(messages: QuerySet[Message], term: str) -> QuerySet[Message]:
    """The messages whose words hold ``term`` (a word, as a prefix; a symbol, as it is)."""
    if not _WORD.fullmatch(term):
        return messages.filter(search_text__contains=term)
    if connection.vendor == "postgresql":
        # A prefix lexeme; the term is word characters only, quoted as a lexeme.
        vector = SearchVector("search_text", config="simple")
        query = SearchQuery(f"'{term}':*", search_type="raw", config="simple")
        return messages.annotate(found=vector).filter(found=query)
    if connection.vendor == "sqlite" and _sqlite_fts5():
        # A quoted FTS5 string with a prefix star: no FTS5 syntax gets through.
        match = '"' + term.replace('"', '""') + '"*'
        rows = RawSQL(f"SELECT rowid FROM {FTS_TABLE} WHERE {FTS_TABLE} MATCH %s", [match])
        return messages.filter(pk__in=rows)
    return messages.filter(search_text__icontains=term)


@functools.cache
def _sqlite_fts5() -> bool:
    # A property of the SQLite library this process loaded: asked once.
    return fts5_available(connection)


def snippet(text: str, terms: list[str]) -> str:
    """About :data:`SNIPPET_CHARS` of ``text`` around the first term, on one line."""
    flat = " ".join(text.split())
    lowered = flat.lower()
    at = min((i for i in (lowered.find(term) for term in terms) if i >= 0), default=0)
    start = max(0, at - SNIPPET_CHARS // 3)
    piece = flat[start : start + SNIPPET_CHARS]
    return ("…" if start else "") + piece + ("…" if start + SNIPPET_CHARS < len(flat) else "")
