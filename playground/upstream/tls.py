"""The TLS context every upstream connection of this process verifies with, made once.

Why: a new httpx client loads the CA bundle into a context of its own, about 45 ms of CPU,
and a client is made per event loop (the stream's), per side request (the model list,
count_tokens, a render) and, in the test suite, per test. The context is httpx's default
(``httpx.create_ssl_context()``: certifi's bundle, or ``SSL_CERT_FILE``/``SSL_CERT_DIR``),
read as the environment stands on first use, as settings are; sharing it is what an
``SSLContext`` is for (httpcore sets only the ALPN protocols on it, the same ones each time).
"""

from __future__ import annotations

import functools
import ssl

import httpx


@functools.cache
def tls_context() -> ssl.SSLContext:
    return httpx.create_ssl_context()
