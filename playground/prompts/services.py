"""Every change of a prompt: create, save a version, move or remove a label, roll back,
delete, share; and finding one (``resolve``: a label or a number to its version).

Rules:
- Nothing outside ``prompts/`` writes ``Prompt``, ``PromptVersion``, ``PromptLabel``,
  ``PromptLabelMove`` or ``PromptUse``; inside it, only this module, ``files`` (an import
  made as the file has it) and ``linking`` (``PromptUse``). A version is never changed or
  deleted once written: a rollback, an accepted proposal or an import adds one, numbered
  after the newest.
- A new version's number is taken under a lock of the prompt's row (``select_for_update``), so
  two saves at once get two numbers, never one.
- Every save and every label move keeps who made it and when (``PromptVersion.author``,
  ``PromptLabelMove``), by name as well, so the history reads the same after a user is gone.
- A prompt is found only through its owner: anyone else's is "not found", by id and by name.
- Synchronous ORM code.
"""

from __future__ import annotations

import re
import secrets
from dataclasses import dataclass
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db import IntegrityError, transaction
from django.db.models import QuerySet
from django.utils import timezone

from playground.audit import log as audit
from playground.models import Prompt, PromptLabel, PromptLabelMove, PromptVersion
from playground.prompts.definition import check_definition, definition_digest
from playground.protocol.errors import Conflict, NotFound, RequestValidationError

__all__ = [
    "LATEST",
    "NAME_PATTERN",
    "create_prompt",
    "delete_prompt",
    "get_prompt",
    "list_prompts",
    "move_label",
    "remove_label",
    "resolve",
    "roll_back",
    "save_version",
    "share_prompt",
    "shared_prompt",
    "unshare_prompt",
]

#: A prompt's name: what an application fetches it by, so it goes in a URL as it is.
NAME_PATTERN = "[A-Za-z0-9][A-Za-z0-9._-]{0,99}"
_NAME = re.compile(NAME_PATTERN)
_LABEL = re.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
#: Not a label anyone sets: it always means the newest version.
LATEST = "latest"
MESSAGE_MAX = 2000
DESCRIPTION_MAX = 2000


def _who(user: AbstractBaseUser | None) -> str:
    return "" if user is None else str(user.get_username())


#: Names the library's own URLs take (``/api/prompts/import/``): no prompt may be called so.
RESERVED_NAMES = frozenset({"import"})


def check_name(name: Any, *, field: str = "name") -> str:
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        raise RequestValidationError(
            "a prompt's name is 1 to 100 letters, digits, '.', '_' or '-', starting with a "
            "letter or digit (it goes in the URL applications fetch it by)",
            field=field,
        )
    if name in RESERVED_NAMES:
        raise RequestValidationError(
            f"{name!r} is taken by the library's own address; choose another name", field=field
        )
    return name


def check_label(label: Any, *, field: str = "label") -> str:
    if not isinstance(label, str) or not _LABEL.fullmatch(label):
        raise RequestValidationError(
            "a label is 1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit",
            field=field,
        )
    if label == LATEST:
        raise RequestValidationError(
            f"{LATEST!r} always means the newest version; choose another label", field=field
        )
    return label


def _check_text(text: Any, *, field: str, limit: int) -> str:
    if not isinstance(text, str):
        raise RequestValidationError("expected a string", field=field)
    if len(text) > limit:
        raise RequestValidationError(f"at most {limit} characters, got {len(text)}", field=field)
    return text.strip()


# --- Reading -----------------------------------------------------------------------------------


def list_prompts(*, owner: AbstractBaseUser) -> QuerySet[Prompt]:
    return Prompt.objects.filter(owner=owner).order_by("-updated_at")


def get_prompt(*, owner: AbstractBaseUser | None, name: str) -> Prompt:
    """The owner's prompt called ``name``; :class:`NotFound` otherwise (anyone else's too)."""
    if owner is None or not isinstance(name, str):
        raise NotFound("no such prompt")
    try:
        return Prompt.objects.get(owner=owner, name=name)
    except Prompt.DoesNotExist:
        raise NotFound(f"no prompt called {name!r}") from None


