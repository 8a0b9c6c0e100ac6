"""The price table, and what a run cost: pure, no Django, no I/O.

Rule: a cost is computed from a price the table names for the run's profile and model, and
from nothing else; where the table names none (or none for a kind of token the run used) the
run has **no price set** (:attr:`Cost.nanos` is None, :attr:`Cost.reason` says why), never a
guess. Amounts are whole billionths of the table's currency ("nanos"): a price per million
tokens times a count of tokens is millionths, so nanos keep prices with up to three decimals
exact, and sums of them are plain integers in any database.

The file (TOML, ``PLAYGROUND_PRICES``, documented in the README)::

    currency = "USD"

    [anthropic."claude-sonnet-4-5*"]      # profile, then a model name or pattern (fnmatch)
    input = 3.00                          # per million tokens
    output = 15.00
    cache_write = 3.75                    # 5-minute cache writes
    cache_write_1h = 6.00                 # 1-hour cache writes (optional)
    cache_read = 0.30

    [friendli-dedicated."my-endpoint-id"]
    gpu_hour = 3.90                       # per GPU-hour, for the run's share of the time
    gpus = 2                              # GPUs behind the endpoint (default 1)
    reserve_seconds = 600                 # a budget's worst case for one run (default 600)

A model name matches exactly first, then the longest pattern that matches. A GPU-hour price
charges a run for the time it streamed, shared with every run on the same profile and model
at the same moment (:func:`share_seconds`): four runs at once each pay a quarter of those
seconds, so the runs of a busy endpoint add up to the time it was busy.

Used by ``playground.usage.ledger`` (at a run's start and end), the grid's columns and
experiments (``cost_of`` of a cell's run), and settings (:func:`read_price_table`).
"""

from __future__ import annotations

import fnmatch
import math
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation
from typing import Any

__all__ = [
    "NANOS",
    "Cost",
    "GpuHourPrice",
    "PriceTable",
    "PriceTableError",
    "TokenPrice",
    "TokenUsage",
    "cost_of",
    "format_amount",
    "read_price_table",
    "share_seconds",
    "worst_case_cost",
    "worst_case_input_tokens",
]

#: Nanos in one unit of the currency.
NANOS = 1_000_000_000
#: Per million tokens to nanos per token: a price of 3.00 is 3,000 nanos a token.
_PER_TOKEN = Decimal(NANOS) / Decimal(1_000_000)

#: The token kinds a token price may name, in the order a usage reports them.
TOKEN_KINDS = ("input", "output", "cache_write", "cache_write_1h", "cache_read")
_GPU_KEYS = ("gpu_hour", "gpus", "reserve_seconds")


class PriceTableError(ValueError):
    """The price file is not a table this module reads; the message names the place."""


@dataclass(frozen=True, slots=True)
class TokenPrice:
    """Prices per million tokens; None where the table names none."""

    input: Decimal | None = None
    output: Decimal | None = None
    cache_write: Decimal | None = None
    cache_write_1h: Decimal | None = None
    cache_read: Decimal | None = None


@dataclass(frozen=True, slots=True)
class GpuHourPrice:
    """A price per GPU-hour (FriendliAI Dedicated endpoints), for a run's share of the time."""

    gpu_hour: Decimal
    gpus: int = 1
    #: What a budget reserves for one run before it is sent: its worst case in seconds.
    reserve_seconds: float = 600.0


Price = TokenPrice | GpuHourPrice


@dataclass(frozen=True, slots=True)
class TokenUsage:
    """A run's tokens, read from the upstream's ``usage`` (:meth:`from_usage`)."""

    input: int = 0
    output: int = 0
    cache_write: int = 0  # 5-minute writes (all of them when the usage does not split them)
    cache_write_1h: int = 0
    cache_read: int = 0

    @classmethod
    def from_usage(cls, usage: Mapping[str, Any] | None) -> TokenUsage:
        usage = usage or {}
        written = _count(usage.get("cache_creation_input_tokens"))
        split = usage.get("cache_creation")
        hour = _count(split.get("ephemeral_1h_input_tokens")) if isinstance(split, dict) else 0
        hour = min(hour, written)
        return cls(
            input=_count(usage.get("input_tokens")),
            output=_count(usage.get("output_tokens")),
            cache_write=written - hour,
            cache_write_1h=hour,
            cache_read=_count(usage.get("cache_read_input_tokens")),
        )

    @property
    def total(self) -> int:
        return self.input + self.output + self.cache_write + self.cache_write_1h + self.cache_read


