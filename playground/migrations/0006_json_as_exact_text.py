"""Every JSON value as exact text (``JSONTextField``): no jsonb column, no "TextField + property".

Renames the four text columns that held JSON (``content_json`` → ``content``, ``request_json``
→ ``request``, ``kept_content_json`` → ``kept_content``, ``snapshot_json`` → ``snapshot``),
turns "" (none) into NULL where a value may be absent, and changes ``usage`` and
``block_issues`` from ``JSONField`` to text: on PostgreSQL ``ALTER … TYPE text USING …::text``
keeps every value (jsonb's own text form, which decodes to the same value); on SQLite the
table is rebuilt with the same JSON text.
"""

from django.db import migrations, models

import playground.fields

#: Text columns where "" meant "none": (model, field before the rename).
EMPTY_MEANS_NONE = (("run", "request_json"), ("run", "kept_content_json"), ("share", "snapshot_json"))


def _settle(schema_editor):
    # PostgreSQL refuses ALTER TABLE on a table with deferred FK checks pending from the
    # UPDATEs above ("pending trigger events"): run them now, then defer again.
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute("SET CONSTRAINTS ALL IMMEDIATE")
        schema_editor.execute("SET CONSTRAINTS ALL DEFERRED")


def empty_to_null(apps, schema_editor):
    for model, field in EMPTY_MEANS_NONE:
        apps.get_model("playground", model).objects.filter(**{field: ""}).update(**{field: None})
    _settle(schema_editor)


def null_to_empty(apps, schema_editor):
    for model, field in EMPTY_MEANS_NONE:
        apps.get_model("playground", model).objects.filter(**{f"{field}__isnull": True}).update(
            **{field: ""}
        )
    _settle(schema_editor)


class Migration(migrations.Migration):
    dependencies = [
        ("playground", "0005_run_content_kept"),
    ]

    operations = [
        # 1. Where a value may be absent, NULL says so (still plain text here).
        migrations.AlterField(
            model_name="run",
            name="request_json",
            field=models.TextField(null=True),
        ),
        migrations.AlterField(
            model_name="run",
            name="kept_content_json",
            field=models.TextField(blank=True, null=True),
        ),
        migrations.AlterField(
            model_name="share",
            name="snapshot_json",
            field=models.TextField(blank=True, null=True),
        ),
        migrations.RunPython(empty_to_null, null_to_empty),
        # 2. The columns are named for the value they hold.
        migrations.RenameField(model_name="message", old_name="content_json", new_name="content"),
        migrations.RenameField(model_name="run", old_name="request_json", new_name="request"),
        migrations.RenameField(
            model_name="run", old_name="kept_content_json", new_name="kept_content"
        ),
        migrations.RenameField(model_name="share", old_name="snapshot_json", new_name="snapshot"),
        # 3. One field for every JSON value.
        migrations.AlterField(
            model_name="message",
            name="content",
            field=playground.fields.JSONTextField(
                help_text="The API's content blocks, as exact JSON text."
            ),
        ),
        migrations.AlterField(
            model_name="run",
            name="request",
            field=playground.fields.JSONTextField(
                help_text="The request body as sent; never a key.", null=True
            ),
        ),
        migrations.AlterField(
            model_name="run",
            name="kept_content",
            field=playground.fields.JSONTextField(
                blank=True,
                help_text="The answer's content blocks when they could not join the conversation.",
                null=True,
            ),
        ),
        migrations.AlterField(
            model_name="share",
            name="snapshot",
            field=playground.fields.JSONTextField(
                blank=True,
                help_text="The frozen conversation as exact JSON text; null once revoked.",
                null=True,
            ),
        ),
        # jsonb (a JSON text column on SQLite) to exact text.
        *(
            migrations.AlterField(
                model_name="run",
                name=name,
                field=playground.fields.JSONTextField(blank=True, default=dict),
            )
            for name in ("usage", "block_issues")
        ),
    ]
