"""A profile's credential at send time: its static key, or a token refreshed before it expires.

Rule: a token is read from a configured command's output (``PLAYGROUND_UPSTREAM_<NAME>_
TOKEN_COMMAND``, e.g. ``gcloud auth print-access-token``) or a file's text (``_TOKEN_FILE``,
written by a sidecar), never from code; it is kept until :data:`REFRESH_MARGIN` seconds before
it expires, and read again then (one reader at a time: concurrent sends wait for the same
read). The text is a bare token, or JSON that says when it expires (Google's token endpoint:
``access_token`` and ``expires_in``; ``gcloud ... --format=json``: ``token`` and ``expiry``);
a bare token, whose expiry is not said, is read again every :data:`BARE_TOKEN_SECONDS`. A file
that changed is read again at once. A failure is :class:`UpstreamCredentialError`, whose
message names the command or file and never the token. A token the upstream refused (401) is
read again at once (:meth:`Credential.renew`), and the caller retries once with it.

One credential per profile per event loop (:func:`credential_of`), so a stream and the side
requests (model list, token count, chat render) send the same token and share its reads.
"""

from __future__ import annotations

import asyncio
import json
import os
import shlex
import time
import weakref
from collections.abc import Callable
from datetime import datetime
from typing import Protocol

from playground.protocol.errors import UpstreamCredentialError

__all__ = [
    "BARE_TOKEN_SECONDS",
    "REFRESH_MARGIN",
    "Credential",
    "RefreshedToken",
    "StaticKey",
    "credential_for",
    "credential_of",
    "read_token",
]

#: Seconds before a token's expiry at which it is read again (google-auth refreshes 3 min 45 s
#: before; a long stream that starts just before the expiry keeps its connection anyway).
REFRESH_MARGIN = 300.0
#: How long a bare token (no expiry said) is used before it is read again.
BARE_TOKEN_SECONDS = 300.0
#: The longest a token command may take.
COMMAND_TIMEOUT = 30.0


class Credential(Protocol):
    async def get(self) -> str:
        """The credential to send now."""
        ...

    def renew(self) -> bool:
        """Forget the credential the upstream refused, so the next :meth:`get` reads it
        again; False when there is nothing to read again (a static key)."""
        ...


class StaticKey:
    """The profile's configured key, the same for every request."""

    def __init__(self, key: str) -> None:
        self._key = key

    async def get(self) -> str:
        return self._key

    def renew(self) -> bool:
        return False


def read_token(text: str, *, now: float) -> tuple[str, float]:
    """The token a command or file gave, and for how many seconds from ``now`` (a wall-clock
    time) it holds. ValueError when the text holds none."""
    text = text.strip()
    if text.startswith("{"):
        try:
            value = json.loads(text)
        except ValueError as exc:
            raise ValueError("its JSON does not read") from exc
        token = value.get("access_token") or value.get("token") if isinstance(value, dict) else None
        if not isinstance(token, str) or not token:
            raise ValueError("its JSON has no access_token or token")
        expires_in = value.get("expires_in")
        if isinstance(expires_in, int | float) and not isinstance(expires_in, bool):
            return token, float(expires_in)
        expiry = value.get("expiry") or value.get("expire_time") or value.get("token_expiry")
        if isinstance(expiry, str):
            try:
                at = datetime.fromisoformat(expiry.replace("Z", "+00:00"))
            except ValueError as exc:
                raise ValueError(f"its expiry {expiry!r} is no ISO 8601 time") from exc
            if at.tzinfo is not None:
                return token, at.timestamp() - now
        return token, BARE_TOKEN_SECONDS + REFRESH_MARGIN
    if not text or any(character.isspace() for character in text):
        raise ValueError("it is not one token")
    return text, BARE_TOKEN_SECONDS + REFRESH_MARGIN


