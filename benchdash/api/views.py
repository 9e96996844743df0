"""A member's API tokens page: make a token (shown once), see and revoke one's own."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import User
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from benchdash.api.forms import TokenForm
from benchdash.api.models import ApiToken
from benchdash.api.tokens import issue_token, revoke_token


@login_required
def tokens(request: HttpRequest) -> HttpResponse:
    member: User = request.user  # type: ignore[assignment]  # login_required
    form, new_token = TokenForm(request.POST or None), None
    if request.method == "POST" and form.is_valid():
        _row, new_token = issue_token(member, form.cleaned_data["name"])
        form = TokenForm()
    rows = ApiToken.objects.filter(user=member)
    return render(request, "api/tokens.html", {"form": form, "tokens": rows, "new_token": new_token})


@login_required
@require_POST
def token_revoke(request: HttpRequest, pk: int) -> HttpResponse:
    member: User = request.user  # type: ignore[assignment]  # login_required
    if revoke_token(member, pk):
        messages.success(request, _("The token is revoked: scripts that use it are refused from now on."))
    else:
        messages.error(request, _("No such token of yours, or it was revoked already."))
    return redirect("api_tokens")
