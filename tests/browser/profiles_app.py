"""The profile tests' app server: the extra upstream profiles they need, one server a worker.

Rule: a test on this server makes its own conversation and changes only that (its profile, its
model, its settings), so one server serves every such test of the run's worker
(tests/browser/conftest.py makes the fixture session-wide): ``test_page_model_list``,
``test_page_profile_move``, ``test_page_rendered_prompt`` and ``test_page_replay`` (a
replay on ``mirror``). A server a module cost a Daphne
start in each worker that ran one of its tests. Its profiles, beside the simulator's:

- ``mirror``: the session's simulator with no model configured (every suggestion comes from its
  ``GET /v1/models``);
- ``dead``: a closed port, naming ``dead-model-1``;
- ``loose``: the session's simulator under the ``compatible`` dialect (as a vLLM or Ollama
  server would be configured);
- ``simulator-render``: the simulator's variant with a chat render
  (``PLAYGROUND_SIMULATOR_RENDER``).
"""

from __future__ import annotations

import socket
from collections.abc import Iterator

import pytest

from tests.conftest import CACHED_STATIC, LiveServer, daphne_running


@pytest.fixture(scope="session")
def profiles_server(
    live_server_proc: LiveServer, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[LiveServer]:
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        dead = f"http://127.0.0.1:{closed.getsockname()[1]}"
    with daphne_running(
        tmp_path_factory.mktemp("profiles"),
        PLAYGROUND_UPSTREAM_MIRROR_BASE_URL=live_server_proc.simulator_url,
        PLAYGROUND_UPSTREAM_MIRROR_AUTH="none",
        PLAYGROUND_UPSTREAM_DEAD_BASE_URL=dead,
        PLAYGROUND_UPSTREAM_DEAD_AUTH="none",
        PLAYGROUND_UPSTREAM_DEAD_MODELS="dead-model-1",
        PLAYGROUND_UPSTREAM_LOOSE_BASE_URL=live_server_proc.simulator_url,
        PLAYGROUND_UPSTREAM_LOOSE_AUTH="none",
        PLAYGROUND_UPSTREAM_LOOSE_DIALECT="compatible",
        PLAYGROUND_UPSTREAM_LOOSE_MODELS="simulator-1-thinking",
        PLAYGROUND_SIMULATOR_RENDER="1",
        **CACHED_STATIC,
    ) as server:
        yield server
