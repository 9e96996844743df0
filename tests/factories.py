"""factory_boy factories for the models tests build most: Host, Build, Scenario, Study, Trial."""

from itertools import count

import factory

from benchdash.inventory.models import Build, Host
from benchdash.studies.models import Scenario, Study, Trial, Variant
from benchdash.studies.results.compare import Point
from benchdash.studies.results.queries import study_results
from benchdash.studies.results.store import points_refresh
from workers.spec import BuildSpec, HostSpec, Prewarm, Reset, ScenarioSpec, TrialSpec


class HostFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Host
        django_get_or_create = ("name",)

    name = factory.Sequence(lambda number: f"host-{number}")
    address = "127.0.0.1"
    port = 22
    username = "benchdash"
    work_dir = "/tmp/benchdash"


class BuildFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Build
        django_get_or_create = ("name",)

    version = "15.0"
    name = factory.LazyAttribute(lambda build: f"PostgreSQL {build.version}")
    kind = Build.Kind.INSTALLED
    bin_dir = "/usr/lib/postgresql/15/bin"


class ScenarioFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Scenario
        django_get_or_create = ("slug",)

    slug = factory.Sequence(lambda number: f"scenario-{number}")
    name = factory.LazyAttribute(lambda scenario: scenario.slug)
    builtin = Scenario.Builtin.SELECT_ONLY
    scale = 1
    reset = Reset.ONCE
    prewarm = Prewarm.NONE


class StudyFactory(factory.django.DjangoModelFactory):
    """A measured draft study on the `local` host with scale 1 and 2-second runs."""

    class Meta:
        model = Study
        skip_postgeneration_save = True

    title = factory.Sequence(lambda number: f"study {number}")
    year = 2025
    kind = Study.Kind.MEASURED
    status = Study.Status.DRAFT
    # As the importer does it: a published study counts in the trends; a measured one must be marked official.
    official = factory.LazyAttribute(lambda study: study.kind == Study.Kind.PUBLISHED)
    db_host = factory.SubFactory(HostFactory, name="local", address="")
    client_host = factory.SelfAttribute("db_host")
    client_levels = factory.LazyFunction(lambda: [1, 2])
    repetitions = 1
    duration_s = 2
    scale = 1
    seed = 1

    @factory.post_generation
    def builds(self, create: bool, extracted: list[Build] | None, **kwargs: object) -> None:
        """The builds, each the study's variant as study_create makes them (the baseline build's is the baseline)."""
        if create and extracted:
            self.builds.set(extracted)
            for build in extracted:
                variant_of(self, build)

    @factory.post_generation
    def scenarios(self, create: bool, extracted: list[Scenario] | None, **kwargs: object) -> None:
        if create and extracted:
            self.scenarios.set(extracted)


class TrialFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Trial
        skip_postgeneration_save = True

    study = factory.SubFactory(StudyFactory)
    build = factory.SubFactory(BuildFactory)
    variant = factory.LazyAttribute(lambda trial: variant_of(trial.study, trial.build))
    scenario = factory.SubFactory(ScenarioFactory)
    host = factory.SelfAttribute("study.db_host")
    clients = 1
    threads = 1
    repetition = 1
    position = factory.Sequence(lambda number: number)
    status = Trial.Status.PENDING

    @factory.post_generation
    def point(self, create: bool, extracted: object, **kwargs: object) -> None:
        """What trial_finish and the importer do: the study point of a new trial follows it (point=False: the caller
        refreshes the study's points once, after its last trial)."""
        if create and extracted is not False:
            points_refresh(
                study_id=self.study_id, build_id=self.build_id, scenario_id=self.scenario_id, clients=self.clients
            )


def variant_of(study: Study, build: Build) -> Variant:
    """The study's variant of this build alone, made as the migration and study_create make it when missing."""
    return Variant.objects.of_build(study, build)


def succeeded_trial(
    study: Study, build: Build, scenario: Scenario, clients: int, repetition: int, tps: float, **fields
) -> Trial:
    """One succeeded trial of the study with this TPS; fields adds what else it reports."""
    return TrialFactory(
        study=study,
        build=build,
        scenario=scenario,
        clients=clients,
        repetition=repetition,
        status=Trial.Status.SUCCEEDED,
        tps=tps,
        **fields,
    )


def succeeded_runs(study: Study, scenario: Scenario, figures: dict, first_repetition: int = 1) -> None:
    """A succeeded trial for each TPS of figures {(build, clients): [tps, ...]}, repetitions counted from first."""
    for (build, clients), tps_values in figures.items():
        for repetition, tps in enumerate(tps_values, start=first_repetition):
            succeeded_trial(study, build, scenario, clients, repetition, tps, latency_avg_ms=1000 / tps, point=False)
    points_refresh(study_id=study.pk)


def measured_results(figures: dict[tuple, list[float]], baseline: Build | None) -> list[Point]:
    """The results of a measured study with a succeeded trial per TPS of figures {(build, scenario, clients[,
    conditions]): [tps, ...]}: its points as the store computes them, compared with the baseline as pages get them."""
    study = StudyFactory(baseline=baseline)
    repetitions = count(1)
    for (build, scenario, clients, *conditions), tps_values in figures.items():
        for tps in tps_values:
            succeeded_trial(
                study, build, scenario, clients, next(repetitions), tps, conditions="".join(conditions), point=False
            )
    points_refresh(study_id=study.pk)
    return study_results(study)


def trial_spec_on(host: HostSpec) -> TrialSpec:
    """The spec of a trial on host (pgbench there too) that no test means to reach pgbench: one that must be refused
    before it touches anything."""
    return TrialSpec(
        trial_id=1,
        study_id=1,
        db_host=host,
        client_host=host,
        build=BuildSpec(name="15", kind="installed", bin_dir="/usr/lib/postgresql/15/bin"),
        scenario=ScenarioSpec(slug="s", builtin="select-only"),
        clients=1,
        threads=1,
        duration_s=1,
    )
