"""``manage.py prune_attachments``: remove the files no message or run refers to any more.

Run it from cron (or by hand); ``--dry-run`` says what it would remove. See
``playground.attachments.prune`` for what "unused" means and why files get a grace period.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.core.management.base import BaseCommand, CommandParser
from django.utils import timezone

from playground.attachments.prune import prune_unused


class Command(BaseCommand):
    help = "Remove attached files that no message or run refers to (older than --days)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--days",
            type=float,
            default=7.0,
            help="grace period: files uploaded within it are kept even if unused (default 7)",
        )
        parser.add_argument("--dry-run", action="store_true", help="count, remove nothing")

    def handle(self, *args: Any, **options: Any) -> None:
        cutoff = timezone.now() - timedelta(days=options["days"])
        pruned = prune_unused(older_than=cutoff, dry_run=options["dry_run"])
        verb = "would remove" if options["dry_run"] else "removed"
        self.stdout.write(
            f"{verb} {pruned.files} unused file{'s' if pruned.files != 1 else ''} "
            f"({pruned.bytes:,} bytes), older than {options['days']:g} days"
        )