def resolve(prompt: Prompt, reference: str | int | None = None) -> PromptVersion:
    """The version ``reference`` names: a number (``3``, ``"3"``, ``"v3"``), a label, or
    ``latest`` (also ``None``): what a compare or grid column, an experiment and the serving
    endpoint each turn a label into. :class:`NotFound` naming what exists otherwise."""
    if reference is None or reference == LATEST:
        found = prompt.versions.order_by("-number").first()
        if found is None:
            raise NotFound(f"the prompt {prompt.name!r} has no version yet")
        return found
    text = str(reference)
    number = text[1:] if text[:1] in ("v", "V") and text[1:].isdigit() else text
    if number.isdigit():
        try:
            return prompt.versions.get(number=int(number))
        except PromptVersion.DoesNotExist:
            newest = prompt.versions.order_by("-number").values_list("number", flat=True).first()
            raise NotFound(
                f"no version {number} of {prompt.name!r} (versions: 1 to {newest or 0})"
            ) from None
    label = PromptLabel.objects.filter(prompt=prompt, name=text).select_related("version").first()
    if label is None:
        names = list(prompt.labels.values_list("name", flat=True))
        listed = ", ".join([*names, LATEST])
        raise NotFound(f"no label {text!r} on {prompt.name!r} (labels: {listed})")
    return label.version


# --- Writing -----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Saved:
    """A save's outcome: the version, and whether it is new (``False``: it equals the newest,
    and nothing was written)."""

    version: PromptVersion
    created: bool


def create_prompt(
    *,
    owner: AbstractBaseUser,
    name: str,
    definition: Any,
    message: str = "",
    description: str = "",
    origin: str = "",
) -> PromptVersion:
    """A new prompt with its first version."""
    checked_name = check_name(name)
    checked = check_definition(definition)
    text = _check_text(description, field="description", limit=DESCRIPTION_MAX)
    try:
        with transaction.atomic():
            prompt = Prompt.objects.create(owner=owner, name=checked_name, description=text)
            return _add_version(
                prompt, checked, author=owner, message=message, origin=origin or "created"
            )
    except IntegrityError:
        raise Conflict(
            f"you already have a prompt called {checked_name!r}: save a version of it instead"
        ) from None


def _add_version(
    prompt: Prompt,
    definition: dict[str, Any],
    *,
    author: AbstractBaseUser | None,
    message: str,
    origin: str,
    author_name: str | None = None,
    created_at: Any = None,
) -> PromptVersion:
    """Inside a transaction holding the prompt: the next version."""
    newest = prompt.versions.order_by("-number").values_list("number", flat=True).first()
    version = PromptVersion.objects.create(
        prompt=prompt,
        number=(newest or 0) + 1,
        definition=definition,
        digest=definition_digest(definition),
        message=_check_text(message, field="message", limit=MESSAGE_MAX),
        origin=origin[:200],
        author=author,
        author_name=author_name if author_name is not None else _who(author),
        created_at=created_at or timezone.now(),
    )
    Prompt.objects.filter(pk=prompt.pk).update(updated_at=timezone.now())
    _audit("prompt.version_saved", prompt=prompt, actor=author, number=version.number)
    return version


def _locked(prompt: Prompt) -> Prompt:
    return Prompt.objects.select_for_update().get(pk=prompt.pk)


def save_version(
    *,
    prompt: Prompt,
    definition: Any,
    author: AbstractBaseUser | None,
    message: str = "",
    origin: str = "saved",
    if_changed: bool = False,
) -> Saved:
    """The next version of ``prompt``. ``if_changed``: when it equals the newest version,
    nothing is written and the newest is returned (``created`` False)."""
    checked = check_definition(definition)
    with transaction.atomic():
        locked = _locked(prompt)
        if if_changed:
            newest = locked.versions.order_by("-number").first()
            if newest is not None and newest.digest == definition_digest(checked):
                return Saved(version=newest, created=False)
        version = _add_version(locked, checked, author=author, message=message, origin=origin)
    return Saved(version=version, created=True)


def roll_back(
    *, prompt: Prompt, to: PromptVersion, author: AbstractBaseUser | None, message: str = ""
) -> PromptVersion:
    """A new version equal to ``to`` (the versions after it stay, as history does)."""
    with transaction.atomic():
        locked = _locked(prompt)
        return _add_version(
            locked,
            to.definition,
            author=author,
            message=message or f"Roll back to v{to.number}",
            origin=f"rolled back to v{to.number}",
        )


