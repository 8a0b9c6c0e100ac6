""" "View code": a request body as a runnable curl command or Python script.

Rules:
- A snippet never holds a key. Auth is an environment variable the reader sets
  (``$FRIENDLI_TOKEN``, ``$ANTHROPIC_API_KEY``, ``$PLAYGROUND_UPSTREAM_<NAME>_API_KEY``);
  so is FriendliAI's team header. The base URL is the profile's real one: the owner's own
  export may show server config, a share page never calls this module.
- The body goes in as data (a quoted heredoc for the shell, a Python literal for Python),
  never spliced into code, so no text in a conversation can break out of it. The SDK's
  script passes the body's extra fields as ``extra_body``.
- Pure: no Django, no I/O.
"""

from __future__ import annotations

import pprint
import shlex
from collections.abc import Callable
from typing import Any

from playground.protocol.adapters import PLAIN
from playground.protocol.errors import RequestValidationError
from playground.protocol.json_text import dumps
from playground.protocol.request_body import BODY_KEYS
from playground.upstream.profiles import Profile

SNIPPET_LANGS = ("curl", "python-anthropic", "python-httpx")
#: Header values that identify the owner's account: exported as a variable, like the key.
HEADER_VARIABLES = {"x-friendli-team": "FRIENDLI_TEAM"}


def key_variable(profile: Profile) -> str | None:
    """The environment variable a snippet reads the key from (None: the server takes none).

    The simulator's key is the server's own (a browser never sees it): a snippet sends none.
    """
    if profile.auth == "none" or profile.kind == "simulator":
        return None
    if profile.kind.startswith("friendli"):
        return "FRIENDLI_TOKEN"
    if profile.kind == "anthropic":
        return "ANTHROPIC_API_KEY"
    return f"PLAYGROUND_UPSTREAM_{profile.name.upper().replace('-', '_')}_API_KEY"


def _python_literal(value: Any) -> str:
    # repr of JSON values (dict, list, str, int, float, bool, None) is valid Python source.
    return pprint.pformat(value, indent=1, width=96, sort_dicts=False)


def curl_snippet(*, profile: Profile, body: dict[str, Any]) -> str:
    # What the profile's adapter puts on its wire: its URL, its body (a translation on a wire
    # other than the Messages API's), the headers it sends.
    adapter = profile.adapter
    url = adapter.url(profile.place, model=str(body.get("model") or ""))
    body = adapter.wire_body(body)
    lines = [f"curl -N {shlex.quote(url)}", "-H 'content-type: application/json'"]
    variable = key_variable(profile)
    if variable is not None and profile.auth == "bearer":
        lines.append(f'-H "authorization: Bearer ${variable}"')
    elif variable is not None:
        lines.append(f'-H "x-api-key: ${variable}"')
    for name, value in profile.headers:
        if name in adapter.drops_headers:
            continue
        if name in HEADER_VARIABLES:
            lines.append(f'-H "{name}: ${HEADER_VARIABLES[name]}"')
        else:
            lines.append(f"-H {shlex.quote(f'{name}: {value}')}")
    lines.append("-d @- <<'JSON'")
    # JSON text never holds a raw newline inside a string, so no body line can read "JSON".
    text = dumps(body, indent=True)
    return " \\\n  ".join(lines) + "\n" + text + "\nJSON\n"


def _header_source(profile: Profile, *, skip: tuple[str, ...] = ()) -> list[str]:
    entries = []
    for name, value in profile.headers:
        if name in skip:
            continue
        if name in HEADER_VARIABLES:
            entries.append(f"{name!r}: os.environ[{HEADER_VARIABLES[name]!r}]")
        else:
            entries.append(f"{name!r}: {value!r}")
    return entries