class RefreshedToken:
    """A token from a command or a file, read again before it expires (see the module)."""

    def __init__(
        self,
        *,
        command: str = "",
        file: str = "",
        clock: Callable[[], float] = time.monotonic,
        wall: Callable[[], float] = time.time,
    ) -> None:
        if bool(command) == bool(file):
            raise ValueError("a refreshed token comes from a command or a file, one of them")
        self._argv = shlex.split(command)
        self._file = file
        self._clock = clock
        self._wall = wall
        self._lock = asyncio.Lock()
        self._token = ""
        self._fresh_until = 0.0
        self._file_stamp: int | None = None
        #: How many times the token was read (the tests' window on refreshes).
        self.reads = 0

    @property
    def source(self) -> str:
        """What the token is read from, for a message: the command's program or the file."""
        return (
            f"the token command {self._argv[0]!r}"
            if self._argv
            else f"the token file {self._file!r}"
        )

    async def get(self) -> str:
        async with self._lock:
            if self._token and self._clock() < self._fresh_until and not self._file_changed():
                return self._token
            text = await (self._run() if self._argv else self._read_file())
            try:
                token, lifetime = read_token(text, now=self._wall())
            except ValueError as exc:
                raise UpstreamCredentialError(f"{self.source} gave no token: {exc}") from None
            self.reads += 1
            self._token = token
            # A token that is already within the margin is used once, then read again.
            self._fresh_until = self._clock() + max(0.0, lifetime - REFRESH_MARGIN)
            return token

    def renew(self) -> bool:
        self._fresh_until = 0.0
        return True

    def _file_changed(self) -> bool:
        return bool(self._file) and self._stamp() != self._file_stamp

    def _stamp(self) -> int | None:
        try:
            return os.stat(self._file).st_mtime_ns
        except OSError:
            return None

    async def _read_file(self) -> str:
        self._file_stamp = self._stamp()
        try:
            return await asyncio.to_thread(_read_text, self._file)
        except OSError as exc:
            raise UpstreamCredentialError(
                f"{self.source} could not be read ({type(exc).__name__})"
            ) from None

    async def _run(self) -> str:
        try:
            process = await asyncio.create_subprocess_exec(
                *self._argv,
                stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
            )
        except OSError as exc:
            raise UpstreamCredentialError(
                f"{self.source} could not start ({type(exc).__name__})"
            ) from None
        try:
            # Not wait_for: Python 3.11's returns output that came in the same turn as a cancel
            # and drops the cancel, and a stopped run would go on to send with the token.
            async with asyncio.timeout(COMMAND_TIMEOUT):
                out, _ = await process.communicate()
        except TimeoutError:
            process.kill()
            await process.wait()
            raise UpstreamCredentialError(
                f"{self.source} gave no token in {COMMAND_TIMEOUT:g} s"
            ) from None
        finally:
            if process.returncode is None:  # cancelled mid-read: no orphan left behind
                process.kill()
                await asyncio.shield(process.wait())
        if process.returncode != 0:
            raise UpstreamCredentialError(f"{self.source} exited with {process.returncode}")
        return out.decode("utf-8", "replace")


def _read_text(path: str) -> str:
    with open(path, encoding="utf-8") as file:
        return file.read()


def credential_for(*, api_key: str, token_command: str, token_file: str) -> Credential:
    """A profile's credential: its refreshed token when it names a source, else its key."""
    if token_command or token_file:
        return RefreshedToken(command=token_command, file=token_file)
    return StaticKey(api_key)


class _Sourced(Protocol):
    """A profile, as far as its credential goes."""

    @property
    def name(self) -> str: ...
    @property
    def api_key(self) -> str: ...
    @property
    def token_command(self) -> str: ...
    @property
    def token_file(self) -> str: ...


# A RefreshedToken's lock belongs to the loop it runs on, so the registry is per loop (as the
# clients' is); a loop that is gone takes its credentials with it.
_shared: weakref.WeakKeyDictionary[
    asyncio.AbstractEventLoop, dict[tuple[str, str, str, str], Credential]
] = weakref.WeakKeyDictionary()


def credential_of(profile: _Sourced) -> Credential:
    """The profile's credential on the running loop, shared by every request it makes."""
    key = (profile.name, profile.api_key, profile.token_command, profile.token_file)
    held = _shared.setdefault(asyncio.get_running_loop(), {})
    credential = held.get(key)
    if credential is None:
        credential = held[key] = credential_for(
            api_key=profile.api_key,
            token_command=profile.token_command,
            token_file=profile.token_file,
        )
    return credential
