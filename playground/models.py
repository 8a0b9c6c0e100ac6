"""Conversation state: conversations, their messages, and the runs (upstream calls) behind them.

Rule: every JSON value here (message content, request bodies, settings, usage, flags, a share's
snapshot) is a ``fields.JSONTextField``: exact JSON text, never a jsonb column, which reorders
keys and re-encodes strings (a thinking block's signature must go back as received). The event
log of a run is JSON *lines*, plain text, stored as one ``RunEventChunk`` row per write: a
checkpoint inserts only the lines since the last one, never rewrites the log (read whole as
``Run.events_jsonl``).

Writers, by model: conversations and messages change only in ``playground.conversations`` (an
import and a share's fork create theirs through its ``store_new_conversation``); runs in
``playground.runs`` (``store``: start, checkpoints, end, recovery; ``answer``: an answer kept on
its run); shares in ``playground.sharing``; attachments in ``playground.attachments``; prompts,
their versions, labels and uses in ``playground.prompts``; a person's own MCP servers in
``playground.mcp.user_servers`` (their OAuth tokens also in ``playground.mcp.oauth``).
Besides those, only the admin (``admin.py``) edits rows.
"""

from __future__ import annotations

import uuid
from typing import Any

from django.conf import settings
from django.db import models
from django.utils import timezone

from playground.fields import JSONTextField, SettingsField
from playground.protocol.run_status import RunStatus
from playground.protocol.settings_table import Settings

#: What an untitled conversation is called, everywhere (pages, admin, lists).
UNTITLED = "Untitled"


class Conversation(models.Model):
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="conversations"
    )
    title = models.CharField(max_length=200, blank=True, default="")
    # Every setting, as one JSON object (``protocol.settings_table.Settings``: what each is, its
    # default, its rules): a setting added there needs no column and no migration.
    settings = SettingsField(default=Settings)
    # Prompt variables' values ({name: text}), filled into ``{{name}}`` when a request is
    # built (``protocol.variables``); no setting: nothing of it is sent as such.
    variables = JSONTextField(default=dict, blank=True)
    tool_mocks = JSONTextField(
        default=list,
        blank=True,
        help_text="Saved tool results (protocol.tool_mocks): data the page answers calls with.",
    )
    # Which MCP server each tool came from ({name: {server, mcp_name}}, protocol.mcp_marks):
    # written when a person adds a server's tools, kept beside the tools, never sent upstream.
    mcp_tools = JSONTextField(default=dict, blank=True)
    # Which servers' tools run without a person's click ({"servers": {name|"*": "ask"|"auto"}},
    # protocol.mcp_approval); a tool's own choice is its mark's. Held at every door.
    mcp_approval = JSONTextField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-updated_at"]
        indexes = [
            # The list's order (conversations.paging): a page is read off this index, owner by
            # owner, instead of sorting all of a person's conversations for each page.
            models.Index(fields=["owner", "-updated_at", "-id"], name="conversation_list_order"),
        ]

    def __str__(self) -> str:
        return self.title or UNTITLED


