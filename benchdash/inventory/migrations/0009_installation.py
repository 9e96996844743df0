"""Installation moves from cloud to inventory: the studies and the queue need its id too (a target's work dir and
host-wide lock), and they may not import cloud. The row stays: the state moves here, the table is renamed."""

import uuid

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("inventory", "0008_host_facts_state"),
        ("cloud", "0002_installation"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name="Installation",
                    fields=[
                        ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                        ("token", models.UUIDField(default=uuid.uuid4, editable=False, verbose_name="installation id")),
                    ],
                    options={"verbose_name": "installation", "db_table": "cloud_installation"},
                ),
            ],
        ),
        migrations.AlterModelTable(name="installation", table=None),
    ]
