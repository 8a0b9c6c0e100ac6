"""A conversation's settings, one column each until now, become one JSON object (``settings``).

Each row's values are copied as they are (a column's null stays null), then the columns go.
Backwards, each value goes back to its column; a setting that had none (added since) is left.
"""

from django.db import migrations

import playground.fields
import playground.protocol.settings_table

#: The columns of the settings, in the order the settings declare them.
COLUMNS = (
    "profile",
    "model",
    "system",
    "max_tokens",
    "temperature",
    "top_p",
    "top_k",
    "stop_sequences",
    "tools",
    "tool_choice",
    "output_config",
    "thinking",
    "extra_fields",
)
BATCH = 500


def _in_batches(rows, write):
    batch = []
    for row in rows.iterator(chunk_size=BATCH):
        batch.append(row)
        if len(batch) == BATCH:
            write(batch)
            batch = []
    if batch:
        write(batch)


def columns_to_settings(apps, schema_editor):
    Conversation = apps.get_model("playground", "Conversation")

    def write(batch):
        for row in batch:
            row.settings = {name: getattr(row, name) for name in COLUMNS}
        Conversation.objects.bulk_update(batch, ["settings"])

    _in_batches(Conversation.objects.only("pk", *COLUMNS), write)


def settings_to_columns(apps, schema_editor):
    Conversation = apps.get_model("playground", "Conversation")

    def write(batch):
        for row in batch:
            values = row.settings.model_dump()
            for name in COLUMNS:
                setattr(row, name, values[name])
        Conversation.objects.bulk_update(batch, list(COLUMNS))

    _in_batches(Conversation.objects.only("pk", "settings"), write)


class Migration(migrations.Migration):
    dependencies = [
        ("playground", "0030_audit_log"),
    ]

    operations = [
        migrations.AddField(
            model_name="conversation",
            name="settings",
            field=playground.fields.SettingsField(
                default=playground.protocol.settings_table.Settings
            ),
        ),
        migrations.RunPython(columns_to_settings, settings_to_columns),
        *(migrations.RemoveField(model_name="conversation", name=name) for name in COLUMNS),
    ]
