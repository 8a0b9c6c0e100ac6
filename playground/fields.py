"""The one field for a JSON value: stored as exact JSON text, read back as the value.

Rule: every JSON value a model holds (message content, request bodies, settings sent upstream,
usage, a run's flags and notes, a share's snapshot) is a :class:`JSONTextField`, never a
``JSONField``. PostgreSQL's ``jsonb`` (Django's ``JSONField`` there) re-orders object keys and
refuses a lone surrogate, so a tool's ``input_schema`` would come back reordered, an exported
request would no longer equal the one imported, and a thinking block's signature could not go
back as received. The text is written by the one encoder, ``protocol.json_text.dumps``.

A ``str`` given to the field is JSON text already (no field of ours holds a top-level JSON
string): it is checked and stored exactly as given, byte for byte; any other value is encoded.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from django import forms
from django.db import models
from django.db.models.functions import Cast

from playground.protocol.json_text import dumps
from playground.protocol.settings_table import Settings


def as_text(name: str) -> Cast:
    """An expression reading a :class:`JSONTextField` column as its exact text (a fork's copy)."""
    return Cast(name, output_field=models.TextField())


class JSONTextField(models.TextField):
    description = "A JSON value stored as exact text"

    if TYPE_CHECKING:
        # On a model instance the attribute is the JSON value (Django's field descriptor puts
        # it there); without Django's types a checker would read it as the field itself.
        def __get__(self, instance: Any, owner: Any) -> Any: ...

        def __set__(self, instance: Any, value: Any) -> None: ...

    def from_db_value(self, value: str | None, expression: Any, connection: Any) -> Any:
        return None if value is None else json.loads(value)

    def to_python(self, value: Any) -> Any:
        # Strings reach here only from serialized fixtures or forms, both carrying JSON text.
        if isinstance(value, str):
            try:
                return json.loads(value)
            except ValueError as exc:
                raise models.ValidationError(f"not valid JSON: {exc}") from exc
        return value

    def get_prep_value(self, value: Any) -> str | None:
        if value is None:
            return None
        if isinstance(value, str):
            json.loads(value)  # JSON text, or a ValueError before anything is written
            return value
        return dumps(value)

    def value_to_string(self, obj: models.Model) -> str:
        return dumps(self.value_from_object(obj))

    def formfield(self, **kwargs: Any) -> forms.Field:
        return forms.JSONField(**{"required": not self.blank, **kwargs})


class SettingsField(JSONTextField):
    """A conversation's settings (``protocol.settings_table.Settings``) as one JSON object.

    Read back as the value, a setting the object lacks (one added since it was written) taking
    its default; written whole, so what was chosen stays as chosen when a default changes.
    """

    description = "A conversation's settings, as one JSON object"

    if TYPE_CHECKING:

        def __get__(self, instance: Any, owner: Any) -> Settings: ...

        def __set__(self, instance: Any, value: Settings) -> None: ...

    def from_db_value(self, value: str | None, expression: Any, connection: Any) -> Any:
        return None if value is None else Settings.model_validate(json.loads(value))

    def to_python(self, value: Any) -> Any:
        if value is None or isinstance(value, Settings):
            return value
        try:
            return Settings.model_validate(super().to_python(value))
        except ValueError as exc:
            raise models.ValidationError(f"not valid settings: {exc}") from exc

    def get_prep_value(self, value: Any) -> str | None:
        if isinstance(value, Settings):
            return dumps(value.model_dump(mode="json"))
        return super().get_prep_value(value)

    def value_from_object(self, obj: models.Model) -> Any:
        # As a form and a serializer read it: the JSON object, not the model.
        value = super().value_from_object(obj)
        return value.model_dump(mode="json") if isinstance(value, Settings) else value
