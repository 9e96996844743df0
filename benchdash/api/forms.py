from django import forms
from django.utils.translation import gettext_lazy as _

from benchdash.api.models import ApiToken


class TokenForm(forms.ModelForm):
    class Meta:
        model = ApiToken
        fields = ["name"]
        help_texts = {"name": _("What the token is for, e.g. 'yearly report notebook'.")}
