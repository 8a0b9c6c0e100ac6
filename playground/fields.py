"""A JSON value stored as text, so its key order and strings come back exactly as saved.

Rule: use it for anything that is sent to an upstream or exported again. PostgreSQL's ``jsonb``
(Django's ``JSONField`` there) re-orders object keys, so a tool's ``input_schema`` would come
back reordered and an exported request would no longer equal the one imported.
"""

from __future__ import annotations

import json
from typing import Any

from django import forms
from django.db import models

from playground.protocol.json_text import dumps


def dump_json(value: Any) -> str:
    """The one JSON text form we store: compact, non-ASCII kept as is (``json_text.dumps``)."""
    return dumps(value)


class JSONTextField(models.TextField):
    description = "A JSON value stored as exact text"

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
        return None if value is None else dump_json(value)

    def value_to_string(self, obj: models.Model) -> str:
        return dump_json(self.value_from_object(obj))

    def formfield(self, **kwargs: Any) -> forms.Field:
        return forms.JSONField(**{"required": not self.blank, **kwargs})
