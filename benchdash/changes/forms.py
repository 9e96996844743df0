from django import forms
from django.utils.translation import gettext_lazy as _

from benchdash.changes.bisects import BisectRefused, minors_between
from benchdash.changes.models import Acknowledgement
from benchdash.changes.sides import BadRef, CompareSide, compare_side
from benchdash.inventory.models import Build
from benchdash.studies.models import Scenario, Study


class AcknowledgeForm(forms.ModelForm):
    """Known (a note or a link says what it is) or noise."""

    # A link given without its scheme is read as https, as Django 6 will read every one.
    link = forms.URLField(label=_("link"), required=False, assume_scheme="https")

    class Meta:
        model = Acknowledgement
        fields = ["kind", "note", "link"]
        widgets = {"note": forms.Textarea(attrs={"rows": 2})}

    def clean(self) -> dict:
        data = super().clean() or {}
        if data.get("kind") == Acknowledgement.Kind.KNOWN and not (data.get("note") or data.get("link")):
            raise forms.ValidationError(_("Say what the change is: a note or a link."))
        return data


class BisectForm(forms.Form):
    """Two builds of one major (the registered minors between them are the bisect's), and the design to run."""

    first = forms.ModelChoiceField(label=_("before the change"), queryset=Build.objects.runnable())
    last = forms.ModelChoiceField(label=_("after the change"), queryset=Build.objects.runnable())
    template = forms.ModelChoiceField(
        label=_("design from"), queryset=Study.objects.filter(kind=Study.Kind.MEASURED).order_by("-pk")
    )
    scenario = forms.ModelChoiceField(label=_("scenario"), queryset=Scenario.objects.order_by("slug"))
    clients = forms.IntegerField(label=_("clients"), min_value=1)

    def clean(self) -> dict:
        data = super().clean() or {}
        first, last = data.get("first"), data.get("last")
        if first and last:
            try:
                data["builds"] = minors_between(first, last)
            except BisectRefused as error:
                raise forms.ValidationError(_("The two builds must be of one major.")) from error
            if first.version_sort >= last.version_sort:
                raise forms.ValidationError(_("The build before the change must be the older one."))
        return data


class CompareForm(forms.Form):
    """Two refs from the address (`/compare/?a=...&b=...`), each turned into the side it names (changes/sides.py)."""

    a = forms.CharField(label="a", max_length=80)
    b = forms.CharField(label="b", max_length=80)

    def clean_a(self) -> CompareSide:
        return _side_of(self.cleaned_data["a"])

    def clean_b(self) -> CompareSide:
        return _side_of(self.cleaned_data["b"])


def _side_of(ref: str) -> CompareSide:
    try:
        return compare_side(ref)
    except BadRef as bad:
        raise forms.ValidationError(f"{ref}: {bad}") from bad
