"""The study list's filters: by scenario, by major version, by whether a study counts in the trends, by kind."""

from typing import Any

from django import forms
from django.db.models import Exists, OuterRef, QuerySet
from django.utils.translation import gettext_lazy as _

from benchdash.inventory.models import Build, major_version, version_sort_key
from benchdash.studies.models import Scenario, Study

ALL = [("", _("all"))]
OFFICIAL_CHOICES = ALL + [("official", _("official: counts in the trends")), ("unofficial", _("not official"))]


class StudyFilterForm(forms.Form):
    """GET parameters of /studies/; a value it does not know is ignored (shows every study)."""

    scenario = forms.ChoiceField(label=_("scenario"), required=False)
    version = forms.ChoiceField(label=_("version"), required=False)
    trends = forms.ChoiceField(label=_("trends"), choices=OFFICIAL_CHOICES, required=False)
    kind = forms.ChoiceField(label=_("kind"), choices=ALL + list(Study.Kind.choices), required=False)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        studied = Scenario.objects.filter(Exists(Study.scenarios.through.objects.filter(scenario=OuterRef("pk"))))
        studied = studied.order_by("slug")
        scenario, version = self.fields["scenario"], self.fields["version"]
        assert isinstance(scenario, forms.ChoiceField) and isinstance(version, forms.ChoiceField)
        scenario.choices = ALL + [(slug, slug) for slug in studied.values_list("slug", flat=True)]
        version.choices = ALL + [(major, major) for major in studied_majors()]

    def filter(self, studies: QuerySet[Study]) -> QuerySet[Study]:
        """The studies the valid choices select; all of them when the form is unbound or invalid."""
        if not self.is_bound or not self.is_valid():
            return studies
        chosen = self.cleaned_data
        if chosen["scenario"]:
            studies = studies.filter(pk__in=Study.objects.filter(scenarios__slug=chosen["scenario"]).values("pk"))
        if chosen["version"]:
            builds = [build.pk for build in Build.objects.all() if build.major == chosen["version"]]
            studies = studies.filter(pk__in=Study.objects.filter(builds__in=builds).values("pk"))
        if chosen["trends"]:
            studies = studies.filter(official=chosen["trends"] == "official")
        if chosen["kind"]:
            studies = studies.filter(kind=chosen["kind"])
        return studies


def studied_majors() -> list[str]:
    """The major versions some study has a build of, oldest first."""
    # EXISTS, not a join made distinct: one index probe per build, whatever the number of studies (100,000).
    studied = Build.objects.filter(Exists(Study.builds.through.objects.filter(build=OuterRef("pk"))))
    versions = studied.values_list("version", flat=True)
    return sorted({major_version(version) for version in versions}, key=version_sort_key)