def python_anthropic_snippet(*, profile: Profile, body: dict[str, Any]) -> str:
    variable = key_variable(profile)
    if variable is None:
        auth = 'api_key="not-needed",  # this server takes no key'
    elif profile.auth == "bearer":
        auth = f"auth_token=os.environ[{variable!r}],"
    else:
        auth = f"api_key=os.environ[{variable!r}],"
    # The SDK sends its own anthropic-version header.
    headers = _header_source(profile, skip=("anthropic-version",))
    header_line = f"    default_headers={{{', '.join(headers)}}},\n" if headers else ""
    request = {key: value for key, value in body.items() if key in BODY_KEYS - {"stream"}}
    # Extra fields (protocol.extra_fields) go as the SDK's extra_body, which it merges into the
    # body as they are: a field its version has no parameter for would be a TypeError.
    extra = {key: value for key, value in body.items() if key not in BODY_KEYS}
    if extra:
        request["extra_body"] = extra
    note = ""
    if "max_tokens" not in request:
        note = "# The SDK requires max_tokens; this conversation leaves it to the server.\n"
        request["max_tokens"] = 4096
    return (
        '"""Stream the next turn with the anthropic SDK (pip install anthropic)."""\n\n'
        "import os\n\nimport anthropic\n\n"
        "client = anthropic.Anthropic(\n"
        f"    base_url={profile.base_url!r},\n"
        f"    {auth}\n"
        f"{header_line}"
        ")\n\n"
        f"{note}request = {_python_literal(request)}\n\n"
        "with client.messages.stream(**request) as stream:\n"
        "    for text in stream.text_stream:\n"
        '        print(text, end="", flush=True)\n'
        "    message = stream.get_final_message()\n"
        "print()\n"
        'print(f"stop_reason={message.stop_reason} usage={message.usage}")\n'
    )


def python_httpx_snippet(*, profile: Profile, body: dict[str, Any]) -> str:
    variable = key_variable(profile)
    headers = ["'content-type': 'application/json'"]
    if variable is not None and profile.auth == "bearer":
        headers.append(f"'authorization': f\"Bearer {{os.environ[{variable!r}]}}\"")
    elif variable is not None:
        headers.append(f"'x-api-key': os.environ[{variable!r}]")
    headers += _header_source(profile)
    header_lines = "".join(f"    {entry},\n" for entry in headers)
    return (
        '"""Stream the next turn with httpx and httpx-sse (pip install httpx httpx-sse)."""\n\n'
        "import json\nimport os\n\nimport httpx\nfrom httpx_sse import connect_sse\n\n"
        f"URL = {profile.messages_url!r}\n"
        f"HEADERS = {{\n{header_lines}}}\n"
        f"BODY = {_python_literal({**body, 'stream': True})}\n\n"
        "stop_reason = None\n"
        "with httpx.Client(timeout=httpx.Timeout(60.0, connect=10.0)) as client:\n"
        '    with connect_sse(client, "POST", URL, headers=HEADERS, json=BODY) as source:\n'
        "        if source.response.status_code != 200:\n"
        "            source.response.read()\n"
        '            raise SystemExit(f"HTTP {source.response.status_code}: '
        '{source.response.text}")\n'
        "        for sse in source.iter_sse():\n"
        "            event = json.loads(sse.data)\n"
        '            if event["type"] == "content_block_delta" and '
        'event["delta"]["type"] == "text_delta":\n'
        '                print(event["delta"]["text"], end="", flush=True)\n'
        '            elif event["type"] == "message_delta":\n'
        '                stop_reason = event["delta"].get("stop_reason")\n'
        '            elif event["type"] == "error":\n'
        "                raise SystemExit(f\"\\nerror event: {event['error']}\")\n"
        "print()\n"
        'print(f"stop_reason={stop_reason}")\n'
    )


_BUILDERS: dict[str, Callable[..., str]] = {
    "curl": curl_snippet,
    "python-anthropic": python_anthropic_snippet,
    "python-httpx": python_httpx_snippet,
}


def code_snippet(*, lang: str, profile: Profile, body: dict[str, Any]) -> str:
    """The snippet in ``lang`` (one of :data:`SNIPPET_LANGS`) that sends ``body``."""
    builder = _BUILDERS.get(lang)
    if builder is None:
        raise RequestValidationError(
            f"unknown language {lang!r} (valid: {', '.join(SNIPPET_LANGS)})", field="lang"
        )
    wire = profile.adapter.wire
    if builder is not curl_snippet and wire != PLAIN.wire:
        raise RequestValidationError(
            f"the Python snippets speak the Messages API; this profile's wire is {wire!r}"
            " (curl sends what it sends)",
            field="lang",
        )
    return builder(profile=profile, body=body)
