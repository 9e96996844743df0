"""Installation now lives in inventory (inventory 0008): only the state leaves cloud, the table went with it."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("cloud", "0002_installation"),
        ("inventory", "0009_installation"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(state_operations=[migrations.DeleteModel(name="Installation")]),
    ]
