"""Settings: the only module that reads or writes the environment.

Every other module receives what it needs from here (through ``django.conf.settings``) or
as arguments. Variables are documented in README.md ("Configuration") and declared, typed, in
``environment.py`` (read here once, through pydantic-settings; a bad value stops start-up
naming the variable): a ``PLAYGROUND_*`` variable declared there is a setting of the same name
here with no line of its own, so adding one is one line in ``environment.py``. Settings made
of several variables, or that Django names otherwise, are made below. What only the serving
command knows (the address it listens on) comes back here (:func:`serve_simulator_at`), and
so does the autoreloader's question about its child (:func:`autoreload_child`); the one
exception is ``DJANGO_SETTINGS_MODULE``, which says where this module is (``manage.py``,
``asgi.py``, ``serve.py``). ``tests/test_settings_environment.py`` reads the imports.
"""

from __future__ import annotations

import ipaddress
import os
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import dj_database_url
from django.core.exceptions import ImproperlyConfigured
from pydantic import ValidationError

from playground.environment import Environment, described
from playground.mcp.config import McpConfigError, ServerConfig, servers_from_text
from playground.mcp.vault import vault_key
from playground.observability.trace_config import trace_config
from playground.protocol.attachments import AttachmentLimits
from playground.runs.upstream_slots import parse_limits
from playground.upstream.profiles import Profile, profiles_from_environ, simulator_key
from playground.usage.prices import PriceTable, PriceTableError, read_price_table

BASE_DIR = Path(__file__).resolve().parent.parent

try:
    ENVIRONMENT = Environment()
except ValidationError as exc:
    raise ImproperlyConfigured(described(exc)) from None
# Every PLAYGROUND_* variable not marked exclude=True is a setting as it is (environment.py).
globals().update(
    (name, value)
    for name, value in ENVIRONMENT.model_dump().items()
    if name.startswith("PLAYGROUND_")
)

DEBUG = ENVIRONMENT.DJANGO_DEBUG

#: Development only: a fixed key is fine for a playground bound to 127.0.0.1.
_DEV_SECRET_KEY = "dev-only-insecure-key-do-not-use-in-production"
#: Keys a production start refuses: the shipped env file's placeholder and the dev key, which
#: anyone can read here (sessions and share links would be forgeable), and anything short.
_PLACEHOLDER_KEYS = {"replace-me", _DEV_SECRET_KEY}
_SECRET_KEY_MIN = 16
_GENERATE_KEY = "python3 -c 'import secrets; print(secrets.token_urlsafe(50))'"

SECRET_KEY = ENVIRONMENT.DJANGO_SECRET_KEY
if not DEBUG:
    if not SECRET_KEY:
        raise ImproperlyConfigured(
            f"DJANGO_SECRET_KEY must be set when DJANGO_DEBUG is off; make one: {_GENERATE_KEY}"
        )
    if SECRET_KEY in _PLACEHOLDER_KEYS or len(SECRET_KEY) < _SECRET_KEY_MIN:
        what = "a placeholder" if SECRET_KEY in _PLACEHOLDER_KEYS else "too short"
        raise ImproperlyConfigured(
            f"DJANGO_SECRET_KEY is {what} (at least {_SECRET_KEY_MIN} characters, none of the"
            f" shipped examples); make one: {_GENERATE_KEY}"
        )
elif not SECRET_KEY:
    SECRET_KEY = _DEV_SECRET_KEY

ALLOWED_HOSTS = list(ENVIRONMENT.DJANGO_ALLOWED_HOSTS)
# The built-in simulator is served by this same app under /simulator/; the relay reaches it
# over real HTTP at this base URL (change it when serving on another address or port).
PLAYGROUND_SIMULATOR_URL = ENVIRONMENT.PLAYGROUND_SIMULATOR_URL
#: Named by the environment: kept as it is, wherever the server listens.
_SIMULATOR_URL_NAMED = "PLAYGROUND_SIMULATOR_URL" in ENVIRONMENT.model_fields_set


