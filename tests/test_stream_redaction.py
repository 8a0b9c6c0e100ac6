"""The key is scrubbed from a stream's text wherever the upstream cuts it (``stream_redaction``):
any cut of any text, the joined output is the text with each key ``[redacted]``, never a key."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from playground.protocol.events import parse_event_data
from playground.protocol.json_text import dumps
from playground.upstream.redaction import REDACTED, Redactor
from playground.upstream.stream_redaction import PUBLIC_MAX, StreamRedactor

KEY = "sk-LEAK-0123456789"


def delta(text: str, index: int = 0) -> tuple:
    raw = {
        "type": "content_block_delta",
        "index": index,
        "delta": {"type": "text_delta", "text": text},
    }
    return parse_event_data(raw), dumps(raw)


def run(pieces: list[str]) -> tuple[str, int]:
    shield = StreamRedactor(Redactor.for_secret(KEY))
    out = []
    for piece in pieces:
        out += shield.feed(*delta(piece))
    out += shield.flush()
    return "".join(event.text for event, _ in out), len(out)


@settings(max_examples=300, deadline=None)
@given(
    before=st.text(alphabet="ab sk-LEAK0123", max_size=20),
    after=st.text(alphabet="ab sk-LEAK0123", max_size=20),
    cuts=st.lists(st.integers(min_value=0, max_value=60), max_size=6),
)
def test_any_cut_of_a_text_with_the_key_joins_to_it_redacted(
    before: str, after: str, cuts: list[int]
) -> None:
    text = f"{before}{KEY}{after}"
    bounds = sorted({min(cut, len(text)) for cut in cuts} | {0, len(text)})
    pieces = [text[a:b] for a, b in zip(bounds, bounds[1:], strict=False)] or [""]
    joined, count = run(pieces)
    assert KEY not in joined
    assert joined == Redactor.for_secret(KEY)(text) or REDACTED in joined
    assert count >= len(pieces)  # split, never dropped


def test_text_without_the_key_goes_out_whole() -> None:
    # A delta ending like more than the key's public start is held, then split off: the
    # text is the same.
    joined, count = run(["plain ", "text, sk-L", "ater and more"])
    assert joined == "plain text, sk-Later and more" and count == 4
    assert run(["no key here", " at all"]) == ("no key here at all", 2)


@pytest.mark.parametrize("secret", [KEY, "sim-" + "0123456789abcdef" * 4], ids=["sk", "sim"])
def test_a_text_ending_in_the_keys_public_start_is_neither_held_nor_split(secret) -> None:
    # The simulator's key begins with ``s``: words ending in it go out at once, as they came.
    shield = StreamRedactor(Redactor.for_secret(secret))
    texts = ["it rains", " cats", " and dogs ", "s", "k", "-", " sims", "i", "m", " end"]
    for text in texts:
        event, data = delta(text)
        assert shield.feed(event, data) == [(event, data)], text
    assert shield.flush() == []


def expected(before: str, key: str, cuts: list[int], after: str) -> str:
    """The key cut at ``cuts`` between ``before`` and ``after``: its start up to the last cut
    within the public start goes out, the rest of it is one ``[redacted]``."""
    public = max((cut for cut in cuts if cut <= PUBLIC_MAX), default=0)
    return f"{before}{key[:public]}{REDACTED}{after}"


SECRETS_CUT = [KEY, "sim-" + "0123456789abcdef" * 4, 'sk-ant-api03-x/y"z']


@pytest.mark.parametrize("secret", SECRETS_CUT, ids=["sk", "sim", "escaped"])
def test_a_key_cut_at_every_offset_in_two_or_three_events_never_goes_out(secret) -> None:
    # As the upstream would write it: the JSON-escaped form inside the delta's data.
    key = Redactor.for_secret(secret).forms[-1]
    for i in range(1, len(key)):
        for j in [None, *range(i + 1, len(key))]:
            cuts = [i] if j is None else [i, j]
            bounds = [0, *cuts, len(key)]
            pieces = [key[a:b] for a, b in zip(bounds, bounds[1:], strict=False)]
            pieces = ["see ", *pieces[:-1], pieces[-1] + " s", "o"]
            shield = StreamRedactor(Redactor.for_secret(secret))
            out = []
            for piece in pieces:
                out += shield.feed(*delta(piece))
            out += shield.flush()
            joined = "".join(event.text for event, _ in out)
            assert joined == expected("see ", key, cuts, " so"), (cuts, joined)
            # The data relayed, logged and stored says the same as the event.
            assert all(event.text == json.loads(data)["delta"]["text"] for event, data in out)
            assert len(out) >= len(pieces)  # split, never dropped


def test_a_dangling_key_start_at_the_end_is_redacted() -> None:
    joined, _ = run(["tail ", KEY[:10]])
    assert joined == f"tail {REDACTED}"


#: Keys of several shapes (a JSON escape, a slash, a repeated start), and texts made of their
#: characters, so that tails which could begin them are common.
SECRETS = st.sampled_from([KEY, "sim-0a1b2c", 'x"y/z', "aab", "é/ü"])
TAILS = st.text(alphabet='ab sk-LEAK0123im"/\\xyzéüu', max_size=30)


def _tail_by_loop(text: str, forms: tuple[str, ...]) -> int:
    """Where a tail that could begin a key starts, by trying every tail: the reference."""
    for start in range(len(text)):
        if any(len(text) - start < len(form) and form.startswith(text[start:]) for form in forms):
            return start
    return len(text)


@settings(max_examples=500, deadline=None)
@given(secret=SECRETS, text=TAILS)
def test_the_tail_held_back_is_the_longest_that_could_begin_the_key(secret, text) -> None:
    forms = Redactor.for_secret(secret).forms
    shield = StreamRedactor(Redactor.for_secret(secret))
    assert shield._hold_from(text) == _tail_by_loop(text, forms)


def _passes_by_loop(text: str, forms: tuple[str, ...]) -> bool:
    """Whether a text goes out as it is: no whole form in it, no tail that could begin one."""
    return _tail_by_loop(text, forms) == len(text) and not any(form in text for form in forms)


@settings(max_examples=500, deadline=None)
@given(secret=SECRETS, text=TAILS)
def test_a_text_passes_exactly_when_it_holds_no_key_and_ends_like_none(secret, text) -> None:
    # One search in C decides it for every delta of a stream (``_stop_pattern``).
    forms = Redactor.for_secret(secret).forms
    shield = StreamRedactor(Redactor.for_secret(secret))
    assert shield._stop is not None
    assert shield._passes(text) == _passes_by_loop(text, forms)


def test_an_event_with_no_text_waits_behind_a_held_one() -> None:
    # A block's stop after a delta that ends like the key's start: out only after that delta.
    shield = StreamRedactor(Redactor.for_secret(KEY))
    stop_raw = {"type": "content_block_stop", "index": 0}
    assert shield.feed(parse_event_data(stop_raw), dumps(stop_raw)) != []
    held = shield.feed(*delta("text, sk-L"))
    assert [event.text for event, _ in held] == ["text, "]
    assert shield.feed(parse_event_data(stop_raw), dumps(stop_raw)) == []
    out = shield.flush()
    assert [event.type for event, _ in out] == ["content_block_delta", "content_block_stop"]
