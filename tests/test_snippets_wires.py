"""The Python snippets speak the profile's wire: on Vertex AI the anthropic SDK's
``AnthropicVertex`` and an httpx script at the Vertex URL, each run as a person would (their
own process) against a loopback upstream that records what it got; on Chat Completions the
openai SDK's script (run here over a stand-in ``openai`` module that records the call, the
SDK not being a dependency), and the httpx script, which reads Messages events, refused
saying which snippets speak that wire.
"""

from __future__ import annotations

import os
import subprocess
import sys
import types
from pathlib import Path
from typing import Any

import pytest

from playground.protocol.adapters.vertex import VERTEX_VERSION
from playground.protocol.errors import RequestValidationError
from playground.transfer.snippets import code_snippet
from playground.upstream.profiles import Profile, profiles_from_environ
from tests import prefork
from tests.wire_replay import Answer, replay

BODY = {
    "model": "claude-sonnet-4@20250514",
    "max_tokens": 64,
    "system": "Be brief.",
    "top_k": 5,
    "messages": [{"role": "user", "content": [{"type": "text", "text": "Hi"}]}],
}
STREAM = (
    b'event: message_start\ndata: {"type":"message_start","message":{"id":"m1","type":"message",'
    b'"role":"assistant","content":[],"model":"claude-sonnet-4","stop_reason":null,'
    b'"stop_sequence":null,"usage":{"input_tokens":3,"output_tokens":0}}}\n\n'
    b'event: content_block_start\ndata: {"type":"content_block_start","index":0,'
    b'"content_block":{"type":"text","text":""}}\n\n'
    b'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,'
    b'"delta":{"type":"text_delta","text":"Hello from Vertex"}}\n\n'
    b'event: content_block_stop\ndata: {"type":"content_block_stop","index":0}\n\n'
    b'event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"end_turn",'
    b'"stop_sequence":null},"usage":{"output_tokens":3}}\n\n'
    b'event: message_stop\ndata: {"type":"message_stop"}\n\n'
)
#: A safety net for a hung process, not a timing assertion.
PROCESS_LIMIT = 60


def vertex(base_url: str, **extra: str) -> Profile:
    environ = {
        "PLAYGROUND_UPSTREAM_VX_WIRE": "vertex",
        "PLAYGROUND_UPSTREAM_VX_REGION": "us-east5",
        "PLAYGROUND_UPSTREAM_VX_PROJECT": "my-project",
        "PLAYGROUND_UPSTREAM_VX_AUTH": "bearer",
        "PLAYGROUND_UPSTREAM_VX_BASE_URL": base_url,
        **{f"PLAYGROUND_UPSTREAM_VX_{key}": value for key, value in extra.items()},
    }
    return profiles_from_environ(environ, simulator_url="http://sim.test")["vx"]


def run_script(code: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    script = tmp_path / "snippet.py"
    script.write_text(code)
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("ANTHROPIC_", "GOOGLE_")) and "proxy" not in key.lower()
    }
    env["PLAYGROUND_UPSTREAM_VX_API_KEY"] = "ya29.from-the-env"
    return prefork.run(
        [sys.executable, str(script)], cwd=os.getcwd(), env=env, timeout=PROCESS_LIMIT
    )


@pytest.mark.parametrize("lang", ["python-anthropic", "python-httpx"])
def test_the_vertex_scripts_stream_from_the_vertex_url(lang: str, tmp_path: Path) -> None:
    with replay(Answer([STREAM])) as upstream:
        code = code_snippet(lang=lang, profile=vertex(upstream.url, API_KEY="x"), body=BODY)
        done = run_script(code, tmp_path)

    assert done.returncode == 0, done.stderr
    assert "Hello from Vertex" in done.stdout
    [got] = upstream.requests
    assert got["path"] == (
        "/v1/projects/my-project/locations/us-east5/publishers/anthropic/models/"
        "claude-sonnet-4@20250514:streamRawPredict"
    )
    assert got["headers"]["authorization"] == "Bearer ya29.from-the-env"
    # The version is in the body: the SDK's own, or the one the playground sends.
    assert "anthropic_version" in got["body"]
    if lang == "python-httpx":
        assert got["body"]["anthropic_version"] == VERTEX_VERSION
    assert "model" not in got["body"]
    assert got["body"]["top_k"] == 5
    assert "ya29" not in code


def test_a_vertex_profile_with_a_token_command_uses_googles_default_credentials() -> None:
    profile = vertex("", TOKEN_COMMAND="gcloud auth print-access-token")

    code = code_snippet(lang="python-anthropic", profile=profile, body=BODY)

    assert "anthropic.AnthropicVertex(" in code
    assert "region='us-east5'" in code and "project_id='my-project'" in code
    assert "access_token" not in code and "base_url" not in code
    assert "gcloud auth application-default login" in code
    compile(code, "<vertex>", "exec")


def openai_chat() -> Profile:
    environ = {
        "PLAYGROUND_UPSTREAM_VLLM_WIRE": "openai-chat",
        "PLAYGROUND_UPSTREAM_VLLM_BASE_URL": "http://vllm.test",
        "PLAYGROUND_UPSTREAM_VLLM_AUTH": "bearer",
        "PLAYGROUND_UPSTREAM_VLLM_API_KEY": "sk-local",
    }
    return profiles_from_environ(environ, simulator_url="http://sim.test")["vllm"]


def _chunk(content: str | None, finish: str | None = None, usage: Any = None) -> Any:
    delta = types.SimpleNamespace(content=content)
    choices = (
        []
        if content is None and finish is None
        else [types.SimpleNamespace(delta=delta, finish_reason=finish)]
    )
    return types.SimpleNamespace(choices=choices, usage=usage)


def test_the_openai_chat_script_sends_the_translated_body_with_the_openai_sdk(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    made: dict[str, Any] = {}

    class Completions:
        def create(self, **kwargs: Any) -> list[Any]:
            made["create"] = kwargs
            return [_chunk("Hel"), _chunk("lo", "stop"), _chunk(None, usage={"total_tokens": 9})]

    class OpenAI:
        def __init__(self, **kwargs: Any) -> None:
            made["client"] = kwargs
            self.chat = types.SimpleNamespace(completions=Completions())

    monkeypatch.setitem(sys.modules, "openai", types.SimpleNamespace(OpenAI=OpenAI))
    monkeypatch.setenv("PLAYGROUND_UPSTREAM_VLLM_API_KEY", "sk-from-the-env")
    code = code_snippet(lang="python-anthropic", profile=openai_chat(), body=BODY)

    exec(compile(code, "<openai>", "exec"), {"__name__": "__main__"})  # noqa: S102

    assert made["client"] == {"base_url": "http://vllm.test/v1", "api_key": "sk-from-the-env"}
    sent = made["create"]
    assert sent["messages"][0] == {"role": "system", "content": "Be brief."}
    assert sent["extra_body"] == {"top_k": 5}
    assert (sent["stream"], sent["stream_options"]) == (True, {"include_usage": True})
    assert capsys.readouterr().out == ("Hello\nfinish_reason=stop usage={'total_tokens': 9}\n")
    assert "sk-local" not in code


def test_the_httpx_script_is_refused_on_a_wire_that_streams_another_shape() -> None:
    with pytest.raises(RequestValidationError) as refused:
        code_snippet(lang="python-httpx", profile=openai_chat(), body=BODY)

    assert refused.value.field == "lang"
    assert "the openai-chat wire streams another shape" in refused.value.message
    assert "Python (SDK)" in refused.value.message
