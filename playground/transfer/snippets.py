""" "View code": a request body as a runnable curl command or Python script.

Each speaks the profile's wire, as its adapter puts the request on it: curl sends the adapter's
URL, body and headers; the SDK script (``python-anthropic``, shown as "Python (SDK)") uses the
SDK of the wire (``Adapter.sdk``): Anthropic's client, ``anthropic.AnthropicVertex`` for
Vertex AI (its region and project; the SDK puts the model in the URL and the version in the
body), or OpenAI's for Chat Completions (the body translated as the playground sends it); the
httpx script reads a stream of Messages events, so a wire that streams another shape
(``Adapter.streams_messages``) is refused for it, saying which snippets speak it.

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


#: The Messages body keys every anthropic SDK since 0.40 names as parameters of
#: ``messages.stream`` (2.x dropped temperature, top_p and top_k).
_SDK_PARAMETERS = BODY_KEYS - {"stream", "temperature", "top_p", "top_k"}


def _sdk_request(body: dict[str, Any]) -> tuple[dict[str, Any], str]:
    """The SDK's keyword arguments for a Messages ``body``, and a note to print above them."""
    request = {key: value for key, value in body.items() if key in _SDK_PARAMETERS}
    # The rest (the extra fields of protocol.extra_fields, and the sampling settings, which
    # recent SDKs no longer name) go as the SDK's extra_body, which it merges into the body as
    # they are: a field its version has no parameter for would be a TypeError.
    extra = {key: value for key, value in body.items() if key not in _SDK_PARAMETERS | {"stream"}}
    if extra:
        request["extra_body"] = extra
    note = ""
    if "max_tokens" not in request:
        note = "# The SDK requires max_tokens; this conversation leaves it to the server.\n"
        request["max_tokens"] = 4096
    return request, note


_MESSAGES_STREAM = (
    "with client.messages.stream(**request) as stream:\n"
    "    for text in stream.text_stream:\n"
    '        print(text, end="", flush=True)\n'
    "    message = stream.get_final_message()\n"
    "print()\n"
    'print(f"stop_reason={message.stop_reason} usage={message.usage}")\n'
)


def python_anthropic_snippet(*, profile: Profile, body: dict[str, Any]) -> str:
    """The script of the wire's own SDK (``Adapter.sdk``)."""
    sdk = profile.adapter.sdk
    if sdk == "openai":
        return _python_openai_snippet(profile=profile, body=body)
    if sdk == "anthropic-vertex":
        return _python_vertex_snippet(profile=profile, body=body)
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
    request, note = _sdk_request(body)
    return (
        '"""Stream the next turn with the anthropic SDK (pip install anthropic)."""\n\n'
        "import os\n\nimport anthropic\n\n"
        "client = anthropic.Anthropic(\n"
        f"    base_url={profile.base_url!r},\n"
        f"    {auth}\n"
        f"{header_line}"
        ")\n\n"
        f"{note}request = {_python_literal(request)}\n\n" + _MESSAGES_STREAM
    )


def _python_vertex_snippet(*, profile: Profile, body: dict[str, Any]) -> str:
    variable = key_variable(profile)
    if profile.token_command or profile.token_file or variable is None:
        # The playground reads its token from a command or file; a person has gcloud.
        auth = "    # Google's default credentials: gcloud auth application-default login\n"
    else:
        auth = f"    access_token=os.environ[{variable!r}],\n"
    # The SDK puts the version in the body, the model in the URL; its base URL ends in /v1.
    base = f"    base_url={profile.base_url + '/v1'!r},\n" if profile.base_url else ""
    headers = _header_source(profile, skip=("anthropic-version", *profile.adapter.drops_headers))
    header_line = f"    default_headers={{{', '.join(headers)}}},\n" if headers else ""
    request, note = _sdk_request(body)
    return (
        '"""Stream the next turn from Vertex AI with the anthropic SDK'
        ' (pip install "anthropic[vertex]")."""\n\n'
        "import os\n\nimport anthropic\n\n"
        "client = anthropic.AnthropicVertex(\n"
        f"    region={profile.region!r},\n"
        f"    project_id={profile.project!r},\n"
        f"{auth}{base}{header_line}"
        ")\n\n"
        f"{note}request = {_python_literal(request)}\n\n" + _MESSAGES_STREAM
    )


