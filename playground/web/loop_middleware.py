"""Django's middlewares, run on the event loop under ASGI whenever a half does no I/O.

Rule: under ASGI, Django runs each half of a sync middleware (``MiddlewareMixin``'s
``process_request`` and ``process_response``, and ``process_view``) through asgiref's
``sync_to_async``: a hop to the request's own thread and back. The seven middlewares in
``settings.MIDDLEWARE`` made 13 such hops per request, about 4.4 ms of the 6 ms of CPU an API
request cost the server (docs/benchmarks.md, "Django's middlewares on the event loop"). These
subclasses keep Django's own methods, so the same checks and the same headers, and change only
where a half runs: on the loop when it reads and writes the request and response in memory,
on the thread as before when it may reach the database or parse a form. The cases that hop:

- the session is saved (modified, or ``SESSION_SAVE_EVERY_REQUEST``): ``SessionMiddleware``'s
  response half writes it;
- messages were read or added: ``MessageMiddleware`` stores them (in the session, loaded from
  the database);
- ``CSRF_USE_SESSIONS``: the CSRF secret lives in the session, so all three CSRF halves;
- a form body (``multipart/form-data``, ``application/x-www-form-urlencoded``) on an unsafe
  method: the CSRF check reads ``request.POST``, which parses it (uploads spill to disk).

Under WSGI, and Django's sync test client, they are Django's classes unchanged. Django's deploy
checks find its middlewares by their dotted names: :func:`django_deploy_checks` runs the ones
that look for these as if the names were Django's. An async view
that needs the user awaits ``request.auser()``; touching the database on the loop by mistake
raises Django's ``SynchronousOnlyOperation``, it does not block quietly.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from asgiref.sync import sync_to_async
from django.conf import settings
from django.contrib.auth import middleware as auth
from django.contrib.messages import middleware as messages
from django.contrib.sessions import middleware as sessions
from django.core import checks
from django.core.checks.security import base as security_checks
from django.core.checks.security import csrf as csrf_checks
from django.core.checks.security import sessions as session_checks
from django.http import HttpRequest, HttpResponseBase
from django.middleware import clickjacking, common, csrf, security

__all__ = [
    "DJANGO_NAMES",
    "MISSING_MIDDLEWARE",
    "AuthenticationMiddleware",
    "CommonMiddleware",
    "CsrfViewMiddleware",
    "MessageMiddleware",
    "SecurityMiddleware",
    "SessionMiddleware",
    "XFrameOptionsMiddleware",
    "django_deploy_checks",
]

FORM_TYPES = frozenset({"multipart/form-data", "application/x-www-form-urlencoded"})
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS", "TRACE"})


async def _run(threaded: bool, method: Callable[..., Any], *args: Any) -> Any:
    """``method(*args)``: here, on the loop, or on the request's thread as Django would."""
    if threaded:
        return await sync_to_async(method, thread_sensitive=True)(*args)
    return method(*args)


class _OnTheLoop:
    """Put before a ``MiddlewareMixin`` subclass: its async call runs each half on the loop
    unless ``request_needs_thread`` / ``response_needs_thread`` say it may do I/O."""

    get_response: Callable[[HttpRequest], Any]

    def request_needs_thread(self, request: HttpRequest) -> bool:
        return False

    def response_needs_thread(self, request: HttpRequest, response: HttpResponseBase) -> bool:
        return False

    # MiddlewareMixin.__call__ returns self.__acall__(request) when the stack below is async.
    async def __acall__(self, request: HttpRequest) -> HttpResponseBase:
        response = None
        if hasattr(self, "process_request"):
            threaded = self.request_needs_thread(request)
            response = await _run(threaded, self.process_request, request)
        response = response or await self.get_response(request)
        if hasattr(self, "process_response"):
            threaded = self.response_needs_thread(request, response)
            response = await _run(threaded, self.process_response, request, response)
        return response


class SecurityMiddleware(_OnTheLoop, security.SecurityMiddleware):
    """Headers and the https redirect: never any I/O."""


class CommonMiddleware(_OnTheLoop, common.CommonMiddleware):
    """User agents, ``APPEND_SLASH`` (a URL resolve) and ``Content-Length``: never any I/O."""


class AuthenticationMiddleware(_OnTheLoop, auth.AuthenticationMiddleware):
    """Sets the lazy ``request.user`` and ``request.auser``; the user is read when used."""


class XFrameOptionsMiddleware(_OnTheLoop, clickjacking.XFrameOptionsMiddleware):
    """One header: never any I/O."""


