"""A prompt as a file, YAML or JSON: all its versions or one, and the same file read back.

Rules:
- One document shape for both formats (:func:`prompt_document`): the name, the description,
  the labels (``{label: number}``) and each version's number, message, origin, author, time,
  digest and definition. YAML is written by PyYAML's safe dumper with the keys in that order
  (multi-line text as ``|`` blocks); JSON by the house's encoder, indented. Either read back
  gives the same document, value for value.
- Reading: at most ``PLAYGROUND_MAX_IMPORT_BYTES`` (as every import), UTF-8; YAML through
  ``yaml_file`` (libyaml, aliases refused, its values and depth bounded); the value then goes
  through the JSON doors' own check (depth, lone surrogates), and each definition
  through ``check_definition``, refusals naming the place (``versions[2].definition.tools``).
- An import never overwrites: into a new name it makes the prompt as the file has it (numbers,
  authors, times, labels); into a prompt the person already has, each version not already
  there (by digest) is added after the newest, and no label moves; so is a prompt of that name
  made by another request while this one imported. All or nothing. The audit log keeps who
  imported (``prompt.imported``; each added version's own ``prompt.version_saved``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import yaml  # type: ignore[import-untyped]  # no stubs installed (types-PyYAML)
from django.contrib.auth.models import AbstractBaseUser
from django.db import IntegrityError, transaction
from django.utils.dateparse import parse_datetime

from playground.models import Prompt, PromptLabel, PromptLabelMove, PromptVersion
from playground.prompts.definition import check_definition, definition_digest
from playground.prompts.services import (
    MESSAGE_MAX,
    _add_version,
    _audit,
    _locked,
    check_label,
    check_name,
)
from playground.prompts.yaml_file import load_yaml
from playground.protocol.errors import Conflict, PayloadTooLarge, RequestValidationError
from playground.protocol.json_input import check_json_value, read_json
from playground.protocol.json_text import dumps

__all__ = [
    "FORMAT",
    "Imported",
    "document_text",
    "import_document",
    "prompt_document",
    "read_document",
]

FORMAT = "messages-playground/prompt"
FORMAT_VERSION = 1
#: A version number the database holds on every backend, with room for the saves after it.
NUMBER_MAX = 1_000_000


def _version_entry(version: PromptVersion, *, public: bool) -> dict[str, Any]:
    return {
        "number": version.number,
        "message": version.message,
        "origin": version.origin,
        "author": "" if public else version.author_name,
        "created_at": version.created_at.isoformat(),
        "digest": version.digest,
        "definition": version.definition,
    }


def prompt_document(
    prompt: Prompt, *, number: int | None = None, public: bool = False
) -> dict[str, Any]:
    """The file's document: every version, or version ``number`` alone; ``public`` (a
    read-only link's export): no author's name."""
    versions = prompt.versions.order_by("number")
    if number is not None:
        versions = versions.filter(number=number)
    kept = list(versions)
    numbers = {version.number for version in kept}
    labels = {
        name: at
        for name, at in prompt.labels.order_by("name").values_list("name", "version__number")
        if at in numbers
    }
    return {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "name": prompt.name,
        "description": prompt.description,
        "labels": labels,
        "versions": [_version_entry(version, public=public) for version in kept],
    }


class _Dumper(yaml.SafeDumper):
    """Multi-line text as a ``|`` block, which a person reads and diffs line by line."""


#: Line breaks to YAML besides ``\n`` (NEL, the line and paragraph separators): written as
#: they are, in a block or a quoted scalar, a reader folds them into ``\n`` or a space.
_OTHER_BREAKS = frozenset("\x85\u2028\u2029")


def _text(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    if _OTHER_BREAKS.intersection(value):
        style: str | None = '"'  # escaped (\N, \L, \P), so they read back as they were
    else:
        style = "|" if "\n" in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_Dumper.add_representer(str, _text)


def document_text(document: Mapping[str, Any], *, kind: str) -> str:
    """``kind``: ``yaml`` or ``json``."""
    if kind == "json":
        return dumps(dict(document), indent=True) + "\n"
    return yaml.dump(dict(document), Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=100)


# --- Reading -----------------------------------------------------------------------------------


def read_document(raw: str | bytes, *, limit: int) -> dict[str, Any]:
    """A file's text as a document (JSON when it starts with ``{``, YAML otherwise)."""
    size = len(raw.encode("utf-8")) if isinstance(raw, str) else len(raw)
    if size > limit:
        raise PayloadTooLarge(f"the file is {size} bytes, over the limit of {limit}")
    try:
        text = raw.decode("utf-8") if isinstance(raw, bytes) else raw
    except UnicodeDecodeError:
        raise RequestValidationError("the file is not UTF-8 text", field="file") from None
    if not text.strip():
        raise RequestValidationError("empty: paste or upload a prompt file", field="file")
    if text.lstrip().startswith("{"):
        value = read_json(text, field="file")
    else:
        value = load_yaml(text)
        check_json_value(value, field="file")
    if not isinstance(value, dict) or value.get("format") != FORMAT:
        raise RequestValidationError(
            f"not a prompt file: expected format: {FORMAT} (as the export writes it)",
            field="format",
        )
    return value


