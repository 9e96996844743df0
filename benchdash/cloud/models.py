"""Cloud host templates, and the instances a study on one was given."""

from decimal import Decimal
from typing import TYPE_CHECKING

from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.utils.translation import gettext_lazy as _

from benchdash.cloud import validators
from benchdash.inventory.models import Host
from benchdash.inventory.validators import validate_target_path
from benchdash.studies.models import Study

if TYPE_CHECKING:
    from django_stubs_ext import StrOrPromise


def price_field(label: "StrOrPromise", default: Decimal | None = None) -> models.DecimalField:
    """USD per hour, to the hundredth of a cent."""
    at_least_zero = [MinValueValidator(Decimal(0))]
    if default is None:
        return models.DecimalField(label, max_digits=9, decimal_places=4, validators=at_least_zero)
    return models.DecimalField(label, max_digits=9, decimal_places=4, validators=at_least_zero, default=default)


class CloudTemplate(models.Model):
    """How to make a study's machines on EC2: one DB host, and a pgbench client host when it names a type."""

    class VolumeType(models.TextChoices):
        GP3 = "gp3", "gp3"
        GP2 = "gp2", "gp2"
        IO1 = "io1", "io1"
        IO2 = "io2", "io2"

    name = models.SlugField(_("name"), max_length=40, unique=True)
    region = models.CharField(_("region"), max_length=30, validators=[validators.validate_region])
    image_id = models.CharField(_("image (AMI)"), max_length=30, validators=[validators.validate_image_id])
    subnet_id = models.CharField(_("subnet"), max_length=40, validators=[validators.validate_subnet_id])
    security_group_id = models.CharField(
        _("security group"), max_length=40, validators=[validators.validate_security_group_id]
    )
    key_name = models.CharField(_("EC2 key pair"), max_length=255, validators=[validators.validate_key_name])
    key_path = models.CharField(
        _("private key file"),
        max_length=500,
        help_text=_("Path of the key pair's private key on the workers' machines (the key is never stored)."),
    )
    ssh_user = models.CharField(_("SSH user"), max_length=32, default="admin")
    work_dir = models.CharField(
        _("work directory"), max_length=500, default="/var/lib/benchdash", validators=[validate_target_path]
    )
    public_address = models.BooleanField(
        _("reach by public address"),
        default=False,
        help_text=_("Off: workers reach the instances by their private address, from inside the VPC."),
    )
    volume_type = models.CharField(_("volume type"), max_length=4, choices=VolumeType.choices, default="gp3")
    volume_size_gib = models.PositiveIntegerField(
        _("volume size (GiB)"), default=100, validators=[MinValueValidator(8), MaxValueValidator(16384)]
    )
    volume_iops = models.PositiveIntegerField(
        _("volume IOPS"), null=True, blank=True, help_text=_("Required for io1 and io2; empty: the type's default.")
    )
    db_instance_type = models.CharField(
        _("DB host instance type"), max_length=40, validators=[validators.validate_instance_type]
    )
    db_price_per_hour = price_field(_("DB host price per hour (USD)"))
    client_instance_type = models.CharField(
        _("pgbench host instance type"),
        max_length=40,
        blank=True,
        validators=[validators.validate_instance_type],
        help_text=_("Empty: pgbench runs on the DB host."),
    )
    client_price_per_hour = price_field(_("pgbench host price per hour (USD)"), Decimal(0))
    setup_minutes = models.PositiveIntegerField(
        _("set-up time (minutes)"),
        default=15,
        validators=[MinValueValidator(1)],
        help_text=_("Boot, facts and builds before the first trial: counted in each study's time and cost."),
    )

    class Meta:
        ordering = ["name"]
        verbose_name = _("cloud host template")
        verbose_name_plural = _("cloud host templates")

    def __str__(self) -> str:
        return self.name

    def clean(self) -> None:
        if self.volume_type in (self.VolumeType.IO1, self.VolumeType.IO2) and not self.volume_iops:
            raise ValidationError({"volume_iops": _("An io1 or io2 volume needs its IOPS.")})

    def roles(self) -> dict[str, tuple[str, Decimal]]:
        """The instances a study on it gets: role -> (instance type, price per hour)."""
        roles: dict[str, tuple[str, Decimal]] = {CloudInstance.Role.DB: (self.db_instance_type, self.db_price_per_hour)}
        if self.client_instance_type:
            roles[CloudInstance.Role.CLIENT] = (self.client_instance_type, self.client_price_per_hour)
        return roles


class CloudStudy(models.Model):
    """A study on a template: its instances are made before its first trial and terminated when it ends.

    State:  LAUNCHING -> READY (the study is queued) -> ENDED;  LAUNCHING -> FAILED (nothing was queued).
    """

    class State(models.TextChoices):
        LAUNCHING = "launching", _("launching")
        READY = "ready", _("ready")
        ENDED = "ended", _("instances terminated")
        FAILED = "failed", _("launch failed")

    study = models.OneToOneField(Study, verbose_name=_("study"), on_delete=models.CASCADE, related_name="cloud")
    template = models.ForeignKey(
        CloudTemplate, verbose_name=_("template"), on_delete=models.PROTECT, related_name="studies"
    )
    state = models.CharField(_("state"), max_length=10, choices=State.choices, default=State.LAUNCHING)
    # The instances stop themselves then (a timer set at boot), and beat terminates them past it.
    expires_at = models.DateTimeField(_("expires"))
    # What the instances cost at most: their prices until the expiry.
    cost_bound = models.DecimalField(_("cost at most (USD)"), max_digits=12, decimal_places=2)
    created_at = models.DateTimeField(_("created"), auto_now_add=True)
    error = models.TextField(_("error"), blank=True)

    class Meta:
        ordering = ["-created_at"]
        verbose_name = _("cloud study")
        verbose_name_plural = _("cloud studies")

    def __str__(self) -> str:
        return f"{self.study_id} on {self.template}"


class CloudInstance(models.Model):
    """One EC2 instance of a cloud study, and the host row it runs as."""

    class Role(models.TextChoices):
        DB = "db", _("DB host")
        CLIENT = "client", _("pgbench host")

    cloud_study = models.ForeignKey(CloudStudy, on_delete=models.CASCADE, related_name="instances")
    role = models.CharField(_("role"), max_length=6, choices=Role.choices)
    host = models.ForeignKey(Host, verbose_name=_("host"), on_delete=models.PROTECT, related_name="+")
    instance_id = models.CharField(_("instance"), max_length=40, blank=True)
    instance_type = models.CharField(_("instance type"), max_length=40)
    price_per_hour = price_field(_("price per hour (USD)"))
    launched_at = models.DateTimeField(_("launched"), null=True, blank=True)
    terminated_at = models.DateTimeField(_("terminated"), null=True, blank=True)

    class Meta:
        ordering = ["cloud_study", "role"]
        constraints = [models.UniqueConstraint(fields=["cloud_study", "role"], name="cloud_instance_one_per_role")]
        verbose_name = _("cloud instance")
        verbose_name_plural = _("cloud instances")

    def __str__(self) -> str:
        return self.instance_id or f"{self.cloud_study} {self.role}"
