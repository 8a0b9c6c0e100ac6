from __future__ import annotations

from typing import Any

from django.apps import AppConfig
from django.db.models.signals import post_migrate


def _ensure_search_index(sender: AppConfig, *, using: str, **kwargs: Any) -> None:
    # SQLite rebuilds a table to alter it, and its triggers go with it: put them back after
    # every migrate (see playground.conversations.search_index).
    from django.db import connections

    from playground.conversations.search_index import ensure_index

    ensure_index(connections[using])


class PlaygroundConfig(AppConfig):
    name = "playground"
    verbose_name = "Messages Playground"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        post_migrate.connect(_ensure_search_index, sender=self)
