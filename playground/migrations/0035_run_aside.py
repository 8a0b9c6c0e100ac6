"""A run beside the conversation (``runs.aside``: an MCP server's sampling request answered as a
run of its own): ``purpose`` and the ``tool_use_id`` of the call that asked; such a run takes no
place in the "one live run per conversation and column" index."""

import playground.protocol.run_status
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('playground', '0034_grid_imported_results'),
    ]

    operations = [
        migrations.RemoveConstraint(
            model_name='run',
            name='one_running_run_per_conversation_column',
        ),
        migrations.AddField(
            model_name='run',
            name='purpose',
            field=models.CharField(blank=True, default='', max_length=20),
        ),
        migrations.AddField(
            model_name='run',
            name='tool_use_id',
            field=models.CharField(blank=True, default='', max_length=200),
        ),
        migrations.AddConstraint(
            model_name='run',
            constraint=models.UniqueConstraint(condition=models.Q(('purpose', ''), ('status', playground.protocol.run_status.RunStatus['RUNNING'])), fields=('conversation', 'column'), name='one_running_run_per_conversation_column'),
        ),
    ]
