"""The price table and a run's cost (playground.usage.prices): pure, exact to the billionth."""

from __future__ import annotations

from decimal import Decimal

import pytest

from playground.usage.prices import (
    GpuHourPrice,
    PriceTable,
    PriceTableError,
    TokenPrice,
    TokenUsage,
    cost_of,
    format_amount,
    read_price_table,
    share_seconds,
    worst_case_cost,
    worst_case_input_tokens,
)

TABLE = """
currency = "EUR"

[anthropic."claude-sonnet-4-5*"]
input = 3.00
output = 15.00
cache_write = 3.75
cache_read = 0.30

[anthropic."claude-sonnet-4-5-20250929"]
input = 2
output = 10

[anthropic."claude-*"]
input = 1
output = 1

[friendli-dedicated."ep-1"]
gpu_hour = 3.6
gpus = 2
"""


def table() -> PriceTable:
    return read_price_table(TABLE, source="prices.toml")


def test_an_exact_name_wins_then_the_longest_pattern():
    prices = table()
    exact = prices.price_for(profile="anthropic", model="claude-sonnet-4-5-20250929")
    assert exact == TokenPrice(input=Decimal(2), output=Decimal(10))
    longest = prices.price_for(profile="anthropic", model="claude-sonnet-4-5-latest")
    assert isinstance(longest, TokenPrice) and longest.input == Decimal("3.00")
    assert prices.price_for(profile="anthropic", model="claude-haiku").input == Decimal(1)
    assert prices.price_for(profile="anthropic", model="gpt-4") is None
    assert prices.price_for(profile="simulator", model="claude-sonnet-4-5") is None


def test_a_token_cost_is_each_kind_at_its_price_to_the_billionth():
    usage = TokenUsage.from_usage(
        {
            "input_tokens": 1000,
            "output_tokens": 200,
            "cache_creation_input_tokens": 100,
            "cache_read_input_tokens": 7,
        }
    )
    cost = table().cost(profile="anthropic", model="claude-sonnet-4-5", usage=usage)
    # 1000*3 + 200*15 + 100*3.75 + 7*0.30 millionths = 6377.1 millionths
    assert cost.nanos == 6_377_100
    assert cost.as_dict() == {"amount": "0.0063771", "currency": "EUR"}


def test_a_kind_of_token_without_its_price_leaves_the_run_unpriced_not_guessed():
    usage = TokenUsage.from_usage(
        {"input_tokens": 10, "output_tokens": 1, "cache_read_input_tokens": 5}
    )
    cost = table().cost(profile="anthropic", model="claude-sonnet-4-5-20250929", usage=usage)
    assert cost.nanos is None and cost.reason == "no cache_read price set"
    hour = TokenUsage.from_usage(
        {
            "input_tokens": 1,
            "cache_creation_input_tokens": 9,
            "cache_creation": {"ephemeral_1h_input_tokens": 4, "ephemeral_5m_input_tokens": 5},
        }
    )
    assert (hour.cache_write, hour.cache_write_1h) == (5, 4)
    one_hour = table().cost(profile="anthropic", model="claude-sonnet-4-5", usage=hour)
    assert one_hour.nanos is None and "cache_write_1h" in one_hour.reason


def test_no_price_set_names_the_profile_and_model():
    cost = table().cost(profile="simulator", model="simulator-1", usage=TokenUsage(input=3))
    assert cost.nanos is None
    assert cost.as_dict() == {
        "amount": None,
        "currency": None,
        "unpriced": "no price set for simulator / simulator-1",
    }


def test_a_gpu_hour_price_charges_the_share_of_the_time():
    price = table().price_for(profile="friendli-dedicated", model="ep-1")
    assert isinstance(price, GpuHourPrice) and price.gpus == 2
    # 90 s on 2 GPUs at 3.6 an hour: 0.18
    cost = cost_of(price=price, usage=TokenUsage(), busy_seconds=90.0, currency="EUR")
    assert cost.nanos == 180_000_000 and format_amount(cost.nanos) == "0.18"


@pytest.mark.parametrize(
    ("others", "share"),
    [
        pytest.param([], 10.0, id="alone"),
        pytest.param([(0.0, 10.0)], 5.0, id="one-beside-it-all-along"),
        pytest.param([(5.0, None)], 7.5, id="one-still-streaming-from-half-way"),
        pytest.param([(-5.0, 2.0), (8.0, 30.0)], 2 / 2 + 6 + 2 / 2, id="one-before-one-after"),
        pytest.param([(0.0, 10.0), (0.0, 10.0), (0.0, 10.0)], 2.5, id="four-at-once"),
        pytest.param([(20.0, 30.0)], 10.0, id="not-overlapping"),
    ],
)
def test_share_seconds(others, share):
    assert share_seconds(start=0.0, end=10.0, others=others) == pytest.approx(share)


def test_shares_of_runs_at_once_add_up_to_the_busy_time():
    runs = [(0.0, 10.0), (2.0, 6.0), (4.0, 12.0)]
    total = sum(
        share_seconds(start=s, end=e, others=[r for r in runs if r != (s, e)]) for s, e in runs
    )
    assert total == pytest.approx(12.0)


def test_the_worst_case_takes_the_dearest_input_rate_and_every_max_token():
    price = table().price_for(profile="anthropic", model="claude-sonnet-4-5")
    # 100 inputs at 3.75 (a cache write) + 50 outputs at 15
    assert worst_case_cost(price=price, input_tokens=100, max_tokens=50) == 1_125_000
    assert worst_case_cost(price=None, input_tokens=1, max_tokens=1) is None
    gpu = table().price_for(profile="friendli-dedicated", model="ep-1")
    assert worst_case_cost(price=gpu, input_tokens=0, max_tokens=0) == 1_200_000_000


def test_the_worst_case_input_errs_high():
    body = {
        "system": "x" * 40,
        "messages": [
            {"role": "user", "content": [{"type": "text", "text": "y" * 60}]},
            {"role": "user", "content": [{"type": "image", "source": {"data": "AAAA"}}]},
        ],
    }
    assert worst_case_input_tokens(body) == 50 + 1600


@pytest.mark.parametrize(
    ("text", "names"),
    [
        pytest.param("currency = 3", "currency", id="currency"),
        pytest.param(
            "[anthropic]\nx = 1", "[anthropic.'x'] must be a table", id="model-not-a-table"
        ),
        pytest.param('[a."m"]\ninput = "cheap"', "[a.'m'] input", id="not-a-number"),
        pytest.param('[a."m"]\ninput = -1', "at least 0", id="negative"),
        pytest.param('[a."m"]\ninptu = 1', "'inptu'", id="unknown-key"),
        pytest.param('[a."m"]\ngpu_hour = 1\ninput = 1', "no token price", id="both"),
        pytest.param('[a."m"]\ngpu_hour = 1\ngpus = 0', "gpus", id="no-gpus"),
        pytest.param('[a."m"]', "at least one price", id="empty"),
        pytest.param("currency = ", "not TOML", id="not-toml"),
    ],
)
def test_a_bad_table_is_refused_naming_the_place(text, names):
    with pytest.raises(PriceTableError) as caught:
        read_price_table(text, source="prices.toml")
    assert names in str(caught.value) and str(caught.value).startswith("prices.toml")