@dataclass(frozen=True, slots=True)
class Imported:
    """What an import did: the prompt, the versions it added, those already there, and the
    labels it set."""

    prompt: Prompt
    added: list[int]
    already: list[int]
    labels: dict[str, int]


def _entries(document: Mapping[str, Any]) -> list[dict[str, Any]]:
    versions = document.get("versions")
    if not isinstance(versions, list) or not versions:
        raise RequestValidationError("expected a list of one or more versions", field="versions")
    checked = []
    seen: set[int] = set()
    for index, entry in enumerate(versions):
        where = f"versions[{index}]"
        if not isinstance(entry, dict):
            raise RequestValidationError("expected a version object", field=where)
        number = entry.get("number")
        if isinstance(number, bool) or not isinstance(number, int) or not 1 <= number <= NUMBER_MAX:
            raise RequestValidationError(
                f"expected a number from 1 to {NUMBER_MAX}", field=f"{where}.number"
            )
        if number in seen:
            raise RequestValidationError(f"v{number} is in the file twice", field=f"{where}.number")
        seen.add(number)
        texts = {key: entry.get(key, "") for key in ("message", "origin", "author", "created_at")}
        for key, text in texts.items():
            if not isinstance(text, str):
                raise RequestValidationError("expected a string", field=f"{where}.{key}")
        if len(texts["message"]) > MESSAGE_MAX:
            raise RequestValidationError(
                f"at most {MESSAGE_MAX} characters, got {len(texts['message'])}",
                field=f"{where}.message",
            )
        created = parse_datetime(texts["created_at"]) if texts["created_at"] else None
        if texts["created_at"] and created is None:
            raise RequestValidationError("expected an ISO 8601 time", field=f"{where}.created_at")
        definition = check_definition(entry.get("definition"), where=f"{where}.definition")
        checked.append({**texts, "number": number, "created": created, "definition": definition})
    return sorted(checked, key=lambda entry: entry["number"])


def _labels(document: Mapping[str, Any], numbers: set[int]) -> dict[str, int]:
    labels = document.get("labels") or {}
    if not isinstance(labels, dict):
        raise RequestValidationError("expected {label: version number}", field="labels")
    for label, number in labels.items():
        check_label(label, field=f"labels.{label}")
        if isinstance(number, bool) or not isinstance(number, int):
            raise RequestValidationError("expected a version number", field=f"labels.{label}")
        if number not in numbers:
            raise RequestValidationError(
                f"points at v{number}, which the file does not hold", field=f"labels.{label}"
            )
    return dict(labels)


def import_document(
    *, owner: AbstractBaseUser, document: Mapping[str, Any], name: str | None = None
) -> Imported:
    """Import ``document`` as ``name`` (the file's own name by default); see the module rules."""
    target = check_name(name if name else document.get("name"), field="name")
    description = document.get("description", "")
    if not isinstance(description, str):
        raise RequestValidationError("expected a string", field="description")
    entries = _entries(document)
    labels = _labels(document, {entry["number"] for entry in entries})
    with transaction.atomic():
        prompt = Prompt.objects.filter(owner=owner, name=target).first()
        if prompt is None:
            try:
                with transaction.atomic():  # a savepoint: the name may be taken meanwhile
                    return _as_new(owner, target, description, entries, labels)
            except IntegrityError:
                # Made by another request after the look above (PostgreSQL held this insert
                # on the name's index until that one committed): add to it, as to any prompt.
                prompt = Prompt.objects.get(owner=owner, name=target)
        return _added(owner, _locked(prompt), entries)


def _as_new(
    owner: AbstractBaseUser,
    name: str,
    description: str,
    entries: list[dict[str, Any]],
    labels: dict[str, int],
) -> Imported:
    prompt = Prompt.objects.create(owner=owner, name=name, description=description)
    made = {}
    for entry in entries:
        made[entry["number"]] = PromptVersion.objects.create(
            prompt=prompt,
            number=entry["number"],
            definition=entry["definition"],
            digest=definition_digest(entry["definition"]),
            message=entry["message"],
            origin=entry["origin"][:200],
            author=None,
            author_name=entry["author"][:150],
            **({"created_at": entry["created"]} if entry["created"] else {}),
        )
    for label, number in labels.items():
        PromptLabel.objects.create(prompt=prompt, name=label, version=made[number])
        PromptLabelMove.objects.create(
            prompt=prompt,
            label=label,
            version=made[number],
            moved_by=owner,
            moved_by_name=str(owner.get_username()),
        )
    # The file's authors and times are kept as written; who brought them here is the log's.
    _audit("prompt.imported", prompt=prompt, actor=owner, versions=len(made), labels=len(labels))
    return Imported(prompt=prompt, added=sorted(made), already=[], labels=labels)


def _added(owner: AbstractBaseUser, prompt: Prompt, entries: list[dict[str, Any]]) -> Imported:
    have = dict(prompt.versions.values_list("digest", "number"))
    added, already = [], []
    for entry in entries:
        digest = definition_digest(entry["definition"])
        if digest in have:
            already.append(have[digest])
            continue
        version = _add_version(
            prompt,
            entry["definition"],
            author=owner,
            message=entry["message"],
            origin=f"imported (v{entry['number']} of the file)",
        )
        have[digest] = version.number
        added.append(version.number)
    if not added and not already:
        raise Conflict("nothing to import")
    return Imported(prompt=prompt, added=added, already=already, labels={})