def _with_host_of(url: str, hosts: list[str]) -> list[str]:
    """``hosts`` and ``url``'s host (an IPv6 one in brackets)."""
    host = urlsplit(url).hostname
    if not host:
        return hosts
    host = f"[{host}]" if ":" in host else host
    return hosts if host in hosts else [*hosts, host]


# Its host is rarely the public one, and is always allowed: otherwise every simulator run fails
# with Django's 400 (DisallowedHost) when only the public host is listed.
ALLOWED_HOSTS = _with_host_of(PLAYGROUND_SIMULATOR_URL, ALLOWED_HOSTS)

# Origins allowed to POST when served behind a proxy on another origin (https://play.example.com).
CSRF_TRUSTED_ORIGINS = list(ENVIRONMENT.DJANGO_CSRF_TRUSTED_ORIGINS)
# Cookies only over HTTPS once the app is served for real (not in local debug mode).
SESSION_COOKIE_SECURE = CSRF_COOKIE_SECURE = (
    not DEBUG if ENVIRONMENT.DJANGO_SECURE_COOKIES is None else ENVIRONMENT.DJANGO_SECURE_COOKIES
)

# Served over HTTPS by a TLS-terminating proxy (docs/deploy.md, docs/nginx.conf) that sets
# X-Forwarded-Proto on every request, overwriting any a client sent. Then a request the proxy
# marks https is https (share links, the WebSocket origin check, CSRF), plain http is redirected,
# and browsers are told to come back over https only (HSTS). Off by default: without such a
# proxy the header would be the client's word.
DJANGO_HTTPS = ENVIRONMENT.DJANGO_HTTPS
if DJANGO_HTTPS:
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SECURE_SSL_REDIRECT = True
    # The app reaches its own simulator over plain HTTP on loopback, past the proxy.
    SECURE_REDIRECT_EXEMPT = [r"^simulator/"]
    SECURE_HSTS_SECONDS = ENVIRONMENT.DJANGO_HSTS_SECONDS
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    SECURE_HSTS_PRELOAD = True

INSTALLED_APPS = [
    # The app first: its runserver (Daphne's, plus a graceful stop under the autoreloader)
    # replaces Daphne's, which replaces Django's, so `manage.py runserver` speaks ASGI.
    "playground.apps.PlaygroundConfig",
    "daphne",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "channels",
]

MIDDLEWARE = [
    # First: every response gets the one policy, those the middlewares below make included.
    "playground.web.csp.ContentSecurityPolicyMiddleware",
    # Django's own, run on the event loop under ASGI when a half does no I/O (no thread hop):
    # playground.web.loop_middleware.
    "playground.web.loop_middleware.SecurityMiddleware",
    "playground.web.loop_middleware.SessionMiddleware",
    "playground.web.loop_middleware.CommonMiddleware",
    "playground.web.loop_middleware.CsrfViewMiddleware",
    "playground.web.loop_middleware.AuthenticationMiddleware",
    # After it: a personal API token (Authorization: Bearer) under /api/ acts as its owner and,
    # only then, skips the CSRF check (playground.accounts.bearer).
    "playground.accounts.bearer.BearerTokenMiddleware",
    "playground.web.loop_middleware.MessageMiddleware",
    "playground.web.loop_middleware.XFrameOptionsMiddleware",
]
# Django looks for its middlewares by their dotted names: loop_middleware.django_deploy_checks
# runs its deploy checks for these classes, and says playground.security.W001 etc. instead.
SILENCED_SYSTEM_CHECKS = ["security.W001", "security.W002", "security.W003"]

ROOT_URLCONF = "playground.urls"
ASGI_APPLICATION = "playground.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

