"""The hosts cloud studies made before hosts had a kind take their template's: its instance type for their role and
its image (inventory/host_kind.py), so that their studies count in the noise history of instances of that kind."""

from django.db import migrations


def hosts_take_their_kind(apps, schema_editor):
    instances = apps.get_model("cloud", "CloudInstance").objects.select_related("cloud_study__template")
    hosts = apps.get_model("inventory", "Host").objects
    for instance in instances:
        hosts.filter(pk=instance.host_id).update(
            cloud_instance_type=instance.instance_type, cloud_image=instance.cloud_study.template.image_id
        )


def hosts_lose_their_kind(apps, schema_editor):
    hosts = apps.get_model("cloud", "CloudInstance").objects.values("host_id")
    apps.get_model("inventory", "Host").objects.filter(pk__in=hosts).update(cloud_instance_type="", cloud_image="")


class Migration(migrations.Migration):
    dependencies = [
        ("cloud", "0003_installation_moved"),
        ("inventory", "0013_host_cloud_instance_type_and_image"),
    ]

    operations = [migrations.RunPython(hosts_take_their_kind, hosts_lose_their_kind)]
