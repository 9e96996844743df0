"""Every existing study's builds become its variants, one per build (its label the build's name, the baseline the
study's baseline build), and every trial and point is filled with its variant: pages, CSVs and tests read the same.

Historical models only: a migration must not follow later changes of the application code.
"""

from django.db import migrations
from django.db.models import OuterRef, Subquery


def study_builds(Study, Trial):
    """(study id, build id) of every study's builds and of every build its trials ran, in study and build order."""
    listed = Study.builds.through.objects.values_list("study_id", "build_id")
    measured = Trial.objects.values_list("study_id", "build_id").distinct()
    return sorted(set(listed) | set(measured))


def fill_variants(apps, schema_editor):
    Study = apps.get_model("studies", "Study")
    Trial = apps.get_model("studies", "Trial")
    StudyPoint = apps.get_model("studies", "StudyPoint")
    Variant = apps.get_model("studies", "Variant")
    Build = apps.get_model("inventory", "Build")
    names = dict(Build.objects.values_list("pk", "name"))
    baselines = dict(Study.objects.values_list("pk", "baseline_id"))
    positions: dict[int, int] = {}
    variants = []
    for study_id, build_id in study_builds(Study, Trial):
        positions[study_id] = positions.get(study_id, -1) + 1
        variants.append(
            Variant(
                study_id=study_id,
                build_id=build_id,
                label=names[build_id],
                baseline=baselines[study_id] == build_id,
                position=positions[study_id],
            )
        )
    Variant.objects.bulk_create(variants, batch_size=1000)
    for model in (Trial, StudyPoint):
        of_row = Variant.objects.filter(study_id=OuterRef("study_id"), build_id=OuterRef("build_id")).values("pk")
        model.objects.filter(variant__isnull=True).update(variant_id=Subquery(of_row[:1]))


def empty_variants(apps, schema_editor):
    for name in ("Trial", "StudyPoint"):
        apps.get_model("studies", name).objects.update(variant=None)
    apps.get_model("studies", "Variant").objects.all().delete()


class Migration(migrations.Migration):
    dependencies = [
        ("studies", "0020_variants"),
    ]

    operations = [migrations.RunPython(fill_variants, empty_variants)]