DATABASES = {
    "default": dj_database_url.parse(
        ENVIRONMENT.DATABASE_URL or f"sqlite:///{BASE_DIR / 'db.sqlite3'}",
        # Kept connections (SQLite): every database call of a socket or a run runs through
        # ``database_sync_to_async`` on one thread, and opening a connection for each (SQLite's
        # WAL pragmas) was a tenth of the server's CPU at 100 streams (docs/benchmarks.md). The
        # health check replaces a connection the database dropped (and, on PostgreSQL, makes
        # the pool check a connection before lending it).
        conn_max_age=ENVIRONMENT.PLAYGROUND_DB_CONN_MAX_AGE,
        conn_health_checks=True,
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # Concurrent use of one file: WAL lets reads go on beside the one writer; a write
    # transaction takes the write lock at BEGIN (IMMEDIATE), so it waits its turn for up to the
    # busy timeout instead of failing at once with "database is locked" when it upgrades.
    DATABASES["default"]["OPTIONS"] = {
        **DATABASES["default"].get("OPTIONS", {}),
        "transaction_mode": "IMMEDIATE",
        "timeout": ENVIRONMENT.PLAYGROUND_SQLITE_BUSY_TIMEOUT,
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL",
    }
elif DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    # A pool per process, not a kept connection per thread: under ASGI Django answers each HTTP
    # request's sync code in a thread of its own, and CONN_MAX_AGE left each one's connection
    # open (20 requests, 21 connections; five processes used up PostgreSQL's default 100).
    # Every connection is handed back after each request and database call, so a process holds
    # at most PLAYGROUND_DB_POOL_SIZE; a caller past it waits up to the pool timeout, then gets
    # an OperationalError (answered 503). docs/deploy.md sizes max_connections from it.
    DATABASES["default"]["CONN_MAX_AGE"] = 0
    DATABASES["default"]["OPTIONS"] = {
        **DATABASES["default"].get("OPTIONS", {}),
        "pool": {
            "min_size": 1,
            "max_size": max(2, ENVIRONMENT.PLAYGROUND_DB_POOL_SIZE),
            "timeout": ENVIRONMENT.PLAYGROUND_DB_POOL_TIMEOUT,
            # An idle connection is closed after this long (a quiet process shrinks to min_size).
            "max_idle": 300.0,
            # A connection lost to a restart is tried again 1, 2 s later, then the attempt ends
            # and the next caller starts a new one: after an outage of any length the pool is
            # whole again within about two seconds (psycopg's default backs off for 5 min).
            "reconnect_timeout": 4.0,
        },
    }
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

REDIS_URL = ENVIRONMENT.REDIS_URL
# How every Redis connection is made (the channel layer's pool reads it).
REDIS_HOST = {
    "address": REDIS_URL,
    # No read timeout: a socket's consumer waits on Redis with a blocking read of about 5 s, and
    # redis-py 8's default socket_timeout (5 s) cut it, closing every idle WebSocket with 1011
    # (django/channels_redis#422).
    "socket_timeout": None,
    # The pool's size, and how long a command may wait for a free connection: until one is
    # released (None), since every command in flight ends (Redis answers or the link breaks).
    "max_connections": 100,
    "timeout": None,
}
if REDIS_URL:
    CHANNEL_LAYERS = {
        "default": {
            # channels_redis's layer with a pool that waits for a free connection instead of
            # raising MaxConnectionsError past max_connections (playground/web/channel_layer.py).
            "BACKEND": "playground.web.channel_layer.WaitingRedisChannelLayer",
            "CONFIG": {"hosts": [REDIS_HOST]},
        }
    }
else:
    CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = False
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = Path(ENVIRONMENT.DJANGO_STATIC_ROOT or BASE_DIR / "staticfiles")
# /static/ is served in every mode before Django's stack (playground/web/static_files.py, in
# asgi.py): from the source folders in debug, from STATIC_ROOT after `collectstatic` otherwise.

SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
SESSION_COOKIE_HTTPONLY = True
CSRF_COOKIE_SAMESITE = "Strict"

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    # Share tokens are cut to their hint in runserver's access log and Django's 404 warnings.
    "filters": {
        "share_tokens": {"()": "playground.web.log_privacy.MaskShareTokens"},
        # A database outage's answers are logged as one line each (web.server_error).
        "database_away": {"()": "playground.web.database_away.DatabaseAwayIsNoError"},
        # An MCP server's secrets (a URL's user part and query, which httpx logs) in no line.
        "mcp_secrets": {"()": "playground.mcp.secrets.RedactLogRecords"},
    },
    # One handler, on the root logger: Daphne's command line configures the root logger too, and
    # a second handler on "playground" printed every line twice.
    "formatters": {"line": {"format": "%(asctime)s %(levelname)-8s %(name)s: %(message)s"}},
    "handlers": {
        "console": {
            "class": "logging.StreamHandler",
            "formatter": "line",
            "filters": ["mcp_secrets"],
        }
    },
    "root": {"handlers": ["console"], "level": "INFO"},
    "loggers": {
        "playground": {"level": ENVIRONMENT.PLAYGROUND_LOG_LEVEL},
        "django.channels.server": {"filters": ["share_tokens"]},
        "django.request": {"filters": ["share_tokens", "database_away"]},
    },
}

# --- Upstreams -------------------------------------------------------------------------------
# (PLAYGROUND_SIMULATOR_URL is read with the hosts, above: its host is allowed.)
PLAYGROUND_UPSTREAM_TIMEOUTS = {
    "connect": ENVIRONMENT.PLAYGROUND_UPSTREAM_CONNECT_TIMEOUT,
    "read": ENVIRONMENT.PLAYGROUND_UPSTREAM_READ_TIMEOUT,
    "write": ENVIRONMENT.PLAYGROUND_UPSTREAM_WRITE_TIMEOUT,
    "pool": ENVIRONMENT.PLAYGROUND_UPSTREAM_POOL_TIMEOUT,
}
# Requests sent to one upstream profile at once by every run together, fair between people
# (playground.runs.upstream_slots): "16", or "16 anthropic=4 simulator=64" for a profile's own.
try:
    PLAYGROUND_PROFILE_CONCURRENCY = parse_limits(ENVIRONMENT.PLAYGROUND_PROFILE_CONCURRENCY)
except ValueError as exc:
    raise ImproperlyConfigured(f"PLAYGROUND_PROFILE_CONCURRENCY: {exc}") from None

# What the app's own client sends the simulator (in login mode it answers nobody else but
# logged-in users); derived from SECRET_KEY, never shown to a browser.
PLAYGROUND_SIMULATOR_KEY = simulator_key(secret_key=SECRET_KEY)


def _profiles(simulator_url: str) -> dict[str, Profile]:
    # The variables declared in environment.py are settings of their own, not a profile's
    # keys (PLAYGROUND_UPSTREAM_READ_TIMEOUT is no profile READ's TIMEOUT).
    upstream_environ = {
        name: value for name, value in os.environ.items() if name not in Environment.model_fields
    }
    try:
        return profiles_from_environ(
            upstream_environ, simulator_url=simulator_url, simulator_key=PLAYGROUND_SIMULATOR_KEY
        )
    except ValueError as exc:
        raise ImproperlyConfigured(f"Upstream configuration: {exc}") from exc


PLAYGROUND_PROFILES = _profiles(PLAYGROUND_SIMULATOR_URL)


def simulator_served_at(url: str) -> dict[str, Any]:
    """The settings that change when this server, which serves the built-in simulator, listens
    where ``url`` says (``runserver 8080``, ``serve -p 8080``; the default names port 8000, and
    every simulator run on another port failed to connect): the URL, its host allowed, the
    profiles that reach it. Nothing when the environment names the URL: it is kept."""
    if _SIMULATOR_URL_NAMED or url == PLAYGROUND_SIMULATOR_URL:
        return {}
    return {
        "PLAYGROUND_SIMULATOR_URL": url,
        "ALLOWED_HOSTS": _with_host_of(url, ALLOWED_HOSTS),
        "PLAYGROUND_PROFILES": _profiles(url),
    }


def serve_simulator_at(url: str) -> None:
    """Apply :func:`simulator_served_at` to the settings this process runs with; called by the
    serving command once it knows its address, before it serves a request."""
    from django.conf import settings

    for name, value in simulator_served_at(url).items():
        setattr(settings, name, value)


def autoreload_child() -> bool:
    """This process is the one ``runserver``'s autoreloader started to serve (Django marks it
    in the environment it starts it with: :func:`autoreload_child_environment`)."""
    from django.utils.autoreload import DJANGO_AUTORELOAD_ENV

    return os.environ.get(DJANGO_AUTORELOAD_ENV) == "true"


def autoreload_child_environment() -> dict[str, str]:
    """The environment the autoreloader starts its serving child with: this one, marked."""
    from django.utils.autoreload import DJANGO_AUTORELOAD_ENV

    return {**os.environ, DJANGO_AUTORELOAD_ENV: "true"}


# --- Ownership -------------------------------------------------------------------------------
# Off (the default, local mode): no login, every visitor is the one local user; bind to
# 127.0.0.1. On: users log in and each sees only their own conversations.
PLAYGROUND_LOCAL_USERNAME = "local"
LOGIN_URL = "/accounts/login/"
LOGIN_REDIRECT_URL = "/"
LOGOUT_REDIRECT_URL = "/"
# Under /api/ a CSRF refusal answers in the JSON error shape (Django's page elsewhere).
CSRF_FAILURE_VIEW = "playground.web.endpoint.csrf_failure"

# --- Relay -----------------------------------------------------------------------------------
# The server's own WebSocket limit (manage.py runserver reads these; `python -m playground.serve`
# passes them to Daphne): twice the frame limit, so a frame over it reaches the consumer and is
# answered `too_large`; only a frame over this is cut off by the server itself (close 1009).
DAPHNE_WEBSOCKET_MAX_MESSAGE_SIZE = DAPHNE_WEBSOCKET_MAX_FRAME_SIZE = (
    2 * ENVIRONMENT.PLAYGROUND_MAX_FRAME_BYTES
)
# Threads (each with its own database connection) that run writes go through, apart from the
# one serving sockets' reads and handshakes (runs.run_writes); more lets runs' writes overlap.
PLAYGROUND_DB_WRITE_THREADS = max(1, ENVIRONMENT.PLAYGROUND_DB_WRITE_THREADS)

# --- Attachments ---------------------------------------------------------------------------
# Images (PNG, JPEG, GIF, WebP) and PDFs in user turns (playground.attachments). The defaults
# are Anthropic's limits: 5 MB an image, 32 MB a request (so a PDF), 100 images a request
# (here: files in one message).
PLAYGROUND_ATTACHMENT_LIMITS = AttachmentLimits(
    image_max_bytes=ENVIRONMENT.PLAYGROUND_ATTACHMENT_MAX_BYTES,
    pdf_max_bytes=ENVIRONMENT.PLAYGROUND_ATTACHMENT_PDF_MAX_BYTES,
    max_count=ENVIRONMENT.PLAYGROUND_ATTACHMENT_MAX_COUNT,
)
# Requests sent to one upstream profile at once by every run together, fair between people
# (playground.runs.upstream_slots): "16", or "16 anthropic=4 simulator=64" for a profile's own.
try:
    PLAYGROUND_PROFILE_CONCURRENCY = parse_limits(ENVIRONMENT.PLAYGROUND_PROFILE_CONCURRENCY)
except ValueError as exc:
    raise ImproperlyConfigured(f"PLAYGROUND_PROFILE_CONCURRENCY: {exc}") from None
# A request body read whole (the simulator's POST /v1/messages, with its files in base64) may
# be as large as an upstream takes one: Anthropic's 32 MB, plus base64's third. Uploads are
# multipart, whose file parts this does not count.
DATA_UPLOAD_MAX_MEMORY_SIZE = max(
    2_621_440, PLAYGROUND_ATTACHMENT_LIMITS.pdf_max_bytes * 4 // 3 + 1_048_576
)

# --- MCP servers ---------------------------------------------------------------------------
# Tools from MCP servers (playground.mcp, docs/mcp.md): a JSON file in Claude Desktop's shape
# ({"mcpServers": {NAME: {command, args, env} | {url, headers}}}), read and checked here, once.
# Its env and header values are secrets: no page, frame, export, share or log shows them.
PLAYGROUND_MCP_CONFIG = ENVIRONMENT.PLAYGROUND_MCP_CONFIG
PLAYGROUND_MCP_SERVERS: tuple[ServerConfig, ...] = ()
if PLAYGROUND_MCP_CONFIG:
    try:
        PLAYGROUND_MCP_SERVERS = servers_from_text(
            Path(PLAYGROUND_MCP_CONFIG).read_text(encoding="utf-8"),
            source=f"PLAYGROUND_MCP_CONFIG ({PLAYGROUND_MCP_CONFIG})",
        )
    except OSError as exc:
        raise ImproperlyConfigured(
            f"PLAYGROUND_MCP_CONFIG ({PLAYGROUND_MCP_CONFIG}): cannot read it ({exc.strerror})"
        ) from exc
    except McpConfigError as exc:
        raise ImproperlyConfigured(str(exc)) from exc
# The key that seals what people give for their own MCP servers (header values, OAuth tokens:
# playground.mcp.vault), derived from SECRET_KEY; never shown to a browser.
PLAYGROUND_MCP_VAULT_KEY = vault_key(secret_key=SECRET_KEY)
# (PLAYGROUND_MCP_CALL_TIMEOUT_SECONDS and PLAYGROUND_MCP_RESULT_MAX_BYTES: a call over either
# is named on its card, which can still be answered.)

# --- Prices ----------------------------------------------------------------------------------
# What runs cost (playground.usage.prices; the file's shape is in the README): a TOML file of
# prices per profile and model. Without one every run shows "no price set".
PLAYGROUND_PRICES = ENVIRONMENT.PLAYGROUND_PRICES
PLAYGROUND_PRICE_TABLE = PriceTable()
if PLAYGROUND_PRICES:
    try:
        PLAYGROUND_PRICE_TABLE = read_price_table(
            Path(PLAYGROUND_PRICES).read_text(encoding="utf-8"),
            source=f"PLAYGROUND_PRICES ({PLAYGROUND_PRICES})",
        )
    except OSError as exc:
        raise ImproperlyConfigured(
            f"PLAYGROUND_PRICES ({PLAYGROUND_PRICES}): cannot read it ({exc.strerror})"
        ) from exc
    except PriceTableError as exc:
        raise ImproperlyConfigured(str(exc)) from exc

# --- Sign-in with OpenID Connect ---------------------------------------------------------------
# Beside Django's accounts (playground.accounts.oidc, docs/deploy.md): set the issuer, the client
# id and secret. The provider's endpoints come from its discovery document, read when first used.
PLAYGROUND_OIDC: dict[str, Any] = {}
if ENVIRONMENT.PLAYGROUND_OIDC_ISSUER:
    if not ENVIRONMENT.PLAYGROUND_OIDC_CLIENT_ID or not ENVIRONMENT.PLAYGROUND_OIDC_CLIENT_SECRET:
        raise ImproperlyConfigured(
            "PLAYGROUND_OIDC_ISSUER is set: set PLAYGROUND_OIDC_CLIENT_ID and "
            "PLAYGROUND_OIDC_CLIENT_SECRET too (the client registered with the provider)"
        )
    PLAYGROUND_OIDC = {
        "issuer": ENVIRONMENT.PLAYGROUND_OIDC_ISSUER,
        "client_id": ENVIRONMENT.PLAYGROUND_OIDC_CLIENT_ID,
        "allowed_domains": tuple(
            domain.lower().lstrip("@") for domain in ENVIRONMENT.PLAYGROUND_OIDC_ALLOWED_DOMAINS
        ),
        "staff_claim": ENVIRONMENT.PLAYGROUND_OIDC_STAFF_CLAIM,
        "label": ENVIRONMENT.PLAYGROUND_OIDC_LABEL or "single sign-on",
        "session_seconds": ENVIRONMENT.PLAYGROUND_OIDC_SESSION_SECONDS,
        "timeout": ENVIRONMENT.PLAYGROUND_OIDC_TIMEOUT_SECONDS,
    }
    INSTALLED_APPS.append("mozilla_django_oidc")
    AUTHENTICATION_BACKENDS = [
        "django.contrib.auth.backends.ModelBackend",
        "playground.accounts.oidc.PlaygroundOIDCBackend",
    ]
    OIDC_RP_CLIENT_ID = ENVIRONMENT.PLAYGROUND_OIDC_CLIENT_ID
    OIDC_RP_CLIENT_SECRET = ENVIRONMENT.PLAYGROUND_OIDC_CLIENT_SECRET
    OIDC_RP_SIGN_ALGO = ENVIRONMENT.PLAYGROUND_OIDC_SIGN_ALGO
    OIDC_RP_SCOPES = ENVIRONMENT.PLAYGROUND_OIDC_SCOPES
    OIDC_USE_PKCE = True
    OIDC_TIMEOUT = ENVIRONMENT.PLAYGROUND_OIDC_TIMEOUT_SECONDS
    # Sign-out ends the provider's session too (RP-initiated logout): the ID token is its hint.
    OIDC_STORE_ID_TOKEN = True
    OIDC_OP_LOGOUT_URL_METHOD = "playground.accounts.oidc.provider_sign_out_url"
    LOGIN_REDIRECT_URL_FAILURE = "/accounts/login/?sign_in=refused"

# --- Metrics (Prometheus) --------------------------------------------------------------------
# GET /metrics (playground.observability): off unless PLAYGROUND_METRICS=1, and then only for a
# scraper sending the token (Authorization: Bearer …) or calling from an allowed address.
try:
    PLAYGROUND_METRICS_ALLOW = tuple(
        ipaddress.ip_network(item, strict=False) for item in ENVIRONMENT.PLAYGROUND_METRICS_ALLOW
    )
except ValueError as exc:
    raise ImproperlyConfigured(f"PLAYGROUND_METRICS_ALLOW: {exc}") from None
if ENVIRONMENT.PLAYGROUND_METRICS and not (
    ENVIRONMENT.PLAYGROUND_METRICS_TOKEN or PLAYGROUND_METRICS_ALLOW
):
    raise ImproperlyConfigured(
        "PLAYGROUND_METRICS=1 needs PLAYGROUND_METRICS_TOKEN or PLAYGROUND_METRICS_ALLOW "
        "(addresses or networks, comma-separated): /metrics is never open to everyone"
    )
# prometheus-client's multiprocess mode (one host): each process writes its values there.
PLAYGROUND_METRICS_MULTIPROCESS = bool(ENVIRONMENT.PROMETHEUS_MULTIPROC_DIR)

# --- Traces (OpenTelemetry, the [otel] extra) -------------------------------------------------
# None unless PLAYGROUND_OTLP_ENDPOINT is set (playground.observability.traces, installed by the
# app's ready).
try:
    PLAYGROUND_TRACES = trace_config(
        endpoint=ENVIRONMENT.PLAYGROUND_OTLP_ENDPOINT,
        headers=ENVIRONMENT.PLAYGROUND_OTLP_HEADERS,
        timeout=ENVIRONMENT.PLAYGROUND_OTLP_TIMEOUT_SECONDS,
        sample_ratio=ENVIRONMENT.PLAYGROUND_TRACES_SAMPLE_RATIO,
        service_name=ENVIRONMENT.PLAYGROUND_TRACES_SERVICE_NAME,
    )
except ValueError as exc:
    raise ImproperlyConfigured(str(exc)) from None
