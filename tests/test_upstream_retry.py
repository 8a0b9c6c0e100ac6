"""retry: reading retry-after headers and choosing the wait before a retry."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from playground.upstream.retry import BACKOFF_CAP, RETRY_AFTER_CAP, parse_retry_after, retry_delay

NOW = datetime(2025, 1, 1, 12, 0, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("headers", "expected"),
    [
        pytest.param({}, None, id="absent"),
        pytest.param({"retry-after": "3"}, 3.0, id="seconds"),
        pytest.param({"retry-after": " 1.5 "}, 1.5, id="fractional-seconds"),
        pytest.param({"retry-after-ms": "250"}, 0.25, id="milliseconds"),
        pytest.param({"retry-after-ms": "250", "retry-after": "9"}, 0.25, id="ms-wins"),
        pytest.param({"retry-after-ms": "soon", "retry-after": "9"}, 9.0, id="bad-ms-falls-back"),
        pytest.param({"retry-after": "Wed, 01 Jan 2025 12:00:30 GMT"}, 30.0, id="http-date"),
        pytest.param({"retry-after": "Wed, 01 Jan 2025 11:00:00 GMT"}, 0.0, id="date-in-past"),
        pytest.param({"retry-after": "-5"}, None, id="negative"),
        pytest.param({"retry-after": "nan"}, None, id="nan"),
        pytest.param({"retry-after": "later"}, None, id="garbage"),
    ],
)
def test_parse_retry_after(headers, expected):
    assert parse_retry_after(headers, now=lambda: NOW) == expected


@pytest.mark.parametrize(
    ("retry", "expected"),
    [(0, 0.5), (1, 1.0), (2, 2.0), (3, 4.0), (4, BACKOFF_CAP), (10, BACKOFF_CAP)],
)
def test_backoff_doubles_up_to_its_cap(retry, expected):
    assert retry_delay(retry=retry, retry_after=None, random=lambda: 1.0) == expected


def test_jitter_keeps_at_least_half_the_step():
    assert retry_delay(retry=2, retry_after=None, random=lambda: 0.0) == 1.0


@pytest.mark.parametrize(
    ("retry_after", "expected"),
    [(0.0, 0.0), (12.0, 12.0), (RETRY_AFTER_CAP * 10, RETRY_AFTER_CAP)],
    ids=["zero", "as-given", "capped"],
)
def test_retry_after_replaces_the_backoff_within_its_cap(retry_after, expected):
    assert retry_delay(retry=3, retry_after=retry_after, random=lambda: 0.0) == expected