class Message(models.Model):
    class Role(models.TextChoices):
        USER = "user"
        ASSISTANT = "assistant"

    conversation = models.ForeignKey(
        Conversation, on_delete=models.CASCADE, related_name="messages"
    )
    # A turn's depth: alternatives of one turn (a regenerated answer, an edited message)
    # share their position and their parent. The conversation is the path of messages with
    # ``on_path`` (one per position, from the root down), read only through
    # ``conversations.branches.path_of``.
    position = models.PositiveIntegerField()
    parent = models.ForeignKey(
        "self", on_delete=models.CASCADE, null=True, blank=True, related_name="children"
    )
    on_path = models.BooleanField(default=True)
    role = models.CharField(max_length=20, choices=Role.choices)
    content = JSONTextField(help_text="The API's content blocks, as exact JSON text.")
    # The words of ``content`` (``conversations.search.search_text_of``), written beside it by
    # the services and indexed for search (``conversations.search_index``).
    search_text = models.TextField(blank=True, default="", editable=False)
    run = models.ForeignKey(
        "Run", on_delete=models.SET_NULL, null=True, blank=True, related_name="messages"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    # An assistant turn the person wrote as the start of the answer, for a run to continue
    # (``protocol.continuation``): the page marks it, and Continue sends it.
    prefill = models.BooleanField(default=False)
    # How many of ``content``'s leading blocks came from the turn this one continues (a
    # prefill, or a turn paused with ``pause_turn``); that turn stays behind it as an
    # alternative. 0: the run wrote the whole turn.
    carried_blocks = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["conversation", "position"]
        constraints = [
            # One message a position on the path; the alternatives off it share positions.
            models.UniqueConstraint(
                fields=["conversation", "position"],
                condition=models.Q(on_path=True),
                name="message_position_unique_on_path",
            )
        ]

    def as_api(self) -> dict[str, Any]:
        """The message as the Messages API expects it (content exactly as stored)."""
        return {"role": self.role, "content": self.content}

    def __str__(self) -> str:
        return f"{self.role} #{self.position}"


class Run(models.Model):
    """One upstream call: what was sent, what came back, how it ended."""

    #: The statuses (``protocol.run_status``); ``Run.Status.RUNNING`` reads as before.
    Status = RunStatus

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    conversation = models.ForeignKey(Conversation, on_delete=models.CASCADE, related_name="runs")
    profile = models.CharField(max_length=100)
    model = models.CharField(max_length=200)
    request = JSONTextField(null=True, help_text="The request body as sent; never a key.")
    status = models.CharField(
        max_length=20,
        # The labels TextChoices gave ("Running"…), so the migration state is unchanged.
        choices=[(status.value, status.name.title()) for status in RunStatus],
        default=RunStatus.RUNNING,
    )
    stop_reason = models.CharField(max_length=100, blank=True, default="")
    usage = JSONTextField(default=dict, blank=True)
    upstream_message_id = models.CharField(max_length=200, blank=True, default="")
    request_id = models.CharField(max_length=200, blank=True, default="")
    attempts = models.PositiveSmallIntegerField(default=0)
    started_at = models.DateTimeField()
    first_event_at = models.DateTimeField(null=True, blank=True)
    first_token_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    error_code = models.CharField(max_length=100, blank=True, default="")
    error_message = models.TextField(blank=True, default="")
    block_issues = JSONTextField(default=dict, blank=True)
    # How the message ended, beside stop_reason (from message_delta; see docs/protocol.md).
    stop_sequence = models.TextField(blank=True, default="")
    stop_details = JSONTextField(null=True, blank=True)
    container = JSONTextField(null=True, blank=True)
    #: A compaction's applied edits, from the ``message_delta`` (``context_management``).
    context_management = JSONTextField(null=True, blank=True)
    # An upstream error's own type and request id (an error event names its own request).
    error_type = models.CharField(max_length=100, blank=True, default="")
    error_request_id = models.CharField(max_length=200, blank=True, default="")
    # What the stream did that was tolerated and flagged (events before message_start…).
    stream_notes = JSONTextField(default=list, blank=True)
    # The answer's content when it could not be stored as the conversation's next message (the
    # conversation changed under the run): kept here, exact JSON text, with the reason.
    kept_content = JSONTextField(
        null=True,
        blank=True,
        help_text="The answer's content blocks when they could not join the conversation.",
    )
    kept_reason = models.CharField(max_length=300, blank=True, default="")
    # The lease of a running run (``runs.lease``): which server process streams it, and until
    # when that holds unless renewed. Another process takes the run over only once it expired.
    owner = models.CharField(max_length=200, blank=True, default="")
    lease_expires_at = models.DateTimeField(null=True, blank=True)
    # A compare (``runs.start``): the runs started together on one user turn, one a column,
    # each answer an alternative of the same assistant turn. A lone run is column 0, no group.
    compare_group = models.UUIDField(null=True, blank=True)
    column = models.PositiveSmallIntegerField(default=0)
    # What the run cost, in billionths of the price table's currency, set by its end write
    # (``playground.usage``); null while it runs, or when the table names no price for it.
    cost_nanos = models.BigIntegerField(null=True, blank=True)
    # A run beside the conversation (``runs.aside``): "sampling", an MCP server's request for a
    # model's answer during the call of ``tool_use_id``; its answer is kept on the run, never a
    # turn, and it holds no place in the conversation (another run may start beside it). ""
    # for the runs that answer the conversation itself.
    purpose = models.CharField(max_length=20, blank=True, default="")
    tool_use_id = models.CharField(max_length=200, blank=True, default="")

    class Meta:
        ordering = ["-started_at"]
        constraints = [
            # One live run per conversation and column, enforced by the database as well as
            # the service. Every start takes column 0 (a lone run, or a compare's first), so a
            # lone run and a compare, or two compares, never run at once; only one compare's
            # columns run beside each other. A run beside the conversation (``purpose``) is
            # none of these.
            models.UniqueConstraint(
                fields=["conversation", "column"],
                condition=models.Q(status=RunStatus.RUNNING, purpose=""),
                name="one_running_run_per_conversation_column",
            )
        ]

    def __str__(self) -> str:
        return f"Run {self.id} ({self.status})"

    @property
    def events_jsonl(self) -> str:
        """Every upstream event so far, one JSON object a line: {seq, t (ms offset), type, data}.

        Read through ``event_chunks.all()``, so ``prefetch_related("event_chunks")`` serves it.
        """
        chunks = sorted(self.event_chunks.all(), key=lambda chunk: chunk.first_seq)
        return "".join(chunk.lines for chunk in chunks)


class RunEventChunk(models.Model):
    """The lines of a run's event log one write (a checkpoint, the end) added.

    Why a row per write and not one growing text column: appending to a column rewrites all of
    it (a log of megabytes rewritten every few seconds, 2.4 ms of CPU per checkpoint at 180 kB
    against 0.2 ms for an insert), and on SQLite every read of the run walked its overflow pages.
    """

    id = models.BigAutoField(primary_key=True)
    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="event_chunks")
    #: The ``seq`` of the first line; the lines run on from it without a gap.
    first_seq = models.PositiveIntegerField()
    lines = models.TextField(help_text="JSON lines, each ending in a newline.")

    class Meta:
        constraints = [
            # A write that landed twice (a retried end) fails instead of doubling events.
            models.UniqueConstraint(fields=["run", "first_seq"], name="one_chunk_per_seq")
        ]

    def __str__(self) -> str:
        return f"events of run {self.run_id} from seq {self.first_seq}"


