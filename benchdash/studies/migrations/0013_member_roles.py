"""Member roles as groups (benchdash/studies/roles.py), and "cancel_study", which takes cancel and retry apart
from queueing ("add_study"): whoever could queue could cancel before, so every user and group with add_study
gets it too."""

from django.db import migrations

from benchdash.studies.roles import ADMINISTER, ROLES, roles_ensure


def create_roles(apps, schema_editor):
    roles_ensure(apps)
    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")
    User = apps.get_model("auth", "User")
    queue = Permission.objects.get(content_type__app_label="studies", codename="add_study")
    cancel = Permission.objects.get(content_type__app_label="studies", codename="cancel_study")
    for group in Group.objects.filter(permissions=queue).exclude(name__in=[*ROLES, ADMINISTER]):
        group.permissions.add(cancel)
    for user in User.objects.filter(user_permissions=queue):
        user.user_permissions.add(cancel)


def remove_roles(apps, schema_editor):
    apps.get_model("auth", "Group").objects.filter(name__in=[*ROLES, ADMINISTER]).delete()


class Migration(migrations.Migration):

    dependencies = [
        ('studies', '0012_attempt'),
        ('inventory', '0001_initial'),
        ('auth', '0012_alter_user_first_name_max_length'),
        ('contenttypes', '0002_remove_content_type_name'),
    ]

    operations = [
        migrations.AlterModelOptions(
            name='study',
            options={'ordering': ['-year', '-created_at'], 'permissions': [('mark_official', 'Can mark a study official (include it in the trends)'), ('cancel_study', 'Can cancel a study and run its failed trials again')], 'verbose_name': 'study', 'verbose_name_plural': 'studies'},
        ),
        migrations.RunPython(create_roles, remove_roles),
    ]