def _count(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


@dataclass(frozen=True, slots=True)
class Cost:
    """What a run cost: ``nanos`` of ``currency``, or None with the ``reason`` (no price set)."""

    nanos: int | None
    currency: str
    reason: str = ""

    def as_dict(self) -> dict[str, Any]:
        """The JSON a page or an export shows: the amount as a decimal string, or null and why."""
        if self.nanos is None:
            return {"amount": None, "currency": None, "unpriced": self.reason}
        return {"amount": format_amount(self.nanos), "currency": self.currency}


def format_amount(nanos: int) -> str:
    """Nanos as a decimal string of the currency, trailing zeros cut ("0.004215", "12")."""
    text = format(Decimal(nanos) / NANOS, "f")
    return text.rstrip("0").rstrip(".") if "." in text else text


@dataclass(frozen=True, slots=True)
class PriceTable:
    """Every price the file names, by profile; :meth:`price_for` finds a run's."""

    currency: str = "USD"
    #: profile -> ((model name or pattern, price), ...), in the file's order.
    by_profile: Mapping[str, tuple[tuple[str, Price], ...]] | None = None

    def price_for(self, *, profile: str, model: str) -> Price | None:
        entries = (self.by_profile or {}).get(profile, ())
        for name, price in entries:
            if name == model:
                return price
        matches = [
            (len(name), price) for name, price in entries if fnmatch.fnmatchcase(model, name)
        ]
        return max(matches, key=lambda match: match[0])[1] if matches else None

    def cost(
        self, *, profile: str, model: str, usage: TokenUsage, busy_seconds: float = 0.0
    ) -> Cost:
        """What a run on ``profile``/``model`` cost (see :func:`cost_of`)."""
        price = self.price_for(profile=profile, model=model)
        if price is None:
            return Cost(None, self.currency, f"no price set for {profile} / {model}")
        return cost_of(price=price, usage=usage, busy_seconds=busy_seconds, currency=self.currency)


def cost_of(*, price: Price, usage: TokenUsage, busy_seconds: float, currency: str) -> Cost:
    """A run's cost: each kind of token times its price, or (a GPU-hour price) the run's share
    of the endpoint's time, ``busy_seconds`` (:func:`share_seconds`). A kind of token the run
    used whose price the table does not name makes the whole run unpriced: a part of a cost is
    no cost."""
    if isinstance(price, GpuHourPrice):
        hours = Decimal(repr(max(0.0, busy_seconds))) / 3600
        return Cost(_nanos(price.gpu_hour * price.gpus * hours * NANOS), currency)
    total = Decimal(0)
    missing = []
    for kind in TOKEN_KINDS:
        tokens = getattr(usage, kind)
        per_million = getattr(price, kind)
        if not tokens:
            continue
        if per_million is None:
            missing.append(kind)
            continue
        total += per_million * tokens * _PER_TOKEN
    if missing:
        return Cost(None, currency, f"no {' or '.join(missing)} price set")
    return Cost(_nanos(total), currency)


def _nanos(amount: Decimal) -> int:
    return int(amount.quantize(Decimal(1), rounding=ROUND_HALF_UP))


def worst_case_cost(*, price: Price | None, input_tokens: int, max_tokens: int) -> int | None:
    """What a budget reserves for a run before it is sent, in nanos (None: no price set).

    Every input token at the dearest input rate (a cache write costs more than a plain
    input), every one of ``max_tokens`` at the output rate; a GPU-hour price its
    ``reserve_seconds`` alone on the endpoint."""
    if price is None:
        return None
    if isinstance(price, GpuHourPrice):
        hours = Decimal(repr(price.reserve_seconds)) / 3600
        return _nanos(price.gpu_hour * price.gpus * hours * NANOS)
    rates = [rate for rate in (price.input, price.cache_write, price.cache_write_1h) if rate]
    if price.output is None or not rates:
        return None
    worst = max(rates) * input_tokens + price.output * max_tokens
    return _nanos(worst * _PER_TOKEN)


def share_seconds(
    *, start: float, end: float, others: Iterable[tuple[float, float | None]]
) -> float:
    """The run's share of the endpoint's time from ``start`` to ``end`` (seconds on one clock):
    each instant counted as 1/n, n the runs streaming then (this one and each of ``others``,
    ``(start, end)`` with None for a run still streaming). Exact at the run's end: a run that
    overlaps it has started by then, and one still streaming streams at least until then."""
    if end <= start:
        return 0.0
    edges: list[tuple[float, int]] = []
    for other_start, other_end in others:
        begin = max(start, other_start)
        finish = end if other_end is None else min(end, other_end)
        if finish > begin:
            edges += [(begin, 1), (finish, -1)]
    edges.sort()
    share = 0.0
    running, moment = 1, start
    for instant, change in edges:
        share += (instant - moment) / running
        running += change
        moment = instant
    return share + (end - moment) / running


#: Tokens a worst case counts for each image (Anthropic's largest image after its resizing,
#: about 1,600) and for each 50 KB of a document (a PDF page is 1,500 to 3,000 tokens).
IMAGE_TOKENS = 1_600
DOCUMENT_TOKENS_PER_50KB = 3_000


def worst_case_input_tokens(body: Mapping[str, Any]) -> int:
    """An estimate of a request's input tokens meant to err high: half its characters of text
    (tools and schema included; English under BPE is about a quarter), plus
    :data:`IMAGE_TOKENS` an image and :data:`DOCUMENT_TOKENS_PER_50KB` per 50 KB of a file."""
    counter = _Counter()
    counter.walk(body.get("system"))
    counter.walk(body.get("messages"))
    for key in ("tools", "output_config", "tool_choice"):
        value = body.get(key)
        if value:
            counter.chars += len(repr(value))
    return math.ceil(counter.chars / 2) + counter.extra


#: Keys whose values are no text the model reads as such (ids, markers, a role's name).
_NOT_TEXT = frozenset({"type", "id", "tool_use_id", "signature", "cache_control", "role"})


class _Counter:
    __slots__ = ("chars", "extra")

    def __init__(self) -> None:
        self.chars = 0
        self.extra = 0

    def walk(self, value: Any) -> None:
        if isinstance(value, str):
            self.chars += len(value)
        elif isinstance(value, list):
            for item in value:
                self.walk(item)
        elif isinstance(value, dict):
            kind = value.get("type")
            if kind == "image":
                self.extra += IMAGE_TOKENS
            elif kind == "document":
                data = (value.get("source") or {}).get("data")
                size = len(data) * 3 // 4 if isinstance(data, str) else 0
                self.extra += DOCUMENT_TOKENS_PER_50KB * max(1, math.ceil(size / 50_000))
            else:
                for key, item in value.items():
                    if key not in _NOT_TEXT:
                        self.walk(item)


def read_price_table(text: str, *, source: str) -> PriceTable:
    """The table a price file holds; :class:`PriceTableError` names the place of a mistake."""
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise PriceTableError(f"{source}: not TOML ({exc})") from None
    currency = raw.pop("currency", "USD")
    if not isinstance(currency, str) or not currency.strip():
        raise PriceTableError(f'{source}: currency must be a name such as "USD"')
    by_profile: dict[str, tuple[tuple[str, Price], ...]] = {}
    for profile, models in raw.items():
        if not isinstance(models, dict):
            raise PriceTableError(
                f'{source}: {profile!r} must be a table of models ([{profile}."model"])'
            )
        by_profile[profile] = tuple(
            (model, _price(fields, where=f"{source}: [{profile}.{model!r}]"))
            for model, fields in models.items()
        )
    return PriceTable(currency=currency.strip(), by_profile=by_profile)


def _price(fields: Any, *, where: str) -> Price:
    if not isinstance(fields, dict):
        raise PriceTableError(f"{where} must be a table of prices")
    unknown = sorted(set(fields) - set(TOKEN_KINDS) - set(_GPU_KEYS))
    if unknown:
        raise PriceTableError(
            f"{where}: unknown key {unknown[0]!r} (use {', '.join(TOKEN_KINDS + _GPU_KEYS)})"
        )
    if "gpu_hour" in fields:
        tokens = sorted(set(fields) & set(TOKEN_KINDS))
        if tokens:
            raise PriceTableError(f"{where}: a gpu_hour price takes no token price ({tokens[0]})")
        gpus = fields.get("gpus", 1)
        if not isinstance(gpus, int) or isinstance(gpus, bool) or gpus < 1:
            raise PriceTableError(f"{where}: gpus must be a whole number of at least 1")
        reserve = _amount(fields.get("reserve_seconds", 600), where=f"{where} reserve_seconds")
        return GpuHourPrice(
            gpu_hour=_amount(fields["gpu_hour"], where=f"{where} gpu_hour"),
            gpus=gpus,
            reserve_seconds=float(reserve),
        )
    named = {
        kind: _amount(fields[kind], where=f"{where} {kind}")
        for kind in TOKEN_KINDS
        if kind in fields
    }
    if not named:
        raise PriceTableError(
            f"{where}: name at least one price ({', '.join(TOKEN_KINDS)} or gpu_hour)"
        )
    return TokenPrice(**named)


def _amount(value: Any, *, where: str) -> Decimal:
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise PriceTableError(f"{where} must be a number")
    try:
        # Through its text: 0.3 stays 0.3, not the float nearest it.
        amount = Decimal(str(value))
    except InvalidOperation:
        raise PriceTableError(f"{where} must be a number, got {value!r}") from None
    if not amount.is_finite() or amount < 0:
        raise PriceTableError(f"{where} must be a number of at least 0")
    return amount
