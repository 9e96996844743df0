"""The new-study form on a cloud template: the study's form without hosts (its instances are made for it), its
template instead, and the preview's instances, time and cost, refused over the administrator's budgets."""

from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from benchdash.cloud.budget import CloudEstimate, budget_refusals, estimate
from benchdash.cloud.models import CloudTemplate
from benchdash.inventory.models import Host
from benchdash.studies.forms import StudyForm


class CloudStudyForm(StudyForm):
    template = forms.ModelChoiceField(
        label=_("cloud host template"),
        queryset=CloudTemplate.objects.all(),
        help_text=_("The study's machines are made from it, and terminated when the study ends."),
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        del self.fields["db_host"], self.fields["client_host"]
        self.order_fields(["title", "year", "template"])

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean()
        if self.errors or "template" not in cleaned:
            return cleaned
        for refusal in budget_refusals(cleaned["template"], self.cloud_estimate()):
            self.add_error("template", refusal)
        return cleaned

    def cloud_estimate(self) -> CloudEstimate:
        return estimate(self.cleaned_data["template"], self.estimated_seconds())

    def preview(self) -> dict[str, Any]:
        return {**super().preview(), "cloud": self.cloud_estimate()}

    def preview_host(self) -> Host:
        """A DB host as the template will make it (not saved): its kind gives the preview the history of the
        template's earlier instances."""
        template = self.cleaned_data["template"]
        return Host(cloud_instance_type=template.db_instance_type, cloud_image=template.image_id)
