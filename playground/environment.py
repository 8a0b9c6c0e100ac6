"""The environment's variables, each declared once: its name, type, default and why.

Rule: only ``settings.py`` reads the environment, by building :class:`Environment` once
(pydantic-settings reads ``os.environ``); every other module gets what it needs from the
settings or as arguments. A value of the wrong type stops start-up with
:func:`described`'s message, which names the variable, the value and what was expected.

**Adding a setting is one line**: a field below, in its section, with its type, its default and
a comment saying why; then a row in README.md's "Configuration" table. A ``PLAYGROUND_*`` field
is a Django setting of the same name as it is (``settings.py`` copies every one it does not
mark ``exclude=True``); a field that only feeds a setting made of several (the upstream
timeouts, the attachment limits) is marked ``exclude=True`` and used in ``settings.py``.

An upstream profile's own keys (``PLAYGROUND_UPSTREAM_<NAME>_*``) are declared beside the
profiles, in ``upstream/profile_keys.py`` (``CustomUpstreamKeys``): a new key is one field there,
and any other suffix stops start-up naming the key and the known ones.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import (
    BeforeValidator,
    Field,
    NonNegativeFloat,
    NonNegativeInt,
    ValidationError,
)
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict


def _stripped(raw: object) -> object:
    return raw.strip() if isinstance(raw, str) else raw


def _comma_list(raw: object) -> object:
    if isinstance(raw, str):
        return tuple(item.strip() for item in raw.split(",") if item.strip())
    return raw


def _upper(raw: object) -> object:
    return raw.strip().upper() if isinstance(raw, str) else raw


def _lower(raw: object) -> object:
    return raw.strip().lower() if isinstance(raw, str) else raw


def _url(raw: object) -> object:
    return raw.strip().rstrip("/") if isinstance(raw, str) else raw


#: 1/0, true/false, yes/no, on/off, in any case (pydantic's reading of a boolean).
Flag = Annotated[bool, BeforeValidator(_stripped)]
#: ``a, b,,c`` → ``("a", "b", "c")``; read as text, not JSON (``NoDecode``).
CommaList = Annotated[tuple[str, ...], NoDecode, BeforeValidator(_comma_list)]
Text = Annotated[str, BeforeValidator(_stripped)]
#: A word from a fixed set, read in any case and without surrounding blanks.
Word = BeforeValidator(_lower)
Seconds = NonNegativeFloat
Ratio = Annotated[float, Field(ge=0.0, le=1.0)]
Count = NonNegativeInt
Bytes = NonNegativeInt
LogLevel = Annotated[
    Literal["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"], BeforeValidator(_upper)
]
#: An upstream's base URL, kept without its trailing slash.
Url = Annotated[str, BeforeValidator(_url)]


class Environment(BaseSettings):
    """Every variable the playground reads (README.md, "Configuration"), typed.

    Empty values count as unset (their default). Fields are named as their variables are
    spelt: the environment is read case-sensitively.
    """

    model_config = SettingsConfigDict(
        case_sensitive=True, env_ignore_empty=True, extra="ignore", frozen=True
    )

    # --- Django ---------------------------------------------------------------------------
    DJANGO_DEBUG: Flag = Field(default=True, exclude=True)
    DJANGO_SECRET_KEY: str = Field(default="", exclude=True, repr=False)
    # The public hosts; the simulator's own host is always added (settings.py).
    DJANGO_ALLOWED_HOSTS: CommaList = Field(
        default=("127.0.0.1", "localhost", "[::1]"), exclude=True
    )
    # Origins allowed to POST when served behind a proxy on another origin.
    DJANGO_CSRF_TRUSTED_ORIGINS: CommaList = Field(default=(), exclude=True)
    # Cookies over HTTPS only; unset: on when debug is off.
    DJANGO_SECURE_COOKIES: Flag | None = Field(default=None, exclude=True)
    # Served by a TLS proxy that sets X-Forwarded-Proto (settings.py says what it turns on).
    DJANGO_HTTPS: Flag = Field(default=False, exclude=True)
    DJANGO_HSTS_SECONDS: Count = Field(default=31_536_000, exclude=True)
    DJANGO_STATIC_ROOT: str = Field(default="", exclude=True)
    # How long a browser keeps a static file not named by its hash; unset: 0 in debug (an
    # edited script is served at the next load), 60 otherwise (web/static_files.py).
    PLAYGROUND_STATIC_MAX_AGE: Count | None = None
    DATABASE_URL: str = Field(default="", exclude=True, repr=False)
    REDIS_URL: str = Field(default="", exclude=True, repr=False)
    PLAYGROUND_LOG_LEVEL: LogLevel = Field(default="INFO", exclude=True)

    # --- Database ---------------------------------------------------------------------------
    PLAYGROUND_DB_CONN_MAX_AGE: Count = Field(default=600, exclude=True)
    PLAYGROUND_SQLITE_BUSY_TIMEOUT: Seconds = Field(default=20.0, exclude=True)
    PLAYGROUND_DB_POOL_SIZE: Count = Field(default=8, exclude=True)
    PLAYGROUND_DB_POOL_TIMEOUT: Seconds = Field(default=5.0, exclude=True)
    # Threads (each with its own connection) that runs' writes go through (runs.run_writes).
    PLAYGROUND_DB_WRITE_THREADS: Count = Field(default=1, exclude=True)

    # --- Upstreams --------------------------------------------------------------------------
    # Where the app reaches its own simulator; settings.py follows the serving address unless
    # this is set.
    PLAYGROUND_SIMULATOR_URL: Url = "http://127.0.0.1:8000/simulator"
    # Simulated generation speed in tokens per second; 0 means as fast as possible.
    PLAYGROUND_SIMULATOR_RATE: Seconds = 60.0
    # Every upstream call's timeouts (PLAYGROUND_UPSTREAM_TIMEOUTS); the read timeout is the
    # longest gap between two chunks of a stream, not a limit on the whole answer.
    PLAYGROUND_UPSTREAM_CONNECT_TIMEOUT: Seconds = Field(default=10.0, exclude=True)
    PLAYGROUND_UPSTREAM_READ_TIMEOUT: Seconds = Field(default=60.0, exclude=True)
    PLAYGROUND_UPSTREAM_WRITE_TIMEOUT: Seconds = Field(default=30.0, exclude=True)
    PLAYGROUND_UPSTREAM_POOL_TIMEOUT: Seconds = Field(default=10.0, exclude=True)
    PLAYGROUND_UPSTREAM_MAX_RETRIES: Count = 2
    # How long the server waits for an upstream's chat render (the debugger's rendered prompt).
    PLAYGROUND_RENDER_TIMEOUT_SECONDS: Seconds = 15.0
    # How many cells of an evaluation grid run at once unless the grid says (playground.grids).
    PLAYGROUND_GRID_CONCURRENCY: Count = 4
    # How often an idle grid page (owner's or share link's) asks whether runs started elsewhere.
    PLAYGROUND_GRID_IDLE_POLL_SECONDS: Seconds = 3.0
    # Requests sent to one upstream profile at once by every run together, fair between
    # people: "16", or "16 anthropic=4 simulator=64" (PLAYGROUND_PROFILE_CONCURRENCY, parsed).
    PLAYGROUND_PROFILE_CONCURRENCY: Text = Field(default="16", exclude=True)
    # Model lists (GET /v1/models): kept this long, asked again this long after a failure,
    # given this long to answer; over these bounds a list is no list (upstream.model_list).
    PLAYGROUND_MODEL_LIST_TTL_SECONDS: Seconds = 300.0
    PLAYGROUND_MODEL_LIST_FAILURE_TTL_SECONDS: Seconds = 30.0
    PLAYGROUND_MODEL_LIST_TIMEOUT_SECONDS: Seconds = 5.0
    PLAYGROUND_MODEL_LIST_MAX_BYTES: Bytes = 4 * 1024 * 1024
    PLAYGROUND_MODEL_LIST_MAX_MODELS: Count = 1000

    # --- Ownership --------------------------------------------------------------------------
    # Off: no login, every visitor is the one local user. On: each user sees only their own.
    PLAYGROUND_REQUIRE_LOGIN: Flag = False

    # --- Relay ------------------------------------------------------------------------------
    # Largest WebSocket frame accepted from a browser, in bytes.
    PLAYGROUND_MAX_FRAME_BYTES: Bytes = 1_000_000
    # At most one frame of relayed events per this many seconds per run (the first at once).
    PLAYGROUND_RELAY_BATCH_SECONDS: Seconds = 0.03
    # A long run's partial state is written at most this often: a crash loses at most this.
    PLAYGROUND_CHECKPOINT_SECONDS: Seconds = 5.0
    # On SIGTERM/SIGINT live runs get this long to finish before they are saved as interrupted.
    PLAYGROUND_SHUTDOWN_GRACE_SECONDS: Seconds = 10.0
    # A live run is leased to the process streaming it; if that one dies, another takes the
    # run over within this many seconds.
    PLAYGROUND_RUN_LEASE_SECONDS: Seconds = 30.0

    # --- Attachments ------------------------------------------------------------------------
    # Anthropic's limits (PLAYGROUND_ATTACHMENT_LIMITS): an image, a PDF (a request), files in
    # one message.
    PLAYGROUND_ATTACHMENT_MAX_BYTES: Bytes = Field(default=5 * 1024 * 1024, exclude=True)
    PLAYGROUND_ATTACHMENT_PDF_MAX_BYTES: Bytes = Field(default=32 * 1024 * 1024, exclude=True)
    PLAYGROUND_ATTACHMENT_MAX_COUNT: Count = Field(default=100, exclude=True)
    # The largest request sent upstream or exported, its files in base64 (the API's 32 MB).
    PLAYGROUND_MAX_REQUEST_BYTES: Bytes = 32 * 1024 * 1024
    # The largest import (POST /api/import/, JSON or an uploaded file): a bundle carries its
    # conversation's grids with every answer (playground.transfer, playground.grids.bundle).
    PLAYGROUND_MAX_IMPORT_BYTES: Bytes = 16 * 1024 * 1024

    # --- MCP servers ------------------------------------------------------------------------
    # A JSON file in Claude Desktop's shape, read and checked by settings.py (docs/mcp.md).
    PLAYGROUND_MCP_CONFIG: Text = ""
    # A tools/call's timeout, and its result's largest size (its JSON).
    PLAYGROUND_MCP_CALL_TIMEOUT_SECONDS: Seconds = 60.0
    # A task-augmented tool's (run as a task, polled: playground.mcp.tasks) timeout.
    PLAYGROUND_MCP_TASK_TIMEOUT_SECONDS: Seconds = 600.0
    PLAYGROUND_MCP_RESULT_MAX_BYTES: Bytes = 1_000_000
    # An MCP session unused this long is closed (a stdio server's process ended with it); a
    # person holds at most so many at once and the process so many: the least recently used
    # idle one is closed to make room (playground.mcp.manager).
    PLAYGROUND_MCP_IDLE_SECONDS: Seconds = 600.0
    PLAYGROUND_MCP_SESSIONS_PER_USER: Count = 8
    PLAYGROUND_MCP_SESSIONS_MAX: Count = 64
    # In login mode people add Streamable-HTTP servers of their own (playground.mcp.user_servers):
    # at most so many each; their URLs must reach public addresses unless this allows loopback
    # and private ones (an operator whose people's servers are inside; the tests).
    PLAYGROUND_MCP_USER_SERVERS_MAX: Count = 20
    PLAYGROUND_MCP_ALLOW_PRIVATE_URLS: Flag = False

    # --- Usage -----------------------------------------------------------------------------
    # A TOML file of prices per profile and model, read and checked by settings.py.
    PLAYGROUND_PRICES: Text = ""

    # --- Sign-in with OpenID Connect (settings.PLAYGROUND_OIDC, docs/deploy.md) ---------------
    PLAYGROUND_OIDC_ISSUER: Url = Field(default="", exclude=True)
    PLAYGROUND_OIDC_CLIENT_ID: Text = Field(default="", exclude=True)
    PLAYGROUND_OIDC_CLIENT_SECRET: Text = Field(default="", exclude=True, repr=False)
    PLAYGROUND_OIDC_ALLOWED_DOMAINS: CommaList = Field(default=(), exclude=True)
    PLAYGROUND_OIDC_STAFF_CLAIM: Text = Field(default="", exclude=True)
    PLAYGROUND_OIDC_LABEL: Text = Field(default="single sign-on", exclude=True)
    PLAYGROUND_OIDC_SESSION_SECONDS: Count = Field(default=8 * 3600, exclude=True)
    PLAYGROUND_OIDC_TIMEOUT_SECONDS: Seconds = Field(default=10.0, exclude=True)
    PLAYGROUND_OIDC_SCOPES: Text = Field(default="openid email profile", exclude=True)
    PLAYGROUND_OIDC_SIGN_ALGO: Text = Field(default="RS256", exclude=True)

    # --- Metrics (playground.observability) ---------------------------------------------------
    PLAYGROUND_METRICS: Flag = False
    PLAYGROUND_METRICS_TOKEN: Text = Field(default="", repr=False)
    PLAYGROUND_METRICS_ALLOW: CommaList = Field(default=(), exclude=True)
    # prometheus-client's own variable: its multiprocess mode's folder (one host).
    PROMETHEUS_MULTIPROC_DIR: Text = Field(default="", exclude=True)

    # --- Traces (playground.observability.traces, the [otel] extra) -------------------------
    # The collector's OTLP/HTTP address (http://collector:4318; /v1/traces is added to one
    # without a path). Empty: traces off, and OpenTelemetry is never imported.
    PLAYGROUND_OTLP_ENDPOINT: Url = Field(default="", exclude=True)
    # Headers each export sends (name=value,…: a collector's token); never logged.
    PLAYGROUND_OTLP_HEADERS: CommaList = Field(default=(), exclude=True, repr=False)
    PLAYGROUND_OTLP_TIMEOUT_SECONDS: Seconds = Field(default=10.0, exclude=True)
    # The share of traces kept, 0 to 1, decided at each trace's root (a run, a grid's cell).
    PLAYGROUND_TRACES_SAMPLE_RATIO: Ratio = Field(default=1.0, exclude=True)
    # The traces' service.name (service.instance.id is the process: host and pid).
    PLAYGROUND_TRACES_SERVICE_NAME: Text = Field(default="messages-playground", exclude=True)


def described(error: ValidationError, *, prefix: str = "") -> str:
    """``error`` as one line per bad variable: its name, the value given, what was expected.

    ``prefix`` comes before each field's name (a profile's keys are its suffixes)."""
    lines = []
    for problem in error.errors(include_url=False):
        name = f"{prefix}{problem['loc'][0]}" if problem["loc"] else prefix
        message = problem["msg"]
        if problem["type"] == "missing":
            lines.append(f"{name} is required")
            continue
        lines.append(f"{name}={problem['input']!r}: {message[:1].lower()}{message[1:]}")
    return "; ".join(lines)
