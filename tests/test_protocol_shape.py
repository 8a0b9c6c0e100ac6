"""The schema layer (``protocol/shape.py``): strict types, unknown fields named in the order
sent, one translation of a location to ``field`` and one table of messages."""

from __future__ import annotations

from typing import Any

import pytest

from playground.protocol.errors import RequestValidationError
from playground.protocol.shape import Shape, either, parse


class Item(Shape):
    noun = "an item object {name, count?}"

    name: str
    count: int | None = None


class Order(Shape):
    items: list[Item]
    note: either("a string or a list of lines", str=str, list=list[str]) = ""  # type: ignore[valid-type]
    urgent: bool = False
    price: float | None = None


def refusal(data: Any, *, field: str | None = None) -> RequestValidationError:
    with pytest.raises(RequestValidationError) as caught:
        parse(Order, data, field=field)
    return caught.value


@pytest.mark.parametrize(
    ("data", "field", "reason"),
    [
        pytest.param({"items": [{"name": "a", "count": True}]}, "items[0].count",
                     "expected an integer, got a boolean", id="bool-for-int"),
        pytest.param({"items": [{"name": "a", "count": 1.5}]}, "items[0].count",
                     "expected an integer, got a number", id="float-for-int"),
        pytest.param({"items": [], "price": "3"}, "price", "expected a number, got a string",
                     id="string-for-number"),
        pytest.param({"items": [], "price": float("nan")}, "price",
                     "expected a number (finite), got nan", id="nan"),
        pytest.param({"items": [], "urgent": None}, "urgent", "expected true or false, got null",
                     id="null-for-bool"),
        pytest.param({"items": {}}, "items", "expected a list, got an object", id="list"),
        pytest.param({"items": [5]}, "items[0]",
                     "expected an item object {name, count?}, got a number", id="noun"),
        pytest.param({}, "items", "required", id="missing"),
        pytest.param({"items": [], "note": 5}, "note",
                     "expected a string or a list of lines, got a number", id="either-kind"),
        pytest.param({"items": [], "note": ["a", 2]}, "note[1]", "expected a string, got a number",
                     id="either-branch-path-has-no-tag"),
        pytest.param({"items": [{"name": "a", "size": 2}]}, "items[0].size",
                     "unknown field (valid: name, count)", id="unknown-nested"),
    ],
)  # fmt: skip
def test_each_mistake_is_one_refusal_naming_its_place(data: Any, field: str, reason: str) -> None:
    error = refusal(data)

    assert (error.field, error.reason) == (field, reason)
    assert error.message == f"{field}: {reason}"


def test_the_first_unknown_field_sent_is_named_before_any_other_problem() -> None:
    error = refusal({"zeta": 1, "items": "x", "alpha": 2})

    assert (error.field, error.reason) == (
        "zeta",
        "unknown field (valid: items, note, urgent, price)",
    )


def test_a_place_is_named_under_the_doors_field() -> None:
    assert refusal({"items": [{}]}, field="request").field == "request.items[0].name"
    assert refusal([1], field="request").field == "request"


def test_a_valid_value_is_typed_and_frozen() -> None:
    order = parse(Order, {"items": [{"name": "a", "count": 2}], "price": 3})

    assert (order.items[0].count, order.price, order.note) == (2, 3.0, "")
    with pytest.raises(ValueError):
        order.urgent = True  # type: ignore[misc]
