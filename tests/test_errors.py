"""The error tree: every class carries its own HTTP status and close code, and a stable code."""

from __future__ import annotations

import importlib
import pkgutil

import pytest

import playground
from playground.protocol import errors
from playground.protocol.errors import PlaygroundError, RequestValidationError


def _tree(root: type[PlaygroundError]) -> list[type[PlaygroundError]]:
    found = [root]
    for sub in root.__subclasses__():
        found += _tree(sub)
    return found


def _import_the_app() -> None:
    # Every module, so the tree below holds every class the app defines, whatever other test
    # modules happened to import first. Left out: the server entry points (asgi builds the
    # application; serve and the runserver command install Daphne's Twisted reactor), which
    # define no errors.
    skipped = ("playground.asgi", "playground.serve", "playground.management")
    for module in pkgutil.walk_packages(playground.__path__, "playground."):
        if not module.name.startswith(skipped):
            importlib.import_module(module.name)


_import_the_app()
TREE = _tree(PlaygroundError)


def test_every_error_of_the_app_is_drawn_in_the_one_module() -> None:
    # InternalError (the consumer's) and MalformedEventError (the parser's) lived outside.
    assert {cls.__module__ for cls in TREE} == {"playground.protocol.errors"}
    assert {"InternalError", "MalformedEventError"} <= {cls.__name__ for cls in TREE}


@pytest.mark.parametrize("cls", TREE, ids=lambda cls: cls.__name__)
def test_each_class_is_in_the_module_docstring_with_its_code_and_status(
    cls: type[PlaygroundError],
) -> None:
    doc = errors.__doc__ or ""
    line = next(line for line in doc.splitlines() if f" {cls.__name__} " in f"{line} ")
    assert cls.code in line
    if not issubclass(cls, errors.UpstreamError) or cls is errors.UpstreamError:
        assert str(cls.http_status) in line


@pytest.mark.parametrize("cls", TREE, ids=lambda cls: cls.__name__)
def test_the_close_code_is_4000_and_the_http_status(cls: type[PlaygroundError]) -> None:
    assert 400 <= cls.http_status < 600
    assert cls.close_code == 4000 + cls.http_status


def test_codes_are_unique() -> None:
    codes = [cls.code for cls in TREE]
    assert len(codes) == len(set(codes))


@pytest.mark.parametrize(
    ("error", "status", "close"),
    [
        (errors.RequestValidationError("x", field="f"), 400, 4400),
        (errors.Forbidden("x"), 403, 4403),
        (errors.NotFound("x"), 404, 4404),
        (errors.Conflict("x"), 409, 4409),
        (errors.RunBusy("x"), 409, 4409),
        (errors.PayloadTooLarge("x"), 413, 4413),
        (errors.InternalError("x"), 500, 4500),
        (errors.ShuttingDown("x"), 503, 4503),
        (errors.Unavailable("x"), 503, 4503),
    ],
    ids=lambda value: type(value).__name__ if isinstance(value, Exception) else str(value),
)
def test_statuses_the_wire_relies_on(error: PlaygroundError, status: int, close: int) -> None:
    assert (error.http_status, error.close_code) == (status, close)


def test_headers_that_go_with_an_error() -> None:
    allowed = errors.MethodNotAllowed("PUT", allowed=frozenset({"GET", "POST"}))
    assert allowed.message == "PUT is not allowed here (allowed: GET, POST)"
    assert allowed.http_headers() == {"Allow": "GET, POST"}
    assert errors.Unavailable("x").http_headers() == {"Retry-After": "1"}
    assert errors.NotFound("x").http_headers() == {}


@pytest.mark.parametrize(
    ("field", "reason", "message"),
    [
        pytest.param("temperature", "temperature must be <= 1", "temperature must be <= 1",
                     id="own-name"),
        pytest.param("request.temperature", "temperature must be <= 1",
                     "request.temperature must be <= 1", id="path"),
        pytest.param("tools[0].name", "name must match x", "tools[0].name must match x",
                     id="indexed-path"),
        pytest.param("model", "required", "model: required", id="other-words"),
        pytest.param("top", "top_k must be", "top: top_k must be", id="a-longer-word"),
        pytest.param(None, "nothing named", "nothing named", id="no-field"),
    ],
)  # fmt: skip
def test_a_validation_message_names_its_field_once(
    field: str | None, reason: str, message: str
) -> None:
    error = RequestValidationError(reason, field=field)
    assert (error.message, error.field, error.reason) == (message, field, reason)
