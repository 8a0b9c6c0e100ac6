"""Static files answered at the ASGI level, before Django: ``servestatic``'s ASGI app.

Rule: a request under ``STATIC_URL`` for a file we have is answered here and never enters
Django's stack, whose per-request cost (a thread hop for the sync middleware, the request
signals' database checks, the middlewares themselves: ~5 ms a file on this project's 2-core
machine) was most of a page's open, which fetches ~55 modules (docs/benchmarks.md, "Long
conversations"). Each answer carries the headers every other response gets from the
middlewares (the one Content-Security-Policy, ``nosniff``, the referrer and opener policies,
and over https the HSTS header), from the same settings, plus :data:`SERVED_BY` so a test can
tell this path from Django's; with ``SECURE_SSL_REDIRECT`` a plain-http request is left to
Django, which redirects it. A path under ``STATIC_URL`` with no file behind it, and every other
request, goes on to Django.

In debug the files come from the source folders (the staticfiles finders' locations, looked
up again on each request, so an edited script is served as it is now); otherwise from
``STATIC_ROOT`` as ``collectstatic`` filled it, scanned once at start. A browser keeps a file
not named by its hash ``PLAYGROUND_STATIC_MAX_AGE`` seconds: unset, none in debug (it asks again
each load and gets a ``304``) and a minute otherwise.

servestatic finds the file and makes the response (headers, ``304``, ranges); the body is read
here, on the event loop, in one read. Its own ASGI sender does each open, read and close in a
thread pool it creates per file, 3 ms a file on this machine, more than the rest of the answer.
The files are small (the page's largest 85 KiB, the admin's 318 KiB) and read from the page
cache in microseconds to a few tenths of a millisecond: no longer than a thread hop would take.
"""

from __future__ import annotations

from typing import Any
from wsgiref.headers import Headers

from django.conf import settings
from django.contrib.staticfiles import finders
from servestatic.asgi import ServeStaticASGI
from servestatic.responders import Redirect, StaticFile
from servestatic.utils import decode_path_info

from playground.web.csp import HEADER, POLICY

#: A header naming the path that answered: static files never pass the middlewares.
SERVED_BY = ("X-Static", "asgi")
#: WhiteNoise's and servestatic's default: browsers revalidate unhashed files after a minute.
MAX_AGE = 60
#: The page bundle's shared chunks, named by their content's hash (esbuild's ``chunk-[hash]``,
#: ``tools/page_bundle.py``): a changed chunk gets a new name, so browsers keep each one for good
#: (``immutable``, debug included) and a page's open revalidates only its entry modules: 0.57 to
#: 0.51 s of CPU a conversation page's open in the browser tests (Chromium and the server).
IMMUTABLE = r"/dist/chunk-[A-Z0-9]+\.js$"

Scope = dict[str, Any]


def _add_headers(headers: Headers, path: str, url: str) -> None:
    """What ``ContentSecurityPolicyMiddleware`` and ``SecurityMiddleware`` set on a page."""
    headers[HEADER] = POLICY
    if settings.SECURE_CONTENT_TYPE_NOSNIFF:
        headers["X-Content-Type-Options"] = "nosniff"
    if settings.SECURE_REFERRER_POLICY:
        headers["Referrer-Policy"] = settings.SECURE_REFERRER_POLICY
    if settings.SECURE_CROSS_ORIGIN_OPENER_POLICY:
        headers["Cross-Origin-Opener-Policy"] = settings.SECURE_CROSS_ORIGIN_OPENER_POLICY
    headers[SERVED_BY[0]] = SERVED_BY[1]


def _max_age() -> int:
    """``PLAYGROUND_STATIC_MAX_AGE``, else none in debug (an edited file shows at the next load;
    the browser asks again, a 304) and :data:`MAX_AGE` otherwise."""
    chosen: int | None = settings.PLAYGROUND_STATIC_MAX_AGE
    if chosen is not None:
        return chosen
    return 0 if settings.DEBUG else MAX_AGE