def move_label(
    *, prompt: Prompt, label: str, version: PromptVersion, actor: AbstractBaseUser | None
) -> PromptLabel:
    """Point ``label`` at ``version`` (made on its first use); the move is kept."""
    name = check_label(label)
    if version.prompt_id != prompt.pk:
        raise NotFound("no such version of this prompt")
    now = timezone.now()
    with transaction.atomic():
        _locked(prompt)
        current = PromptLabel.objects.filter(prompt=prompt, name=name).first()
        previous = current.version if current is not None else None
        if current is None:
            current = PromptLabel.objects.create(
                prompt=prompt, name=name, version=version, moved_at=now
            )
        elif current.version_id != version.pk:
            current.version = version
            current.moved_at = now
            current.save(update_fields=["version", "moved_at"])
        else:
            return current  # already there: no move to keep
        PromptLabelMove.objects.create(
            prompt=prompt,
            label=name,
            version=version,
            previous=previous,
            moved_by=actor,
            moved_by_name=_who(actor),
            moved_at=now,
        )
        Prompt.objects.filter(pk=prompt.pk).update(updated_at=now)
    _audit("prompt.label_moved", prompt=prompt, actor=actor, label=name, number=version.number)
    return current


def remove_label(*, prompt: Prompt, label: str, actor: AbstractBaseUser | None) -> None:
    """The label no longer points anywhere (the removal is kept in its history)."""
    with transaction.atomic():
        _locked(prompt)
        current = PromptLabel.objects.filter(prompt=prompt, name=label).first()
        if current is None:
            raise NotFound(f"no label {label!r} on {prompt.name!r}")
        PromptLabelMove.objects.create(
            prompt=prompt,
            label=label,
            version=None,
            previous=current.version,
            moved_by=actor,
            moved_by_name=_who(actor),
        )
        current.delete()
    _audit("prompt.label_removed", prompt=prompt, actor=actor, label=label)


def update_description(*, prompt: Prompt, description: Any) -> Prompt:
    text = _check_text(description, field="description", limit=DESCRIPTION_MAX)
    Prompt.objects.filter(pk=prompt.pk).update(description=text, updated_at=timezone.now())
    prompt.refresh_from_db()
    return prompt


def delete_prompt(*, prompt: Prompt) -> None:
    """The prompt with every version, label and history (its conversations stay)."""
    prompt.delete()


# --- Sharing -----------------------------------------------------------------------------------


def share_prompt(*, prompt: Prompt) -> str:
    """A read-only link's token (given once; only its SHA-256 is kept). A new link replaces
    the old one, as a grid's does."""
    from playground.sharing import hash_token

    token = secrets.token_urlsafe(32)
    Prompt.objects.filter(pk=prompt.pk).update(share_token_hash=hash_token(token))
    _audit("prompt_share.created", prompt=prompt, actor=None)
    return token


def unshare_prompt(*, prompt: Prompt) -> None:
    """The link stops working at once."""
    if Prompt.objects.filter(pk=prompt.pk, share_token_hash__isnull=False).update(
        share_token_hash=None
    ):
        _audit("prompt_share.revoked", prompt=prompt, actor=None)


def shared_prompt(token: str) -> Prompt:
    """The prompt a read-only link opens; :class:`NotFound` for an unknown or revoked token."""
    from playground.sharing import hash_token

    if not isinstance(token, str) or not token or len(token) > 200:
        raise NotFound("no such prompt")
    try:
        return Prompt.objects.get(share_token_hash=hash_token(token))
    except Prompt.DoesNotExist:
        raise NotFound("no such prompt") from None


# --- The audit log's seam ----------------------------------------------------------------------


def _audit(action: str, *, prompt: Prompt, actor: AbstractBaseUser | None, **details: Any) -> None:
    """One line of the audit log per change of the library (the prompt's own history, each
    version's author and every label move, is kept in its tables too). Names and numbers
    only: never a prompt's text."""
    audit.record(
        action,
        actor=actor if actor is not None else prompt.owner_id,
        target=str(prompt.pk),
        details={"name": prompt.name, **details},
    )
