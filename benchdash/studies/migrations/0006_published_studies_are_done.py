# A published study is a study of kind "published" whose figures all count: its status is "done",
# like a measured study whose every trial succeeded. The status "published" is gone.

from django.db import migrations, models


def published_to_done(apps, schema_editor):
    Study = apps.get_model("studies", "Study")
    Study.objects.filter(status="published").update(status="done")


def done_to_published(apps, schema_editor):
    Study = apps.get_model("studies", "Study")
    Study.objects.filter(kind="published", status="done").update(status="published")


class Migration(migrations.Migration):
    dependencies = [
        ("studies", "0005_fill_study_points"),
    ]

    operations = [
        migrations.RunPython(published_to_done, done_to_published),
        migrations.AlterField(
            model_name="study",
            name="status",
            field=models.CharField(
                choices=[
                    ("draft", "draft"),
                    ("queued", "queued"),
                    ("running", "running"),
                    ("done", "done"),
                    ("failed", "failed"),
                    ("cancelled", "cancelled"),
                ],
                default="draft",
                max_length=10,
                verbose_name="status",
            ),
        ),
    ]