class SessionMiddleware(_OnTheLoop, sessions.SessionMiddleware):
    """The store is made lazily (no I/O); it is saved on the thread."""

    def response_needs_thread(self, request: HttpRequest, response: HttpResponseBase) -> bool:
        session = getattr(request, "session", None)
        modified = getattr(session, "modified", False)
        return bool(modified or settings.SESSION_SAVE_EVERY_REQUEST)


class MessageMiddleware(_OnTheLoop, messages.MessageMiddleware):
    """The storage is made lazily (no I/O); messages read or added are stored on the thread."""

    def response_needs_thread(self, request: HttpRequest, response: HttpResponseBase) -> bool:
        storage = getattr(request, "_messages", None)
        return bool(storage is not None and (storage.used or storage.added_new))


class CsrfViewMiddleware(_OnTheLoop, csrf.CsrfViewMiddleware):
    """The secret is the cookie's (no I/O) unless ``CSRF_USE_SESSIONS``; a form body is parsed
    on the thread. ``process_view`` is the handler's to call: in async mode it is this
    instance's coroutine, which Django's handler awaits without a hop."""

    def __init__(self, get_response: Callable[[HttpRequest], Any]) -> None:
        super().__init__(get_response)
        if self.async_mode:
            self.process_view = self._process_view_on_loop

    def request_needs_thread(self, request: HttpRequest) -> bool:
        return bool(settings.CSRF_USE_SESSIONS)

    def response_needs_thread(self, request: HttpRequest, response: HttpResponseBase) -> bool:
        return bool(settings.CSRF_USE_SESSIONS)

    async def _process_view_on_loop(
        self, request: HttpRequest, callback: Any, callback_args: Any, callback_kwargs: Any
    ) -> HttpResponseBase | None:
        threaded = settings.CSRF_USE_SESSIONS or (
            request.method not in SAFE_METHODS and request.content_type in FORM_TYPES
        )
        view = super().process_view
        return await _run(threaded, view, request, callback, callback_args, callback_kwargs)


LOOP_CLASSES = (
    SecurityMiddleware,
    SessionMiddleware,
    CommonMiddleware,
    CsrfViewMiddleware,
    AuthenticationMiddleware,
    MessageMiddleware,
    XFrameOptionsMiddleware,
)
#: Each class here by its dotted name, to the dotted name of the Django class it extends.
DJANGO_NAMES = {
    f"{__name__}.{cls.__name__}": f"{cls.__bases__[1].__module__}.{cls.__bases__[1].__name__}"
    for cls in LOOP_CLASSES
}
#: Django's "middleware missing" warnings: silenced in settings (Django looks for its own dotted
#: names, so it would give them for these classes), given again by :func:`django_deploy_checks`
#: as ``playground.security.W001`` etc. when a middleware is missing in either form.
MISSING_MIDDLEWARE = ("security.W001", "security.W002", "security.W003")


def django_deploy_checks(app_configs: Any = None, **kwargs: Any) -> list[checks.CheckMessage]:
    """Django's deploy checks of its middlewares' settings, as if each class here were the
    Django class it extends (registered by the app). Django finds ``SecurityMiddleware``,
    ``XFrameOptionsMiddleware``, ``CsrfViewMiddleware`` and ``SessionMiddleware`` by their
    dotted names: with these classes it would skip the checks of HSTS, the https redirect,
    ``nosniff``, the referrer and opener policies and secure cookies."""
    original = settings.MIDDLEWARE
    settings.MIDDLEWARE = [DJANGO_NAMES.get(path, path) for path in original]
    try:
        found = [message for check in _DJANGO_CHECKS for message in check(app_configs)]
    finally:
        settings.MIDDLEWARE = original
    return [_renamed(message) if message.id in MISSING_MIDDLEWARE else message for message in found]


def _renamed(message: checks.CheckMessage) -> checks.CheckMessage:
    return type(message)(
        message.msg, hint=message.hint, obj=message.obj, id=f"playground.{message.id}"
    )


# The checks that look for one of the middlewares above by name (Django 5.2); the others
# (the secret key, DEBUG, ALLOWED_HOSTS) Django runs as usual.
_DJANGO_CHECKS = (
    security_checks.check_security_middleware,
    security_checks.check_xframe_options_middleware,
    security_checks.check_sts,
    security_checks.check_sts_include_subdomains,
    security_checks.check_sts_preload,
    security_checks.check_content_type_nosniff,
    security_checks.check_ssl_redirect,
    security_checks.check_xframe_deny,
    security_checks.check_referrer_policy,
    security_checks.check_cross_origin_opener_policy,
    csrf_checks.check_csrf_middleware,
    csrf_checks.check_csrf_cookie_secure,
    session_checks.check_session_cookie_secure,
    session_checks.check_session_cookie_httponly,
)
