"""Runs: one call to an upstream, streamed live to every watcher and stored as it goes.

Inside: ``manager`` (starts, tracks and stops runs; one per process), ``live_run`` (one run's
task: the upstream stream, the fold, the checkpoints), ``store`` (the ``Run`` rows),
``recovery`` (runs whose server died), ``lease`` (which process streams a run),
``shared_log`` (run logs on Redis Streams, for every process; ``shared_reader``: the mirrors;
``shared_delivery``: each entry to the processes that read it), ``elsewhere`` (runs live on other
processes), ``answer`` (where a run's answer goes),
``details`` (what a run's row keeps of how it ended), ``relay`` (the event log and its
watchers), ``owned_tasks`` (cancelling a task one owns), ``lifecycle`` (recovery before the
first request, graceful drain), ``consumers`` (the WebSocket) and ``api`` (the JSON endpoints).

Rule: this package's ``__init__`` imports nothing. ``relay``, ``shared_log`` and ``owned_tasks``
stay free of Django, Channels and httpx (``tests/test_protocol_purity.py``), and importing them
must not pull in the rest; callers import the modules by name (``from playground.runs.manager
import get_manager``).
"""