#: The keyword arguments OpenAI's ``chat.completions.create`` takes; a field of the translated
#: body outside them (a server's own: top_k, chat_template_kwargs) goes in ``extra_body``.
_OPENAI_PARAMETERS = frozenset(
    {
        "model",
        "messages",
        "max_tokens",
        "max_completion_tokens",
        "temperature",
        "top_p",
        "stop",
        "tools",
        "tool_choice",
        "parallel_tool_calls",
        "user",
        "seed",
        "n",
        "presence_penalty",
        "frequency_penalty",
        "logprobs",
        "top_logprobs",
        "response_format",
        "reasoning_effort",
        "metadata",
    }
)


def _python_openai_snippet(*, profile: Profile, body: dict[str, Any]) -> str:
    adapter = profile.adapter
    sent = adapter.wire_body({**body, "stream": True})
    request = {key: value for key, value in sent.items() if key in _OPENAI_PARAMETERS}
    extra = {
        key: value
        for key, value in sent.items()
        if key not in _OPENAI_PARAMETERS and key not in ("stream", "stream_options")
    }
    if extra:
        request["extra_body"] = extra
    variable = key_variable(profile)
    headers = _header_source(profile, skip=tuple(adapter.drops_headers))
    if variable is None:
        auth = 'api_key="not-needed",  # this server takes no key'
    elif profile.auth == "bearer":
        auth = f"api_key=os.environ[{variable!r}],"
    else:
        auth = 'api_key="not-needed",  # the key goes in x-api-key'
        headers.insert(0, f"'x-api-key': os.environ[{variable!r}]")
    header_line = f"    default_headers={{{', '.join(headers)}}},\n" if headers else ""
    return (
        '"""Stream the next turn over Chat Completions with the openai SDK (pip install openai):'
        '\nthe conversation translated as the playground sends it."""\n\n'
        "import os\n\nimport openai\n\n"
        "client = openai.OpenAI(\n"
        f"    base_url={profile.base_url + '/v1'!r},\n"
        f"    {auth}\n"
        f"{header_line}"
        ")\n\n"
        f"request = {_python_literal(request)}\n\n"
        "stream = client.chat.completions.create(\n"
        '    **request, stream=True, stream_options={"include_usage": True}\n'
        ")\n"
        "finish_reason = usage = None\n"
        "for chunk in stream:\n"
        "    if chunk.choices:\n"
        "        choice = chunk.choices[0]\n"
        "        if choice.delta.content:\n"
        '            print(choice.delta.content, end="", flush=True)\n'
        "        finish_reason = choice.finish_reason or finish_reason\n"
        "    usage = chunk.usage or usage\n"
        "print()\n"
        'print(f"finish_reason={finish_reason} usage={usage}")\n'
    )


def python_httpx_snippet(*, profile: Profile, body: dict[str, Any]) -> str:
    adapter = profile.adapter
    url = adapter.url(profile.place, model=str(body.get("model") or ""))
    sent = adapter.wire_body({**body, "stream": True})
    variable = key_variable(profile)
    headers = ["'content-type': 'application/json'"]
    if variable is not None and profile.auth == "bearer":
        headers.append(f"'authorization': f\"Bearer {{os.environ[{variable!r}]}}\"")
    elif variable is not None:
        headers.append(f"'x-api-key': os.environ[{variable!r}]")
    headers += _header_source(profile, skip=tuple(adapter.drops_headers))
    header_lines = "".join(f"    {entry},\n" for entry in headers)
    return (
        '"""Stream the next turn with httpx and httpx-sse (pip install httpx httpx-sse)."""\n\n'
        "import json\nimport os\n\nimport httpx\nfrom httpx_sse import connect_sse\n\n"
        f"URL = {url!r}\n"
        f"HEADERS = {{\n{header_lines}}}\n"
        f"BODY = {_python_literal(sent)}\n\n"
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
    adapter = profile.adapter
    if builder is python_httpx_snippet and not adapter.streams_messages:
        raise RequestValidationError(
            f"the httpx script reads the Messages API's stream, and the {adapter.wire} wire"
            " streams another shape: curl and the Python (SDK) script send this profile's"
            " request",
            field="lang",
        )
    return builder(profile=profile, body=body)
