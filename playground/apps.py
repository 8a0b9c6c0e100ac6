from __future__ import annotations

from typing import Any

from django.apps import AppConfig
from django.conf import settings
from django.core import checks
from django.db.backends.signals import connection_created
from django.db.models.signals import post_migrate


def _ensure_search_index(sender: AppConfig, *, using: str, **kwargs: Any) -> None:
    # SQLite rebuilds a table to alter it, and its triggers go with it: put them back after
    # every migrate (see playground.conversations.search_index).
    from django.db import connections

    from playground.conversations.search_index import ensure_index

    ensure_index(connections[using])


def bundle_is_current(**kwargs: Any) -> list[checks.CheckMessage]:
    # The pages load static/playground/dist/, made from the modules beside it: a module edited
    # without making the bundle again would not be what the page runs (tools/page_bundle.py).
    from playground.bundle_freshness import stale_sources

    changed = stale_sources()
    if not changed:
        return []
    return [
        checks.Warning(
            f"the pages' bundle (static/playground/dist/) was made from other sources than"
            f" {', '.join(changed[:3])}{' …' if len(changed) > 3 else ''}: the pages run the"
            " old code",
            hint="run .venv/bin/python -m tools.page_bundle",
            id="playground.W001",
        )
    ]


class PlaygroundConfig(AppConfig):
    name = "playground"
    verbose_name = "Messages Playground"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from django.contrib.auth.signals import user_logged_out

        from playground.audit.hooks import connect as audit_what_happens
        from playground.grids.by_hand import register as score_loops_continued_by_hand
        from playground.grids.launch import register as take_grids_after_recovery
        from playground.mcp.manager import close_sessions_at_logout
        from playground.postgres_text import install_nul_replacement
        from playground.web.loop_middleware import django_deploy_checks

        connection_created.connect(install_nul_replacement)
        post_migrate.connect(_ensure_search_index, sender=self)
        checks.register(bundle_is_current, checks.Tags.staticfiles)
        checks.register(django_deploy_checks, checks.Tags.security, deploy=True)
        # A grid's queued cells with no live runner (its server stopped or died) are taken
        # after recovery, at start-up and every heartbeat.
        take_grids_after_recovery()
        # A grid's tool loop a person goes on with by hand is scored again when it ends.
        score_loops_continued_by_hand()
        # Sign-ins, budget refusals, limits and tokens changed: the audit log (playground.audit).
        audit_what_happens()
        if settings.PLAYGROUND_METRICS:
            from playground.observability.hooks import observe

            observe()
        # Traces (the [otel] extra): only now is OpenTelemetry imported, and only if configured.
        if settings.PLAYGROUND_TRACES is not None:
            from playground.observability.traces import install as trace_runs

            trace_runs(settings.PLAYGROUND_TRACES)
        # A person who logs out leaves no MCP session (nor server process) of theirs open.
        user_logged_out.connect(close_sessions_at_logout, dispatch_uid="playground.mcp.logout")