class Share(models.Model):
    """A read-only link to a frozen snapshot of a conversation (see ``playground.sharing``).

    Only the SHA-256 of the link's token is stored: the raw token is shown to the owner once,
    so a leaked database does not leak working links. ``token_hint`` (the token's first
    characters) only helps the owner tell their links apart.
    """

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    conversation = models.ForeignKey(Conversation, on_delete=models.CASCADE, related_name="shares")
    token_hash = models.CharField(max_length=64, unique=True)
    token_hint = models.CharField(max_length=8, blank=True, default="")
    title = models.CharField(max_length=200, blank=True, default="")
    include_thinking = models.BooleanField(default=True)
    include_tools = models.BooleanField(default=True)
    snapshot = JSONTextField(
        null=True,
        blank=True,
        help_text="The frozen conversation as exact JSON text; null once revoked.",
    )
    message_count = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)
    snapshot_at = models.DateTimeField()
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-snapshot_at"]

    @property
    def is_active(self) -> bool:
        return self.revoked_at is None

    def __str__(self) -> str:
        return f"Share {self.token_hint}… of {self.conversation_id}"


class Attachment(models.Model):
    """A file a person attached (an image or a PDF), stored once per owner by its SHA-256.

    Message content refers to it (``protocol.attachments``: a source of type ``attachment``
    naming the hash); the bytes are expanded to base64 only on the way upstream, and served
    to the page and to share links from here. Owned per person, so knowing a hash (a share
    page shows it) gives no one else the file.
    """

    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="attachments"
    )
    sha256 = models.CharField(max_length=64)
    media_type = models.CharField(max_length=100, help_text="By the file's bytes, not its name.")
    size = models.PositiveIntegerField()
    data = models.BinaryField()
    created_at = models.DateTimeField(auto_now_add=True)
    # When these bytes were last uploaded (the first time, or again since: an upload of a file
    # already kept refreshes it). Unused files are pruned by it, so a file in today's draft is
    # never taken for one forgotten since its first upload (``attachments.prune``).
    uploaded_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.UniqueConstraint(fields=["owner", "sha256"], name="attachment_once_per_owner")
        ]

    def __str__(self) -> str:
        return f"{self.media_type} {self.sha256[:12]}… ({self.size} bytes)"


