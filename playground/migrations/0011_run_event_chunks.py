"""A run's event log moves from one growing text column to a row per write.

Each run's stored log becomes its first chunk, byte for byte (``first_seq`` 1); going back
joins the chunks in ``first_seq`` order into the column again.
"""

import django.db.models.deletion
from django.db import migrations, models

# Copied in batches so that a database of long logs is never read into memory at once.
_BATCH = 200


def logs_to_chunks(apps, schema_editor):
    Run = apps.get_model("playground", "Run")
    RunEventChunk = apps.get_model("playground", "RunEventChunk")
    logged = Run.objects.exclude(events_jsonl="").order_by("pk").values_list("pk", flat=True)
    for run_id in logged.iterator(chunk_size=_BATCH):
        log = Run.objects.filter(pk=run_id).values_list("events_jsonl", flat=True).get()
        RunEventChunk.objects.create(run_id=run_id, first_seq=1, lines=log)


def chunks_to_logs(apps, schema_editor):
    Run = apps.get_model("playground", "Run")
    RunEventChunk = apps.get_model("playground", "RunEventChunk")
    chunked = RunEventChunk.objects.order_by("run_id").values_list("run_id", flat=True).distinct()
    for run_id in chunked.iterator(chunk_size=_BATCH):
        lines = RunEventChunk.objects.filter(run_id=run_id).order_by("first_seq")
        log = "".join(lines.values_list("lines", flat=True))
        Run.objects.filter(pk=run_id).update(events_jsonl=log)


class Migration(migrations.Migration):
    dependencies = [
        ("playground", "0010_conversation_tool_mocks"),
    ]

    operations = [
        migrations.CreateModel(
            name="RunEventChunk",
            fields=[
                ("id", models.BigAutoField(primary_key=True, serialize=False)),
                ("first_seq", models.PositiveIntegerField()),
                ("lines", models.TextField(help_text="JSON lines, each ending in a newline.")),
                (
                    "run",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="event_chunks",
                        to="playground.run",
                    ),
                ),
            ],
            options={
                "constraints": [
                    models.UniqueConstraint(fields=("run", "first_seq"), name="one_chunk_per_seq")
                ],
            },
        ),
        migrations.RunPython(logs_to_chunks, chunks_to_logs),
        migrations.RemoveField(model_name="run", name="events_jsonl"),
    ]