def _prefix() -> str:
    return "/" + settings.STATIC_URL.strip("/") + "/"


class StaticFiles:
    """ASGI: ``STATIC_URL`` paths to servestatic, the rest (and its misses) to ``app``."""

    def __init__(self, app: Any) -> None:
        self.prefix = _prefix()
        self.app = app
        self.files = ServeStaticASGI(
            app,
            autorefresh=settings.DEBUG,
            max_age=_max_age(),
            add_headers_function=_add_headers,
            immutable_file_test=IMMUTABLE,
        )
        if settings.DEBUG:
            self._add_source_folders()
        else:
            self.files.add_files(settings.STATIC_ROOT, prefix=self.prefix)

    def _add_source_folders(self) -> None:
        # The finders' order is the lookup order (first match wins); servestatic tries the
        # folder added last first, so add them in reverse.
        folders = [
            (storage.location, (getattr(storage, "prefix", None) or "").strip("/"))
            for finder in finders.get_finders()
            for storage in getattr(finder, "storages", {}).values()
        ]
        for location, sub in reversed(folders):
            self.files.add_files(location, prefix=self.prefix + sub)

    def find(self, path: str) -> StaticFile | Redirect | None:
        if self.files.autorefresh:
            return self.files.find_file(path)
        return self.files.files.get(path)

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        found = None
        if scope["type"] == "http" and scope["path"].startswith(self.prefix):
            found = self.find(decode_path_info(scope["path"]))
        secure = found is not None and _is_secure(scope)
        if found is not None and settings.SECURE_SSL_REDIRECT and not secure:
            found = None  # Django's SecurityMiddleware answers it: the redirect to https
        if found is None:
            await self.app(scope, receive, send)
        else:
            await _send(found, scope=scope, send=send, secure=secure)


def _is_secure(scope: Scope) -> bool:
    """``request.is_secure()`` of an ASGI scope: the proxy's header when one is trusted."""
    if settings.SECURE_PROXY_SSL_HEADER:
        meta_name, secure_value = settings.SECURE_PROXY_SSL_HEADER
        wanted = meta_name.removeprefix("HTTP_").lower().replace("_", "-").encode("latin-1")
        for name, value in scope["headers"]:
            if name == wanted:
                return value.decode("latin-1").split(",", 1)[0].strip() == secure_value
    return scope.get("scheme") == "https"


def _hsts() -> str:
    """``Strict-Transport-Security`` as ``SecurityMiddleware`` words it."""
    value = f"max-age={settings.SECURE_HSTS_SECONDS}"
    if settings.SECURE_HSTS_INCLUDE_SUBDOMAINS:
        value += "; includeSubDomains"
    if settings.SECURE_HSTS_PRELOAD:
        value += "; preload"
    return value


async def _send(found: StaticFile | Redirect, *, scope: Scope, send: Any, secure: bool) -> None:
    # servestatic's responders read WSGI-style request headers (conditional and range requests).
    environ = {
        "HTTP_" + name.decode("latin-1").upper().replace("-", "_"): value.decode("latin-1")
        for name, value in scope["headers"]
    }
    environ["QUERY_STRING"] = scope["query_string"].decode("latin-1")
    response = found.get_response(scope["method"], environ)
    body = b""
    if response.file is not None:
        try:
            body = response.file.read()
        finally:
            response.file.close()
    headers = [
        (name.lower().encode("latin-1"), value.encode("latin-1"))
        for name, value in response.headers
        if value is not None
    ]
    if secure and settings.SECURE_HSTS_SECONDS:
        # Per request, not in ``_add_headers`` (made once per file): only an https answer has it.
        headers.append((b"strict-transport-security", _hsts().encode("latin-1")))
    await send({"type": "http.response.start", "status": int(response.status), "headers": headers})
    await send({"type": "http.response.body", "body": body})