#: ``EvalGrid.runner`` while the grid's rows and cells go in, a chunk a transaction
#: (``grids.services.create_grid``): no query of ``EvalGrid.objects`` sees it, so a half-made grid
#: is never listed, opened or run (a failed one is deleted; the base manager still reaches it;
#: one a dead process left is deleted after ``grids.services.HALF_MADE_AFTER``, at a heartbeat).
GRID_BEING_MADE = "(being made)"


class MadeGrids(models.Manager["EvalGrid"]):
    def get_queryset(self) -> models.QuerySet[EvalGrid]:
        return super().get_queryset().exclude(runner=GRID_BEING_MADE)


class EvalGrid(models.Model):
    """An evaluation grid (``playground.grids``): a conversation's prompt run over rows of
    variable values (the test cases) against one to four columns of settings changes.

    Every cell is a conversation of its own (a fork of the source with the row's values and
    the column's changes), answered by an ordinary run: the run lifecycle saves, resumes and
    recovers it, and opening a cell is opening its conversation.
    """

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="eval_grids"
    )
    conversation = models.ForeignKey(
        Conversation, on_delete=models.CASCADE, related_name="eval_grids"
    )
    title = models.CharField(max_length=200, blank=True, default="")
    columns = JSONTextField(
        default=list, help_text="[{label, changes}]: each column's settings changes."
    )
    concurrency = models.PositiveSmallIntegerField(
        default=4, help_text="How many cells run at once."
    )
    scorers = JSONTextField(
        default=list, help_text="[{id, name, kind, column?, …}]: grids.scorers checks each."
    )
    options = JSONTextField(
        default=dict,
        blank=True,
        help_text="{tool_loop, mcp, max_turns, repeats}: how each cell runs (grids.options).",
    )
    created_at = models.DateTimeField(auto_now_add=True)
    share_token_hash = models.CharField(
        max_length=64,
        null=True,
        blank=True,
        unique=True,
        help_text="SHA-256 of the read-only link's token (the token itself is never stored).",
    )
    runner = models.CharField(
        max_length=200,
        blank=True,
        default="",
        help_text="The server process running the queue (grids.runner_lease); empty: none.",
    )
    runner_lease_expires_at = models.DateTimeField(
        null=True, blank=True, help_text="Until when the runner holds it (the database's clock)."
    )

    objects = MadeGrids()

    class Meta:
        ordering = ["-created_at"]


class EvalRow(models.Model):
    """One test case: the variables' values (``{name: text}``)."""

    grid = models.ForeignKey(EvalGrid, on_delete=models.CASCADE, related_name="rows")
    position = models.PositiveIntegerField()
    values = JSONTextField(default=dict, blank=True)

    class Meta:
        ordering = ["position"]
        constraints = [
            models.UniqueConstraint(fields=["grid", "position"], name="eval_row_once_per_place")
        ]


