from __future__ import annotations

from django.apps import AppConfig


class PlaygroundConfig(AppConfig):
    name = "playground"
    verbose_name = "Messages Playground"
    default_auto_field = "django.db.models.BigAutoField"
