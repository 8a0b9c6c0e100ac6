"""Settings: the only module that reads or writes the environment.

Every other module receives what it needs from here (through ``django.conf.settings``) or
as arguments. Variables are documented in README.md ("Configuration"). What only the serving
command knows (the address it listens on) comes back here (:func:`serve_simulator_at`), and
so does the autoreloader's question about its child (:func:`autoreload_child`); the one
exception is ``DJANGO_SETTINGS_MODULE``, which says where this module is (``manage.py``,
``asgi.py``, ``serve.py``). ``tests/test_settings_environment.py`` reads the imports.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

from playground.mcp.config import McpConfigError, ServerConfig, servers_from_text
from playground.protocol.attachments import AttachmentLimits
from playground.runs.upstream_slots import parse_limits
from playground.upstream.profiles import Profile, profiles_from_environ, simulator_key
from playground.usage.prices import PriceTable, PriceTableError, read_price_table

BASE_DIR = Path(__file__).resolve().parent.parent


def _flag(name: str, default: bool) -> bool:
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    value = raw.strip().lower()
    if value in {"1", "true", "yes", "on"}:
        return True
    if value in {"0", "false", "no", "off"}:
        return False
    raise ImproperlyConfigured(f"{name}={raw!r}: expected one of 1/0, true/false, yes/no, on/off")


def _number(name: str, default: float) -> float:
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    try:
        value = float(raw)
    except ValueError:
        raise ImproperlyConfigured(f"{name}={raw!r}: expected a number") from None
    if value < 0:
        raise ImproperlyConfigured(f"{name}={raw!r}: must not be negative")
    return value


DEBUG = _flag("DJANGO_DEBUG", True)

#: Development only: a fixed key is fine for a playground bound to 127.0.0.1.
_DEV_SECRET_KEY = "dev-only-insecure-key-do-not-use-in-production"
#: Keys a production start refuses: the shipped env file's placeholder and the dev key, which
#: anyone can read here (sessions and share links would be forgeable), and anything short.
_PLACEHOLDER_KEYS = {"replace-me", _DEV_SECRET_KEY}
_SECRET_KEY_MIN = 16
_GENERATE_KEY = "python3 -c 'import secrets; print(secrets.token_urlsafe(50))'"

SECRET_KEY = os.environ.get("DJANGO_SECRET_KEY", "")
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

ALLOWED_HOSTS = [
    host.strip()
    for host in os.environ.get("DJANGO_ALLOWED_HOSTS", "127.0.0.1,localhost,[::1]").split(",")
    if host.strip()
]
# The built-in simulator is served by this same app under /simulator/; the relay reaches it
# over real HTTP at this base URL (change it when serving on another address or port).
PLAYGROUND_SIMULATOR_URL = os.environ.get(
    "PLAYGROUND_SIMULATOR_URL", "http://127.0.0.1:8000/simulator"
).rstrip("/")
#: Named by the environment: kept as it is, wherever the server listens.
_SIMULATOR_URL_NAMED = "PLAYGROUND_SIMULATOR_URL" in os.environ


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
CSRF_TRUSTED_ORIGINS = [
    origin.strip()
    for origin in os.environ.get("DJANGO_CSRF_TRUSTED_ORIGINS", "").split(",")
    if origin.strip()
]
# Cookies only over HTTPS once the app is served for real (not in local debug mode).
SESSION_COOKIE_SECURE = CSRF_COOKIE_SECURE = _flag("DJANGO_SECURE_COOKIES", not DEBUG)

# Served over HTTPS by a TLS-terminating proxy (docs/deploy.md, docs/nginx.conf) that sets
# X-Forwarded-Proto on every request, overwriting any a client sent. Then a request the proxy
# marks https is https (share links, the WebSocket origin check, CSRF), plain http is redirected,
# and browsers are told to come back over https only (HSTS). Off by default: without such a
# proxy the header would be the client's word.
DJANGO_HTTPS = _flag("DJANGO_HTTPS", False)
if DJANGO_HTTPS:
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SECURE_SSL_REDIRECT = True
    # The app reaches its own simulator over plain HTTP on loopback, past the proxy.
    SECURE_REDIRECT_EXEMPT = [r"^simulator/"]
    SECURE_HSTS_SECONDS = int(_number("DJANGO_HSTS_SECONDS", 31_536_000))
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
        os.environ.get("DATABASE_URL") or f"sqlite:///{BASE_DIR / 'db.sqlite3'}",
        # Kept connections (SQLite): every database call of a socket or a run runs through
        # ``database_sync_to_async`` on one thread, and opening a connection for each (SQLite's
        # WAL pragmas) was a tenth of the server's CPU at 100 streams (docs/benchmarks.md). The
        # health check replaces a connection the database dropped (and, on PostgreSQL, makes
        # the pool check a connection before lending it).
        conn_max_age=int(_number("PLAYGROUND_DB_CONN_MAX_AGE", 600)),
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
        "timeout": _number("PLAYGROUND_SQLITE_BUSY_TIMEOUT", 20.0),
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
            "max_size": max(2, int(_number("PLAYGROUND_DB_POOL_SIZE", 8))),
            "timeout": _number("PLAYGROUND_DB_POOL_TIMEOUT", 5.0),
            # An idle connection is closed after this long (a quiet process shrinks to min_size).
            "max_idle": 300.0,
            # A connection lost to a restart is tried again 1, 2 s later, then the attempt ends
            # and the next caller starts a new one: after an outage of any length the pool is
            # whole again within about two seconds (psycopg's default backs off for 5 min).
            "reconnect_timeout": 4.0,
        },
    }
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

REDIS_URL = os.environ.get("REDIS_URL", "")
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
STATIC_ROOT = Path(os.environ.get("DJANGO_STATIC_ROOT") or BASE_DIR / "staticfiles")
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
        "playground": {"level": os.environ.get("PLAYGROUND_LOG_LEVEL", "INFO")},
        "django.channels.server": {"filters": ["share_tokens"]},
        "django.request": {"filters": ["share_tokens", "database_away"]},
    },
}

# --- Upstreams -------------------------------------------------------------------------------
# (PLAYGROUND_SIMULATOR_URL is read with the hosts, above: its host is allowed.)
# Simulated generation speed in tokens per second; 0 means as fast as possible.
PLAYGROUND_SIMULATOR_RATE = _number("PLAYGROUND_SIMULATOR_RATE", 60.0)

# Timeouts for every upstream call, in seconds. The read timeout is the longest allowed gap
# between two chunks of a stream, not a limit on the whole answer.
PLAYGROUND_UPSTREAM_TIMEOUTS = {
    "connect": _number("PLAYGROUND_UPSTREAM_CONNECT_TIMEOUT", 10.0),
    "read": _number("PLAYGROUND_UPSTREAM_READ_TIMEOUT", 60.0),
    "write": _number("PLAYGROUND_UPSTREAM_WRITE_TIMEOUT", 30.0),
    "pool": _number("PLAYGROUND_UPSTREAM_POOL_TIMEOUT", 10.0),
}
# How long the server waits for an upstream's chat render (the debugger's rendered prompt).
PLAYGROUND_RENDER_TIMEOUT_SECONDS = _number("PLAYGROUND_RENDER_TIMEOUT_SECONDS", 15.0)
# How many cells of an evaluation grid run at once unless the grid says (playground.grids).
PLAYGROUND_GRID_CONCURRENCY = int(_number("PLAYGROUND_GRID_CONCURRENCY", 4))
# How often an idle grid page (owner's or share link's) asks whether runs started elsewhere.
PLAYGROUND_GRID_IDLE_POLL_SECONDS = _number("PLAYGROUND_GRID_IDLE_POLL_SECONDS", 3.0)
# Requests sent to one upstream profile at once by every run together, fair between people
# (playground.runs.upstream_slots): "16", or "16 anthropic=4 simulator=64" for a profile's own.
try:
    PLAYGROUND_PROFILE_CONCURRENCY = parse_limits(
        os.environ.get("PLAYGROUND_PROFILE_CONCURRENCY", "16")
    )
except ValueError as exc:
    raise ImproperlyConfigured(f"PLAYGROUND_PROFILE_CONCURRENCY: {exc}") from None
PLAYGROUND_UPSTREAM_MAX_RETRIES = int(_number("PLAYGROUND_UPSTREAM_MAX_RETRIES", 2))
# The byte pipe under httpx for upstream calls: "asyncio" (playground.upstream.network, cheaper
# per read) or "anyio" (httpx's own default).
PLAYGROUND_UPSTREAM_NETWORK = os.environ.get("PLAYGROUND_UPSTREAM_NETWORK", "asyncio").strip()
if PLAYGROUND_UPSTREAM_NETWORK not in ("asyncio", "anyio"):
    raise ImproperlyConfigured(
        f"PLAYGROUND_UPSTREAM_NETWORK={PLAYGROUND_UPSTREAM_NETWORK!r}: use asyncio or anyio"
    )
# An environment that names a proxy (either case; httpx reads these itself) sends upstream calls
# through httpx's own network, the only one that applies it (playground.upstream.network).
_PROXY_VARIABLES = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY")
PLAYGROUND_UPSTREAM_PROXIED = any(
    os.environ.get(name) or os.environ.get(name.lower()) for name in _PROXY_VARIABLES
)

# The model lists upstreams serve (GET /v1/models), suggested in the model field: kept this
# long, asked again this long after a failure, and given this long to answer (seconds).
PLAYGROUND_MODEL_LIST_TTL_SECONDS = _number("PLAYGROUND_MODEL_LIST_TTL_SECONDS", 300.0)
PLAYGROUND_MODEL_LIST_FAILURE_TTL_SECONDS = _number(
    "PLAYGROUND_MODEL_LIST_FAILURE_TTL_SECONDS", 30.0
)
PLAYGROUND_MODEL_LIST_TIMEOUT_SECONDS = _number("PLAYGROUND_MODEL_LIST_TIMEOUT_SECONDS", 5.0)
# A list's bounds (upstream.model_list): every page's body together, and the names kept (the
# API's own page limit); over them a list is no list (the configured models are suggested).
PLAYGROUND_MODEL_LIST_MAX_BYTES = int(_number("PLAYGROUND_MODEL_LIST_MAX_BYTES", 4 * 1024 * 1024))
PLAYGROUND_MODEL_LIST_MAX_MODELS = int(_number("PLAYGROUND_MODEL_LIST_MAX_MODELS", 1000))

# What the app's own client sends the simulator (in login mode it answers nobody else but
# logged-in users); derived from SECRET_KEY, never shown to a browser.
PLAYGROUND_SIMULATOR_KEY = simulator_key(secret_key=SECRET_KEY)


def _profiles(simulator_url: str) -> dict[str, Profile]:
    try:
        return profiles_from_environ(
            os.environ, simulator_url=simulator_url, simulator_key=PLAYGROUND_SIMULATOR_KEY
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


# --- Development tools -----------------------------------------------------------------------
# The pinned JavaScript tools (esbuild for the page bundle: playground.page_bundle) come from
# the npm registry into this folder, unless PLAYGROUND_ESBUILD names an esbuild to use.
PLAYGROUND_TOOL_CACHE = (
    Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "messages-playground"
)
PLAYGROUND_ESBUILD = os.environ.get("PLAYGROUND_ESBUILD", "")


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
PLAYGROUND_REQUIRE_LOGIN = _flag("PLAYGROUND_REQUIRE_LOGIN", False)
PLAYGROUND_LOCAL_USERNAME = "local"
LOGIN_URL = "/accounts/login/"
LOGIN_REDIRECT_URL = "/"
LOGOUT_REDIRECT_URL = "/"
# Under /api/ a CSRF refusal answers in the JSON error shape (Django's page elsewhere).
CSRF_FAILURE_VIEW = "playground.web.endpoint.csrf_failure"

# --- Relay -----------------------------------------------------------------------------------
# Largest WebSocket frame accepted from a browser, in bytes.
PLAYGROUND_MAX_FRAME_BYTES = int(_number("PLAYGROUND_MAX_FRAME_BYTES", 1_000_000))
# The server's own WebSocket limit (manage.py runserver reads these; `python -m playground.serve`
# passes them to Daphne): twice the frame limit, so a frame over it reaches the consumer and is
# answered `too_large`; only a frame over this is cut off by the server itself (close 1009).
DAPHNE_WEBSOCKET_MAX_MESSAGE_SIZE = DAPHNE_WEBSOCKET_MAX_FRAME_SIZE = 2 * PLAYGROUND_MAX_FRAME_BYTES
# At most one frame of relayed events per this many seconds per run (the first goes at once).
PLAYGROUND_RELAY_BATCH_SECONDS = _number("PLAYGROUND_RELAY_BATCH_SECONDS", 0.03)
# A long run's partial state is written at most this often, so a crash loses at most this much.
PLAYGROUND_CHECKPOINT_SECONDS = _number("PLAYGROUND_CHECKPOINT_SECONDS", 5.0)
# Threads (each with its own database connection) that run writes go through, apart from the
# one serving sockets' reads and handshakes (runs.run_writes); more lets runs' writes overlap.
PLAYGROUND_DB_WRITE_THREADS = max(1, int(_number("PLAYGROUND_DB_WRITE_THREADS", 1.0)))
# On SIGTERM/SIGINT live runs get this long to finish before they are saved as interrupted.
PLAYGROUND_SHUTDOWN_GRACE_SECONDS = _number("PLAYGROUND_SHUTDOWN_GRACE_SECONDS", 10.0)
# A live run is leased to the process streaming it (renewed by a heartbeat); if that process
# dies, another one takes the run over (saved as interrupted, every checkpointed event kept)
# within this many seconds.
PLAYGROUND_RUN_LEASE_SECONDS = _number("PLAYGROUND_RUN_LEASE_SECONDS", 30.0)

# --- Attachments ---------------------------------------------------------------------------
# Images (PNG, JPEG, GIF, WebP) and PDFs in user turns (playground.attachments). The defaults
# are Anthropic's limits: 5 MB an image, 32 MB a request (so a PDF), 100 images a request
# (here: files in one message).
PLAYGROUND_ATTACHMENT_LIMITS = AttachmentLimits(
    image_max_bytes=int(_number("PLAYGROUND_ATTACHMENT_MAX_BYTES", 5 * 1024 * 1024)),
    pdf_max_bytes=int(_number("PLAYGROUND_ATTACHMENT_PDF_MAX_BYTES", 32 * 1024 * 1024)),
    max_count=int(_number("PLAYGROUND_ATTACHMENT_MAX_COUNT", 100)),
)
# The largest import (POST /api/import/, JSON or an uploaded file): a bundle carries its
# conversation's grids with every answer (playground.transfer, playground.grids.bundle).
PLAYGROUND_MAX_IMPORT_BYTES = int(_number("PLAYGROUND_MAX_IMPORT_BYTES", 16 * 1024 * 1024))
# The largest request sent upstream or exported, its files in base64: the Messages API's own
# limit (32 MB). A larger one is refused before any file is read (attachments.store).
PLAYGROUND_MAX_REQUEST_BYTES = int(_number("PLAYGROUND_MAX_REQUEST_BYTES", 32 * 1024 * 1024))
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
PLAYGROUND_MCP_CONFIG = os.environ.get("PLAYGROUND_MCP_CONFIG", "").strip()
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
# A tools/call gets this long to answer (then it is cancelled); a result over this many bytes
# (its JSON) is refused as too large. Either is named on the card, which can still be answered.
PLAYGROUND_MCP_CALL_TIMEOUT_SECONDS = _number("PLAYGROUND_MCP_CALL_TIMEOUT_SECONDS", 60.0)
PLAYGROUND_MCP_RESULT_MAX_BYTES = int(_number("PLAYGROUND_MCP_RESULT_MAX_BYTES", 1_000_000))
# An MCP session unused this long is closed (a stdio server's process ended with it); a person
# holds at most so many at once and the process so many: the least recently used idle one is
# closed to make room (playground.mcp.manager). A person's sessions close when they log out.
PLAYGROUND_MCP_IDLE_SECONDS = _number("PLAYGROUND_MCP_IDLE_SECONDS", 600.0)
PLAYGROUND_MCP_SESSIONS_PER_USER = int(_number("PLAYGROUND_MCP_SESSIONS_PER_USER", 8))
PLAYGROUND_MCP_SESSIONS_MAX = int(_number("PLAYGROUND_MCP_SESSIONS_MAX", 64))

# --- Prices ----------------------------------------------------------------------------------
# What runs cost (playground.usage.prices; the file's shape is in the README): a TOML file of
# prices per profile and model. Without one every run shows "no price set".
PLAYGROUND_PRICES = os.environ.get("PLAYGROUND_PRICES", "").strip()
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
