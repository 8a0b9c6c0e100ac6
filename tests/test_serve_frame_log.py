"""The server colours nothing per frame: autobahn's debug lines' arguments are plain text
(``serve.plain_frame_log_arguments``), made without ``click.style``."""

from __future__ import annotations

import click
import pytest
from autobahn.websocket import protocol

from playground.serve import plain_frame_log_arguments


def test_a_frames_debug_arguments_are_plain_text(monkeypatch: pytest.MonkeyPatch) -> None:
    # Restored after the test, as autobahn had them.
    monkeypatch.setattr(protocol, "hltype", protocol.hltype)
    monkeypatch.setattr(protocol, "hlval", protocol.hlval)
    styled: list[object] = []
    monkeypatch.setattr(click, "style", lambda text, **_: styled.append(text) or text)
    plain_frame_log_arguments()
    method = protocol.WebSocketProtocol.sendData
    assert protocol.hltype(method) == "<WebSocketProtocol.sendData>"
    assert protocol.hlval(1234) == "1234"
    assert styled == []
