from django.db import migrations

from benchdash.changes.roles import acknowledgers_ensure


def forwards(apps, schema_editor):
    acknowledgers_ensure(apps)


class Migration(migrations.Migration):
    dependencies = [
        ("changes", "0002_series_on_the_change"),
        ("studies", "0013_member_roles"),
    ]

    operations = [migrations.RunPython(forwards, migrations.RunPython.noop)]
