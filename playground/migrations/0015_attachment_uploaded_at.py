# Attachment.uploaded_at: when the bytes were last uploaded (a reuse refreshes it), what the
# prune's grace period counts from. Rows kept before it start from their created_at.

import django.utils.timezone
from django.db import migrations, models
from django.db.models import F


def _from_created_at(apps, schema_editor):
    Attachment = apps.get_model("playground", "Attachment")
    Attachment.objects.update(uploaded_at=F("created_at"))


class Migration(migrations.Migration):
    dependencies = [
        ("playground", "0014_run_compare_group"),
    ]

    operations = [
        migrations.AddField(
            model_name="attachment",
            name="uploaded_at",
            field=models.DateTimeField(default=django.utils.timezone.now),
        ),
        migrations.RunPython(_from_created_at, migrations.RunPython.noop),
    ]
