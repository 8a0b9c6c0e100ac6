"""The MCP servers file: Claude Desktop's shape read, a bad file named by server and field,
and secrets (env, header values) kept out of every view of a server."""

from __future__ import annotations

import json
import os
import sys

import pytest

from playground.mcp.config import McpConfigError, servers_from_text
from playground.mcp.secrets import secrets_of
from tests import prefork


def read(servers: dict) -> tuple:
    return servers_from_text(json.dumps({"mcpServers": servers}), source="test.json")


def test_reads_stdio_and_http_servers_in_order() -> None:
    servers = read(
        {
            "time": {"command": "uvx", "args": ["mcp-server-time"], "env": {"TZ": "UTC"}},
            "docs": {"url": "https://mcp.example.com/mcp", "headers": {"X-Key": "k"}},
        }
    )
    assert [(s.name, s.transport) for s in servers] == [("time", "stdio"), ("docs", "http")]
    assert servers[0].args == ("mcp-server-time",) and servers[0].env == {"TZ": "UTC"}
    assert servers[1].headers == {"X-Key": "k"}


@pytest.mark.parametrize(
    ("entry", "named"),
    [
        pytest.param({}, "either command", id="neither"),
        pytest.param({"command": "x", "url": "http://h/"}, "either command", id="both"),
        pytest.param({"command": ""}, "command: expected a non-empty string", id="empty-command"),
        pytest.param({"command": "x", "args": "a b"}, "args: expected a list", id="args-text"),
        pytest.param({"command": "x", "env": {"A": 1}}, "env: A: expected a string", id="env"),
        pytest.param({"url": "ftp://h/x"}, "url must be an http", id="scheme"),
        pytest.param({"url": "http://h/", "env": {}}, "env: only for command", id="url-env"),
        pytest.param({"command": "x", "headers": {}}, "headers: only for url", id="cmd-headers"),
        pytest.param({"url": "http://h/", "type": "sse"}, "type 'sse'", id="sse"),
        pytest.param({"command": "x", "comand": 1}, "unknown field 'comand'", id="typo"),
    ],
)
def test_a_bad_entry_is_named_by_server_and_field(entry: dict, named: str) -> None:
    with pytest.raises(McpConfigError) as caught:
        read({"srv": entry})
    assert "server 'srv'" in str(caught.value)
    assert named in str(caught.value)


def test_a_bad_env_value_is_not_quoted_in_the_error() -> None:
    with pytest.raises(McpConfigError) as caught:
        read({"srv": {"command": "x", "env": {"TOKEN": ["sekrit-value"]}}})
    assert "sekrit-value" not in str(caught.value)


def test_not_json_and_wrong_shape() -> None:
    with pytest.raises(McpConfigError, match="not JSON"):
        servers_from_text("{", source="f")
    with pytest.raises(McpConfigError, match="mcpServers"):
        servers_from_text('{"servers": {}}', source="f")


def test_secrets_stay_out_of_repr_and_public_view() -> None:
    (stdio, http) = read(
        {
            "a": {"command": "/usr/bin/tool", "args": ["--x"], "env": {"K": "env-secret"}},
            "b": {"url": "https://u:pw@h.example:8443/mcp?token=q-secret", "headers": {"H": "hs"}},
        }
    )
    for server in (stdio, http):
        shown = repr(server) + json.dumps(server.public())
        for secret in ("env-secret", "hs", "q-secret", "pw"):
            assert secret not in shown
    assert stdio.public() == {"name": "a", "transport": "stdio", "where": "tool"}
    assert http.public()["where"] == "https://h.example:8443/mcp"


def test_a_bad_file_stops_start_up_naming_server_and_field(tmp_path) -> None:
    config = tmp_path / "mcp.json"
    config.write_text(json.dumps({"mcpServers": {"broken": {"url": 5}}}))
    env = {**os.environ, "PLAYGROUND_MCP_CONFIG": str(config)}
    done = prefork.run(
        [sys.executable, "-c", "import playground.settings"], cwd=os.getcwd(), env=env
    )
    assert done.returncode != 0
    assert "ImproperlyConfigured" in done.stderr
    assert "server 'broken': url: expected a non-empty string" in done.stderr


def test_every_secret_of_a_server_is_found_in_each_form_it_may_be_written_in() -> None:
    secrets = secrets_of(
        env={"KEY": "sk-live/42", "TZ": "UTC"},
        headers={"Authorization": "Bearer tok-1234"},
        url="https://ops:p%40ss-word@mcp.example.com/mcp?token=a1b2c3&v=1",
    )
    text = (
        'key sk-live/42, "sk-live\\/42", sk-live%2F42; Bearer tok-1234 and tok-1234 alone; '
        "https://ops:p%40ss-word@mcp.example.com/mcp?token=a1b2c3&v=1 p@ss-word; UTC stays"
    )
    cleaned = secrets.text(text)
    for gone in ("sk-live", "tok-1234", "p%40ss", "p@ss", "a1b2c3", "ops:"):
        assert gone not in cleaned, cleaned
    assert "UTC stays" in cleaned  # shorter than a secret worth looking for on its own
    assert "&[redacted]" in cleaned  # "v=1": a query pair is redacted whole, however short
    clean = {"a": ["nothing", {"b": 1}]}
    assert secrets.value(clean) is clean  # no secret: no copy
    assert secrets.value({"k": ["x tok-1234"]}) == {"k": ["x [redacted]"]}
    assert secrets.unfinished("…sk-li") == 5 and secrets.unfinished("…sk-x") == 0


def test_roots_are_file_uris_with_an_optional_name() -> None:
    text = json.dumps(
        {
            "mcpServers": {
                "s": {"command": "x", "roots": ["file:///a", {"uri": "file:///b", "name": "B"}]}
            }
        }
    )
    (server,) = servers_from_text(text, source="f")
    assert server.roots == (("file:///a", ""), ("file:///b", "B"))
    bad = json.dumps({"mcpServers": {"s": {"url": "https://h/mcp", "roots": ["/etc"]}}})
    with pytest.raises(McpConfigError, match=r"server 's': roots\[0\]: expected a file:// URI"):
        servers_from_text(bad, source="f")
