"""Message.search_text, filled in for every stored message, and its full-text index
(PostgreSQL GIN, SQLite FTS5: ``playground.conversations.search_index``)."""

from django.db import migrations, models


def fill_and_index(apps, schema_editor):
    from playground.conversations.search import search_text_of
    from playground.conversations.search_index import ensure_index

    Message = apps.get_model("playground", "Message")
    batch = []
    for message in Message.objects.only("id", "content").iterator(chunk_size=500):
        message.search_text = search_text_of(message.content)
        batch.append(message)
        if len(batch) == 500:
            Message.objects.bulk_update(batch, ["search_text"])
            batch = []
    Message.objects.bulk_update(batch, ["search_text"])
    ensure_index(schema_editor.connection)


def unindex(apps, schema_editor):
    from playground.conversations.search_index import drop_index

    drop_index(schema_editor.connection)


class Migration(migrations.Migration):
    dependencies = [
        ("playground", "0008_conversation_variables"),
    ]

    operations = [
        migrations.AddField(
            model_name="message",
            name="search_text",
            field=models.TextField(blank=True, default="", editable=False),
        ),
        migrations.RunPython(fill_and_index, unindex),
    ]
