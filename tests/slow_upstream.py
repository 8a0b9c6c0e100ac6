"""A model-list upstream of its own process, misbehaving on demand: ``python -m
tests.slow_upstream MODE PORT_FILE``. ``trickle``: a valid list, one byte every 0.2 s;
``huge``: a valid list of many megabytes; ``split-key``: a Messages stream (POST) that sends
the key it was given (argv[3]) cut across two text deltas, across two blocks and across two
pieces of a tool call's JSON; ``split-key-everywhere``: one text cut into two and into three
deltas at every place (``every_cut``). It writes its port to PORT_FILE once it listens, and
on each request appends how many body bytes it sent before the client went away to
PORT_FILE.sent (what the tests read, instead of timing)."""

from __future__ import annotations

import json
import socket
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path


def _body(mode: str) -> bytes:
    count = 50 if mode == "trickle" else 120_000
    data = [{"type": "model", "id": f"model-{i:06d}-" + "x" * 30} for i in range(count)]
    return json.dumps({"data": data, "has_more": False}).encode()


def _delta(index: int, kind: str, field: str, value: str) -> dict:
    return {"type": "content_block_delta", "index": index, "delta": {"type": kind, field: value}}


def _block(index: int, block: dict) -> dict:
    return {"type": "content_block_start", "index": index, "content_block": block}


def _message(message_id: str) -> dict:
    """A ``message_start``'s empty message, as the split-key streams begin."""
    return {
        "id": message_id,
        "type": "message",
        "role": "assistant",
        "model": "split-1",
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": {"input_tokens": 1, "output_tokens": 1},
    }


def split_key_stream(key: str) -> bytes:
    """A stream with ``key`` cut at three places, as an upstream may stream any text."""
    a, b = key[:6], key[6:]
    text = {"type": "text", "text": ""}
    tool = {"type": "tool_use", "id": "toolu_1", "name": "lookup", "input": {}}
    message = _message("msg_split")
    events = [
        {"type": "message_start", "message": message},
        _block(0, text),
        _delta(0, "text_delta", "text", f"one {a}"),
        _delta(0, "text_delta", "text", f"{b} two {a}"),
        {"type": "content_block_stop", "index": 0},
        _block(1, text),
        _delta(1, "text_delta", "text", f"{b} three"),
        {"type": "content_block_stop", "index": 1},
        _block(2, tool),
        _delta(2, "input_json_delta", "partial_json", f'{{"q": "{a}'),
        _delta(2, "input_json_delta", "partial_json", f'{b}"}}'),
        {"type": "content_block_stop", "index": 2},
        {
            "type": "message_delta",
            "delta": {"stop_reason": "tool_use", "stop_sequence": None},
            "usage": {"output_tokens": 9},
        },
        {"type": "message_stop"},
    ]
    return "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events).encode()


def every_cut(key: str) -> list[list[int]]:
    """Every way to cut ``key`` into two or three pieces (the places of the cuts)."""
    size = len(key)
    return [[i] for i in range(1, size)] + [
        [i, j] for i in range(1, size) for j in range(i + 1, size)
    ]


def every_cut_stream(key: str) -> bytes:
    """One text block: ``key`` cut at each of :func:`every_cut`, each time between `` see``
    and ``s,`` (so a delta ends like the key's start, too)."""
    deltas = []
    for cuts in every_cut(key):
        bounds = [0, *cuts, len(key)]
        pieces = [key[a:b] for a, b in zip(bounds, bounds[1:], strict=False)]
        for text in [" see ", *pieces[:-1], pieces[-1] + "s,"]:
            deltas.append(_delta(0, "text_delta", "text", text))
    message = _message("msg_every_cut")
    events = [
        {"type": "message_start", "message": message},
        _block(0, {"type": "text", "text": ""}),
        *deltas,
        {"type": "content_block_stop", "index": 0},
        {
            "type": "message_delta",
            "delta": {"stop_reason": "end_turn", "stop_sequence": None},
            "usage": {"output_tokens": len(deltas)},
        },
        {"type": "message_stop"},
    ]
    return "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events).encode()


def main() -> None:
    mode, port_file = sys.argv[1], Path(sys.argv[2])
    if mode == "split-key":
        body = split_key_stream(sys.argv[3])
    elif mode == "split-key-everywhere":
        body = every_cut_stream(sys.argv[3])
    else:
        body = _body(mode)

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 (http.server's name)
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            sent = 0
            try:
                if mode == "trickle":
                    for byte in body:
                        self.wfile.write(bytes([byte]))
                        self.wfile.flush()
                        sent += 1
                        time.sleep(0.2)  # the misbehaviour under test: a slow upstream
                else:
                    for start in range(0, len(body), 65536):
                        self.wfile.write(body[start : start + 65536])
                        sent = start + 65536
            except OSError:
                pass
            finally:
                with Path(f"{port_file}.sent").open("a") as out:
                    out.write(f"{min(sent, len(body))} {len(body)}\n")

        def do_POST(self) -> None:  # noqa: N802
            self.rfile.read(int(self.headers.get("content-length") or 0))
            self.send_response(200)
            self.send_header("content-type", "text/event-stream")
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            for start in range(0, len(body), 37):  # events straddle reads
                self.wfile.write(body[start : start + 37])
                self.wfile.flush()

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    port_file.write_text(str(server.server_address[1]))
    server.serve_forever()


if __name__ == "__main__":
    main()
