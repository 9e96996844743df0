"""What a study on a cloud template costs (its time at the template's prices) and the administrator's budgets
(BENCHDASH_CLOUD_STUDY_BUDGET_USD, BENCHDASH_CLOUD_MONTHLY_BUDGET_USD).

A study is held to what it may cost at most: its instances' prices until their expiry, the set-up and the
estimated time with a margin (BENCHDASH_CLOUD_EXPIRY_FACTOR), since past the expiry they stop themselves."""

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from decimal import ROUND_UP, Decimal

from django.conf import settings
from django.core.exceptions import ValidationError
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from benchdash.cloud.models import CloudInstance, CloudStudy, CloudTemplate

CENT = Decimal("0.01")
OVER_STUDY_BUDGET = _(
    "This study may cost up to %(cost)s USD on %(template)s, over the per-study budget of %(budget)s USD."
)
OVER_MONTHLY_BUDGET = _(
    "This study may cost up to %(cost)s USD; with %(spent)s USD spent or held by cloud studies this month, that is "
    "over the monthly budget of %(budget)s USD."
)


@dataclass(frozen=True)
class CloudEstimate:
    """A study's instances (role label, instance type, USD per hour), its time and its cost."""

    instances: list[tuple[str, str, Decimal]]
    hours: Decimal
    cost: Decimal
    expiry_hours: Decimal
    cost_bound: Decimal


def estimate(template: CloudTemplate, study_seconds: float) -> CloudEstimate:
    """The cost of the set-up and the estimated study time, and the most it may cost (until the expiry)."""
    per_hour = sum((price for _type, price in template.roles().values()), Decimal(0))
    setup_hours = Decimal(template.setup_minutes) / 60
    study_hours = Decimal(str(study_seconds)) / 3600
    hours = setup_hours + study_hours
    expiry_hours = setup_hours + study_hours * Decimal(str(settings.CLOUD_EXPIRY_FACTOR))
    instances = [(str(CloudInstance.Role(role).label), kind, price) for role, (kind, price) in template.roles().items()]
    return CloudEstimate(
        instances=instances,
        hours=hours.quantize(CENT),
        cost=_usd(hours * per_hour),
        expiry_hours=expiry_hours.quantize(CENT),
        cost_bound=_usd(expiry_hours * per_hour),
    )


def budget_refusals(template: CloudTemplate, cloud_estimate: CloudEstimate) -> list[ValidationError]:
    """Why the budgets refuse a study of this estimate (empty: they allow it)."""
    cost = cloud_estimate.cost_bound
    refusals = []
    if cost > settings.CLOUD_STUDY_BUDGET_USD:
        params = {"cost": cost, "template": template, "budget": settings.CLOUD_STUDY_BUDGET_USD}
        refusals.append(ValidationError(OVER_STUDY_BUDGET, code="study_budget", params=params))
    spent = month_spent(timezone.now())
    if spent + cost > settings.CLOUD_MONTHLY_BUDGET_USD:
        params = {"cost": cost, "spent": spent, "budget": settings.CLOUD_MONTHLY_BUDGET_USD}
        refusals.append(ValidationError(OVER_MONTHLY_BUDGET, code="monthly_budget", params=params))
    return refusals


def month_spent(now: datetime) -> Decimal:
    """What the cloud studies made this month (UTC) cost: what ended ones ran, the bound of the others."""
    start = now.astimezone(UTC).replace(day=1, hour=0, minute=0, second=0, microsecond=0)
    clouds = CloudStudy.objects.filter(created_at__gte=start).prefetch_related("instances")
    return sum((cloud_cost(cloud) for cloud in clouds), Decimal(0))


def cloud_cost(cloud: CloudStudy) -> Decimal:
    if cloud.state not in (CloudStudy.State.ENDED, CloudStudy.State.FAILED):
        return cloud.cost_bound
    return sum((instance_cost(instance, cloud.expires_at) for instance in cloud.instances.all()), Decimal(0))


def instance_cost(instance: CloudInstance, expires_at: datetime) -> Decimal:
    """Its price for the time it ran, by the second with a minute at least (as EC2 bills Linux)."""
    if instance.launched_at is None:
        return Decimal(0)
    ran = (instance.terminated_at or expires_at) - instance.launched_at
    seconds = max(ran, timedelta(minutes=1)).total_seconds()
    return _usd(instance.price_per_hour * Decimal(str(seconds)) / 3600)


def _usd(amount: Decimal) -> Decimal:
    return amount.quantize(CENT, rounding=ROUND_UP)
