"""Events for the alert tests: a new change point in a minor series, an official study with a slower verdict."""

from django.contrib.auth.models import User

from benchdash.alerts.models import Subscription, Watch
from benchdash.changes.models import ChangePoint
from benchdash.changes.refresh import changes_refresh
from benchdash.studies.models import Study
from tests.factories import BuildFactory, ScenarioFactory, StudyFactory, succeeded_runs

SECRET = "a-shared-secret-of-32-characters"


def member_with_email(name: str = "watcher") -> User:
    return User.objects.create_user(name, email=f"{name}@example.org", password="pw-watcher-1")


def minor_step(levels: tuple[float, float] = (1000.0, 920.0)) -> ChangePoint:
    """A minor series 17.0-17.4 whose level moves between 17.2 and 17.3; its one change point."""
    builds = [BuildFactory(version=f"17.{minor}") for minor in range(5)]
    scenario = ScenarioFactory(slug="pgecons-reference")
    study = StudyFactory(builds=builds, scenarios=[scenario], baseline=builds[0])
    level = {build: levels[0] if minor < 3 else levels[1] for minor, build in enumerate(builds)}
    succeeded_runs(
        study, scenario, {(build, 16): [level[build] + step for step in (-4.0, 0.0, 4.0)] for build in builds}
    )
    changes_refresh()
    return ChangePoint.objects.get()


def official_slower_study() -> Study:
    """An official, done study of two builds where 17.0 is 20% slower than 16.0 at every run."""
    old, new = BuildFactory(version="16.0"), BuildFactory(version="17.0")
    scenario = ScenarioFactory(slug="pgecons-update")
    study = StudyFactory(builds=[old, new], scenarios=[scenario], baseline=old, status="done", official=True)
    runs = (990.0, 1000.0, 1010.0, 995.0, 1005.0)
    succeeded_runs(study, scenario, {(old, 8): list(runs), (new, 8): [tps * 0.8 for tps in runs]})
    return study


def subscribe(member: User, **fields: object) -> Subscription:
    subscription = Subscription(member=member, **fields)
    subscription.webhook_secret = SECRET if subscription.webhook_url else ""
    subscription.save()
    return subscription


def series_subscription(member: User, change: ChangePoint, **fields: object) -> Subscription:
    return subscribe(member, watch=Watch.SERIES, series_key=change.series_key, **fields)
