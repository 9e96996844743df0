# Where the server listens is the engine's alone (docs/SECURITY.md): the seeds' presets no longer set
# listen_addresses, and the engine refuses a study that does. Studies that have not ended and took it
# from a preset would fail at their next trial: drop it from them and from the stored presets (load_presets
# writes the presets without it too). Ended studies keep it: it is part of the record of what ran.

from django.db import migrations

NOT_ENDED = ("draft", "queued", "running")


def drop_listen_addresses(apps, schema_editor):
    for model, rows in (
        (apps.get_model("studies", "Study"), {"status__in": NOT_ENDED}),
        (apps.get_model("studies", "StudyPreset"), {}),
    ):
        for row in model.objects.filter(pg_settings__has_key="listen_addresses", **rows):
            row.pg_settings.pop("listen_addresses")
            row.save(update_fields=["pg_settings"])


class Migration(migrations.Migration):
    dependencies = [
        ("studies", "0007_study_conclusions_trial_evidence"),
    ]

    operations = [
        migrations.RunPython(drop_listen_addresses, migrations.RunPython.noop),
    ]
