"""The "View code" snippets, executed: curl and both Python scripts stream from the simulator.

The whole app runs under Daphne on loopback (``live_server_proc``); a conversation is imported
over HTTP, its snippets fetched from the export endpoint and run as a person would run them:
curl through bash, the scripts with this interpreter, each in its own process. The simulator
is deterministic, so all three must stream the very same text.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from typing import Any

import httpx
import pytest

from tests.conftest import LiveServer

BODY = {
    "model": "simulator-1",
    "max_tokens": 300,
    "system": "Answer briefly.",
    # An extra field (protocol.extra_fields): the SDK's script sends it as extra_body.
    "metadata": {"user_id": "snippet-test"},
    "messages": [
        {"role": "user", "content": [{"type": "text", "text": "Tell me about volcanoes"}]}
    ],
}
#: A safety net for a hung process, not a timing assertion.
PROCESS_LIMIT = 60


@pytest.fixture(scope="module")
def snippets(live_server_proc: LiveServer) -> dict[str, str]:
    """Each language's snippet for one imported conversation, fetched over HTTP."""
    with httpx.Client(base_url=live_server_proc.url, timeout=20, trust_env=False) as client:
        client.get("/")  # the csrftoken cookie
        created = client.post(
            "/api/import/",
            json={"request": BODY},
            headers={"X-CSRFToken": client.cookies["csrftoken"]},
        )
        assert created.status_code == 201, created.text
        base = f"/api/conversations/{created.json()['id']}/export/code/"
        found = {}
        for lang in ("curl", "python-anthropic", "python-httpx"):
            response = client.get(base, params={"lang": lang})
            assert response.status_code == 200, response.text
            found[lang] = response.text
    return found


def run(command: list[str]) -> subprocess.CompletedProcess[str]:
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith("ANTHROPIC_") and "proxy" not in key.lower()
    }
    return subprocess.run(
        command, capture_output=True, text=True, env=env, timeout=PROCESS_LIMIT, check=False
    )


def text_of_sse(output: str) -> tuple[str, list[str]]:
    """The streamed text and the event types, from curl's raw event stream."""
    text, types = [], []
    for line in output.splitlines():
        if line.startswith("data:"):
            event = json.loads(line.removeprefix("data:"))
            types.append(event["type"])
            if event["type"] == "content_block_delta" and event["delta"]["type"] == "text_delta":
                text.append(event["delta"]["text"])
    return "".join(text), types


def printed_text(output: str) -> str:
    """What a Python snippet streamed: everything before its final summary line."""
    return output.rsplit("\n", 2)[0]


@pytest.fixture(scope="module")
def curl_result(snippets: dict[str, str]) -> subprocess.CompletedProcess[str]:
    if shutil.which("curl") is None:
        pytest.fail("curl is not installed: apt-get install curl")
    return run(["bash", "-c", snippets["curl"]])


def test_snippets_point_at_the_profiles_real_url(
    snippets: dict[str, str], live_server_proc: LiveServer
) -> None:
    for code in snippets.values():
        assert live_server_proc.simulator_url in code


def test_the_curl_snippet_streams(curl_result: subprocess.CompletedProcess[str]) -> None:
    assert curl_result.returncode == 0, curl_result.stderr
    text, types = text_of_sse(curl_result.stdout)
    assert types[0] == "message_start" and types[-1] == "message_stop"
    assert "content_block_delta" in types
    assert text.strip()


@pytest.mark.parametrize("lang", ["python-anthropic", "python-httpx"])
def test_the_python_snippet_streams_the_same_text(
    snippets: dict[str, str], curl_result: subprocess.CompletedProcess[str], lang: str
) -> None:
    result = run([sys.executable, "-c", snippets[lang]])

    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[-1].startswith("stop_reason=end_turn")
    assert printed_text(result.stdout) == text_of_sse(curl_result.stdout)[0]


def test_the_export_is_the_imported_body(live_server_proc: LiveServer) -> None:
    """The request the snippets send is the one imported (``stream`` added)."""
    with httpx.Client(base_url=live_server_proc.url, timeout=20, trust_env=False) as client:
        client.get("/")
        created = client.post(
            "/api/import/",
            json={"request": BODY},
            headers={"X-CSRFToken": client.cookies["csrftoken"]},
        ).json()
        exported = client.get(f"/api/conversations/{created['id']}/export/request.json")
    body: Any = exported.json()
    assert body == {**BODY, "stream": True}
