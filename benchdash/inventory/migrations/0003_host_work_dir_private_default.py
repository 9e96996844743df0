import benchdash.inventory.validators
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("inventory", "0002_target_paths_are_safe"),
    ]

    operations = [
        migrations.AlterField(
            model_name="host",
            name="work_dir",
            field=models.CharField(
                default="/var/lib/benchdash",
                help_text=(
                    "An absolute path of letters, digits and / . _ - only: where benchdash keeps builds and clusters "
                    "on the host, a directory of the SSH user's (in its home, or /var/lib/benchdash owned by it), "
                    "mode 0700. A host whose work dir other accounts could change is refused."
                ),
                max_length=500,
                validators=[benchdash.inventory.validators.validate_target_path],
                verbose_name="work directory",
            ),
        ),
    ]
