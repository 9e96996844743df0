"""Fill StudyPoint from the trials already stored (what studies/points.py keeps up from now on).

Historical models and an aggregate of its own, not points.py: a migration must not follow later
changes of the application code.
"""

from django.db import migrations
from django.db.models import Aggregate, Count, FloatField, Max, Min


class Median(Aggregate):
    function = "percentile_cont"
    name = "Median"
    template = "%(function)s(0.5) WITHIN GROUP (ORDER BY %(expressions)s)"
    output_field = FloatField()


def fill_points(apps, schema_editor):
    Trial = apps.get_model("studies", "Trial")
    StudyPoint = apps.get_model("studies", "StudyPoint")
    rows = (
        Trial.objects.filter(status="succeeded", tps__isnull=False)
        .values_list("study_id", "scenario_id", "build_id", "clients")
        .annotate(median=Median("tps"), minimum=Min("tps"), maximum=Max("tps"), n=Count("tps"))
        .order_by()
    )
    StudyPoint.objects.bulk_create(
        (
            StudyPoint(
                study_id=study_id,
                scenario_id=scenario_id,
                build_id=build_id,
                clients=clients,
                median=median,
                minimum=minimum,
                maximum=maximum,
                n=n,
            )
            for study_id, scenario_id, build_id, clients, median, minimum, maximum, n in rows.iterator()
        ),
        batch_size=1000,
    )


def empty_points(apps, schema_editor):
    apps.get_model("studies", "StudyPoint").objects.all().delete()


class Migration(migrations.Migration):
    dependencies = [
        ("studies", "0004_study_point"),
    ]

    operations = [migrations.RunPython(fill_points, empty_points)]