class EvalCell(models.Model):
    """A row under a column: its conversation (made when the cell first runs) and the
    person's rating. Its status, timings and usage are its conversation's last run's."""

    class Rating(models.TextChoices):
        GOOD = "good"
        BAD = "bad"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    row = models.ForeignKey(EvalRow, on_delete=models.CASCADE, related_name="cells")
    column = models.PositiveSmallIntegerField()
    conversation = models.ForeignKey(
        Conversation, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    rating = models.CharField(max_length=4, choices=Rating.choices, blank=True, default="")
    note = models.TextField(blank=True, default="")
    rated_run = models.ForeignKey(
        "Run",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        help_text="The run whose answer the rating and note are about: shown only while it is"
        " the cell's last (a re-run's answer is unrated).",
    )
    queued_at = models.DateTimeField(
        null=True,
        blank=True,
        help_text="When a run of this cell was asked for; cleared by the start write of the run"
        " that answers it (grids.queue). Recovery runs the cells still queued (grids.launch).",
    )
    start_error = models.CharField(
        max_length=300, blank=True, default="", help_text="Why its last run could not start."
    )
    imported = JSONTextField(
        null=True,
        blank=True,
        help_text="A result a bundle carried (grids.imported), not made a conversation yet: read"
        " as the cell's last run; opening or re-running the cell makes the conversation of it.",
    )
    scored_run = models.ForeignKey(
        "Run",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        help_text="The run whose answer ``scores`` judge: shown only while it is the cell's last.",
    )
    scores = JSONTextField(
        default=list, blank=True, help_text="[{scorer, name, kind, passed, score, reason, …}]"
    )
    passed = models.BooleanField(
        null=True, blank=True, help_text="Completed and passed every scorer (None: not scored)."
    )
    repeats = JSONTextField(
        default=dict,
        blank=True,
        help_text="{asked, done: [{runs, end, turns, calls, passed, …}]}: the last run request's"
        " repeats, each with its tool loop's trajectory (grids.repeats).",
    )

    class Meta:
        ordering = ["row__position", "column"]
        constraints = [
            models.UniqueConstraint(fields=["row", "column"], name="eval_cell_once_per_place")
        ]


class EvalExperiment(models.Model):
    """One run of a grid (``grids.experiments``), kept as it ran: what ran (the prompt, each
    column's resolved settings, the rows, the scorers) frozen when it was asked for, and every
    cell's answer, verdict, scores, cost, tokens and timing frozen once it ended. Later edits of
    the grid, its scorers or a re-run change neither."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    grid = models.ForeignKey(EvalGrid, on_delete=models.CASCADE, related_name="experiments")
    number = models.PositiveIntegerField(help_text="1, 2, … within its grid.")
    name = models.CharField(max_length=200, blank=True, default="")
    started_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(
        null=True, blank=True, help_text="When its results were frozen; null while it runs."
    )
    asked = JSONTextField(
        default=list, help_text="[{row, column, failed, cells}]: each run request it took."
    )
    ran = JSONTextField(
        default=dict, help_text="{prompt, columns, rows, scorers, concurrency}: what it ran."
    )
    results = JSONTextField(
        null=True, blank=True, help_text="{cells, summaries, totals}: frozen once it ended."
    )
    share_token_hash = models.CharField(
        max_length=64,
        null=True,
        blank=True,
        unique=True,
        help_text="SHA-256 of the read-only link's token (the token itself is never stored).",
    )

    class Meta:
        ordering = ["-number"]
        constraints = [
            models.UniqueConstraint(fields=["grid", "number"], name="eval_experiment_number_once")
        ]


class McpCall(models.Model):
    """One ``tools/call`` run on an MCP server for a conversation's tool call: its JSON-RPC
    exchanges (requests, responses, notifications, each with its +ms), kept for the inspector."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    conversation = models.ForeignKey(
        Conversation, on_delete=models.CASCADE, related_name="mcp_calls"
    )
    # The tool call it ran for; the run that made it and the turn that answered it are found
    # by this id when listed (``mcp.records``), so the call's own path makes no lookup.
    tool_use_id = models.CharField(max_length=200)
    server = models.CharField(max_length=100)
    tool = models.CharField(max_length=200, help_text="The tool's MCP name on its server.")
    # "result" (is_error or not), "error" (timeout, crash, too large…: ``error_code``) or
    # "cancelled" (by the person, or the page gone).
    outcome = models.CharField(max_length=20)
    error_code = models.CharField(max_length=100, blank=True, default="")
    elapsed_ms = models.FloatField(null=True, blank=True)
    exchanges = JSONTextField(default=list, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created_at"]
        indexes = [models.Index(fields=["conversation", "created_at"])]

    def __str__(self) -> str:
        return f"{self.server}/{self.tool} for {self.tool_use_id}"


class McpUserServer(models.Model):
    """A Streamable-HTTP MCP server a person added (login mode): theirs alone. Its URL, header
    values, OAuth client registration and tokens are kept sealed (``mcp.vault``: Fernet over a key
    derived from ``SECRET_KEY``); no column holds one in the clear."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="mcp_servers"
    )
    name = models.CharField(max_length=40)
    # "headers" (static headers, perhaps none) or "oauth" (OAuth 2.1, signed in from the page).
    auth = models.CharField(max_length=10, default="headers")
    url_sealed = models.TextField()
    headers_sealed = models.TextField(blank=True, default="")
    oauth_client_sealed = models.TextField(blank=True, default="")
    oauth_tokens_sealed = models.TextField(blank=True, default="")
    # When the access token expires (epoch seconds; None: it said no expiry, or none is kept).
    oauth_expires_at = models.FloatField(null=True, blank=True)
    # What the sign-in discovered: the authorization server's metadata (its token endpoint, for a
    # refresh in a later session), the protected resource's, and our redirect URI; sealed too,
    # since it names the server's URL.
    oauth_discovery_sealed = models.TextField(blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["created_at"]
        constraints = [
            models.UniqueConstraint(fields=["owner", "name"], name="mcp_user_server_name_once")
        ]

    def __str__(self) -> str:
        return f"{self.name} (MCP server of user {self.owner_id})"


class Prompt(models.Model):
    """A named prompt in the library (``playground.prompts``): its versions are immutable
    snapshots of a prompt's definition, its labels point at one version each and move."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="prompts"
    )
    # What applications fetch it by (GET /api/prompts/<name>): unique per owner, URL-safe.
    name = models.CharField(max_length=100)
    description = models.TextField(blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    share_token_hash = models.CharField(
        max_length=64,
        null=True,
        blank=True,
        unique=True,
        help_text="SHA-256 of the read-only link's token (the token itself is never stored).",
    )

    class Meta:
        ordering = ["-updated_at"]
        constraints = [
            models.UniqueConstraint(fields=["owner", "name"], name="prompt_name_once_per_owner")
        ]

    def __str__(self) -> str:
        return self.name


class PromptVersion(models.Model):
    """One saved state of a prompt, never changed once written: a rollback or an import adds
    a version. ``definition`` is the whole prompt (``prompts.definition``); ``digest`` its
    SHA-256, which tells two equal versions apart from two that differ without reading them."""

    prompt = models.ForeignKey(Prompt, on_delete=models.CASCADE, related_name="versions")
    number = models.PositiveIntegerField()
    definition = JSONTextField()
    digest = models.CharField(max_length=64)
    message = models.TextField(blank=True, default="")
    # How it came to be, in words ("rolled back to v3", "from a conversation", "imported").
    origin = models.CharField(max_length=200, blank=True, default="")
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    # The author's name as it was (an import keeps the file's; a deleted user's stays).
    author_name = models.CharField(max_length=150, blank=True, default="")
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["prompt", "number"]
        constraints = [
            models.UniqueConstraint(fields=["prompt", "number"], name="prompt_version_once")
        ]

    def __str__(self) -> str:
        return f"{self.prompt_id} v{self.number}"


class PromptLabel(models.Model):
    """A name (``production``, ``staging``…) pointing at one version of a prompt; it moves,
    and each move is kept as a ``PromptLabelMove``."""

    prompt = models.ForeignKey(Prompt, on_delete=models.CASCADE, related_name="labels")
    name = models.CharField(max_length=64)
    version = models.ForeignKey(PromptVersion, on_delete=models.CASCADE, related_name="labels")
    moved_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["name"]
        constraints = [models.UniqueConstraint(fields=["prompt", "name"], name="prompt_label_once")]


class PromptLabelMove(models.Model):
    """A label's history: who pointed it at which version (``None``: removed), and when."""

    prompt = models.ForeignKey(Prompt, on_delete=models.CASCADE, related_name="label_moves")
    label = models.CharField(max_length=64)
    version = models.ForeignKey(
        PromptVersion, null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )
    previous = models.ForeignKey(
        PromptVersion, null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )
    moved_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    moved_by_name = models.CharField(max_length=150, blank=True, default="")
    moved_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-moved_at", "-id"]
        indexes = [models.Index(fields=["prompt", "label"], name="prompt_label_history")]


class PromptUse(models.Model):
    """A conversation started from a prompt version: which one, so the page can say when the
    conversation has drifted from it."""

    conversation = models.OneToOneField(
        Conversation, on_delete=models.CASCADE, primary_key=True, related_name="prompt_use"
    )
    version = models.ForeignKey(PromptVersion, on_delete=models.CASCADE, related_name="uses")
    created_at = models.DateTimeField(auto_now_add=True)


# A team's controls (tokens, usage, budgets, audit): their own module, registered here.
from playground.team_models import ApiToken, AuditEvent, Budget, UsageRecord  # noqa: E402, F401
