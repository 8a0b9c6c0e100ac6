"""What an upstream's error body says, in each shape the servers people use write one.

Rule: read defensively, never raise; a shape not known says nothing (the caller then shows an
excerpt of the text). Every error gets a type when its body names any code: the API's own
``error.type`` when given, else the server's code mapped to the API's type (the table below),
else the code itself, so a run's ``error_type`` is never null for a body that said something.
The code stays in the message (``"… (code 1113)"``). Pure.

The shapes, each from the server's documentation or source:

- the Messages API's: ``{"type": "error", "error": {"type", "message"}, "request_id"}``;
- OpenAI's, written by vLLM, LiteLLM's proxy (``ProxyException.to_dict``: ``message``, ``type``,
  ``param``, ``code``; its ``type`` may be the string ``"None"``) and DashScope's compatible
  mode: ``{"error": {"message", "type", "param", "code"}}``;
- GLM (Z.ai, Zhipu): ``{"error": {"code": "1113", "message": …}}``, a business code as a string
  and no type (docs.z.ai, "API Code"): 1000s authentication, 1100s account (1113 in arrears),
  1200s the call (1211 no such model), 1300s policy and limits;
- DashScope (Alibaba Model Studio) native: ``{"code": "InvalidApiKey", "message", "request_id"}``
  at the top level;
- MiniMax: ``{"base_resp": {"status_code": 1004, "status_msg": "login fail: …"}}``, with HTTP 200
  (1002 rate limit, 1004 authentication, 1008 balance, 1026/1027 sensitive content, 2013 bad
  parameters);
- a bare string ``error`` (proxies) or a top-level ``message``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

__all__ = ["ErrorBody", "error_in", "read_error_body"]


@dataclass(frozen=True, slots=True)
class ErrorBody:
    """What an error body says, where it says it (each None when it does not)."""

    error_type: str | None = None
    message: str | None = None
    request_id: str | None = None


#: GLM's business codes by range, then the exceptions inside a range (docs.z.ai "API Code").
_GLM_RANGES = (
    (1000, 1099, "authentication_error"),
    (1100, 1199, "permission_error"),
    (1200, 1299, "invalid_request_error"),
    (1300, 1301, "invalid_request_error"),  # blocked by policy, sensitive content
    (1302, 1399, "rate_limit_error"),  # concurrency, frequency, daily and plan limits
)
_GLM_CODES = {
    500: "api_error",
    1113: "billing_error",  # in arrears
    1211: "not_found_error",  # no such model
    1220: "permission_error",
    1221: "not_found_error",  # the API is offline
    1222: "not_found_error",
    1230: "api_error",
    1234: "api_error",  # network error
}
#: MiniMax's ``base_resp.status_code`` (MiniMax's error code table).
_MINIMAX_CODES = {
    1000: "api_error",
    1001: "timeout_error",
    1002: "rate_limit_error",
    1004: "authentication_error",
    1008: "billing_error",
    1013: "api_error",
    1026: "invalid_request_error",
    1027: "invalid_request_error",
    1039: "rate_limit_error",
    2013: "invalid_request_error",
    2049: "authentication_error",
}
#: DashScope's codes, read without case, ``_`` or what follows a ``.`` (``InvalidApiKey`` and
#: ``invalid_api_key`` alike; ``Throttling.RateQuota`` as ``throttling``).
_DASHSCOPE_CODES = {
    "invalidparameter": "invalid_request_error",
    "invalidparametererror": "invalid_request_error",
    "datainspectionfailed": "invalid_request_error",
    "invalidapikey": "authentication_error",
    "arrearage": "billing_error",
    "accessdenied": "permission_error",
    "modelnotfound": "not_found_error",
    "throttling": "rate_limit_error",
    "limitrequests": "rate_limit_error",
    "internalerror": "api_error",
    "requesttimeout": "timeout_error",
    "serviceunavailable": "overloaded_error",
}


#: An HTTP status given as the code (OpenAI's shape from LiteLLM's proxy, vLLM): the API's type
#: for that status (docs: "HTTP errors").
_STATUS_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    402: "billing_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    500: "api_error",
    504: "timeout_error",
    529: "overloaded_error",
}


def _glm_type(code: int) -> str | None:
    if code in _GLM_CODES:
        return _GLM_CODES[code]
    for low, high, kind in _GLM_RANGES:
        if low <= code <= high:
            return kind
    return None


def _dashscope_type(code: str) -> str | None:
    key = code.split(".", 1)[0].replace("_", "").lower()
    return _DASHSCOPE_CODES.get(key)


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _code_of(value: Any) -> str | None:
    """A code as text: a string, or an integer (never a boolean)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return str(value)
    return _text(value)


def _with_code(message: str | None, code: str | None) -> str | None:
    if code is None:
        return message
    return f"{message} (code {code})" if message else f"code {code}"


def _typed(error_type: Any) -> str | None:
    # LiteLLM's proxy writes a missing type as the string "None".
    kind = _text(error_type)
    return None if kind in (None, "None", "null") else kind


def error_in(value: Any) -> ErrorBody | None:
    """What a decoded JSON value says as an error, or None when it holds no error at all."""
    if isinstance(value, list) and value:
        # An error wrapped in a list (Vertex AI's streaming error): its first item.
        value = value[0]
    if not isinstance(value, dict):
        return None
    request_id = _text(value.get("request_id"))
    error = value.get("error")
    if isinstance(error, dict):
        code = _code_of(error.get("code"))
        error_type = _typed(error.get("type"))
        if error_type is None and code is not None:
            if _is_status(code):
                mapped = _STATUS_TYPES.get(int(code))
            elif code.isdigit():
                mapped = _glm_type(int(code))
            else:
                mapped = _dashscope_type(code)
            error_type = mapped or code
        elif code is not None and code == error_type:
            code = None
        message = _text(error.get("message"))
        if message is None and error_type is None:
            return None
        # An HTTP-like status code (OpenAI's, vLLM's) says nothing the status does not.
        shown = code if code is not None and not _is_status(code) else None
        return ErrorBody(error_type, _with_code(message, shown), request_id)
    if isinstance(error, str):
        return ErrorBody(None, error or None, request_id)
    base = value.get("base_resp")
    if isinstance(base, dict):
        status = base.get("status_code")
        if isinstance(status, int) and not isinstance(status, bool) and status != 0:
            message = _text(base.get("status_msg"))
            return ErrorBody(
                _MINIMAX_CODES.get(status, str(status)),
                _with_code(message, str(status)),
                request_id,
            )
        return None
    code = _code_of(value.get("code"))
    message = _text(value.get("message"))
    if code is not None and message is not None and value.get("type") != "message":
        # DashScope's native shape (a top-level code beside the message).
        return ErrorBody(_dashscope_type(code) or code, _with_code(message, code), request_id)
    if message is not None and value.get("type") not in ("message", "error"):
        return ErrorBody(None, message, request_id)
    return None


def _is_status(code: str) -> bool:
    return code.isdigit() and 100 <= int(code) <= 599 and len(code) == 3


def read_error_body(body: bytes) -> ErrorBody:
    """What an error body's bytes say (:func:`error_in` of its JSON); nothing when it is not
    JSON or names no error."""
    try:
        decoded = json.loads(body)
    except (ValueError, RecursionError):  # RecursionError: nested too deep to parse
        return ErrorBody()
    return error_in(decoded) or ErrorBody()
