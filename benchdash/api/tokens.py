"""Making, checking and revoking API tokens (models.ApiToken): the token is shown once, only its digest is kept."""

import hashlib
import secrets
from datetime import timedelta

from django.conf import settings
from django.contrib.auth.models import User
from django.http import HttpRequest, HttpResponse
from django.utils import timezone

from benchdash.api.models import ApiToken

TOKEN_PREFIX = "bd_"  # noqa: S105 (the mark of our tokens, not a secret)
SHOWN_CHARACTERS = 8
# last_used_at is a hint for the member, not an audit log: one write a minute per token at most.
LAST_USED_RESOLUTION = timedelta(minutes=1)


def digest_of(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def issue_token(user: User, name: str) -> tuple[ApiToken, str]:
    """A new token for `user`: the saved row and the token itself, which is never stored and cannot be shown again."""
    token = TOKEN_PREFIX + secrets.token_urlsafe(32)
    row = ApiToken.objects.create(
        user=user, name=name, prefix=token[: len(TOKEN_PREFIX) + SHOWN_CHARACTERS], digest=digest_of(token)
    )
    return row, token


def token_user(token: str) -> User | None:
    """The active member a usable token belongs to, or None."""
    row = ApiToken.objects.usable().select_related("user").filter(digest=digest_of(token)).first()
    if row is None:
        return None
    now = timezone.now()
    if row.last_used_at is None or now - row.last_used_at > LAST_USED_RESOLUTION:
        ApiToken.objects.filter(pk=row.pk).update(last_used_at=now)
    return row.user


def revoke_token(user: User, token_id: int) -> bool:
    """Revoke one of `user`'s own tokens; False when it is not theirs or already revoked."""
    revoked = ApiToken.objects.filter(pk=token_id, user=user, revoked_at__isnull=True).update(revoked_at=timezone.now())
    return revoked == 1


def reader_allowed(request: HttpRequest) -> bool:
    """For a reader that cannot follow a login page (a feed reader, a wiki fetching an embedded image): the pages'
    rule (anyone with public read, else a logged-in member), or a member's token as `Authorization: Bearer bd_...`
    (a token in the URL would end in logs). A token that is given must be good."""
    header = request.headers.get("Authorization", "")
    if header:
        scheme, _space, token = header.partition(" ")
        return scheme.lower() == "bearer" and token_user(token.strip()) is not None
    return bool(settings.PUBLIC_READ or request.user.is_authenticated)


def unauthorized() -> HttpResponse:
    """401 with the scheme to use: such a reader is told what to send rather than sent to a login page."""
    response = HttpResponse("a member's session or API token (Authorization: Bearer bd_...) is needed", status=401)
    response["WWW-Authenticate"] = "Bearer"
    return response
