from django import forms
from django.utils.translation import gettext_lazy as _

from benchdash.changes.models import Acknowledgement


class AcknowledgeForm(forms.ModelForm):
    """Known (a note or a link says what it is) or noise."""

    class Meta:
        model = Acknowledgement
        fields = ["kind", "note", "link"]
        widgets = {"note": forms.Textarea(attrs={"rows": 2})}

    def clean(self) -> dict:
        data = super().clean() or {}
        if data.get("kind") == Acknowledgement.Kind.KNOWN and not (data.get("note") or data.get("link")):
            raise forms.ValidationError(_("Say what the change is: a note or a link."))
        return data
