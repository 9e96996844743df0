"""Hosts, builds and scenarios."""

from django.db.models import QuerySet
from django.http import HttpRequest
from django.shortcuts import get_object_or_404
from ninja.pagination import paginate

from benchdash.api.pagination import Page
from benchdash.api.params import CheckedRouter, RowId
from benchdash.api.schemas import BuildOut, HostOut, ScenarioOut
from benchdash.inventory.models import Build, Host
from benchdash.studies.models import Scenario

router = CheckedRouter(tags=["inventory"])


@router.get("/hosts", response=list[HostOut], summary="Hosts, by name")
@paginate(Page)
def hosts(request: HttpRequest) -> QuerySet[Host]:
    return Host.objects.order_by("name", "pk")


@router.get("/hosts/{host_id}", response=HostOut, summary="One host")
def host(request: HttpRequest, host_id: RowId) -> Host:
    return get_object_or_404(Host, pk=host_id)


@router.get("/builds", response=list[BuildOut], summary="Builds, newest version first")
@paginate(Page)
def builds(request: HttpRequest, version: str = "") -> QuerySet[Build]:
    """`version` keeps the builds of one major (`14`, `9.4`) or one minor (`14.3`)."""
    found = Build.objects.of_version(version) if version else Build.objects.all()
    return found.order_by("-version_sort", "name", "pk")


@router.get("/builds/{build_id}", response=BuildOut, summary="One build")
def build(request: HttpRequest, build_id: RowId) -> Build:
    return get_object_or_404(Build, pk=build_id)


@router.get("/scenarios", response=list[ScenarioOut], summary="Scenarios, by slug")
@paginate(Page)
def scenarios(request: HttpRequest) -> QuerySet[Scenario]:
    return Scenario.objects.order_by("slug", "pk")


@router.get("/scenarios/{slug}", response=ScenarioOut, summary="One scenario")
def scenario(request: HttpRequest, slug: str) -> Scenario:
    return get_object_or_404(Scenario, slug=slug)
