"""Who may read the API: the pages' rule (benchdash/access.py), with tokens for scripts.

Anyone when PUBLIC_READ is on; otherwise a logged-in member (the session of the pages) or a member's token
(`Authorization: Bearer bd_...`). A token that is given must be good, whatever PUBLIC_READ says: a script
with a revoked token hears so instead of reading as anonymous.
"""

from typing import Any

from django.conf import settings
from django.contrib.auth.models import AnonymousUser
from django.http import HttpRequest
from ninja.security import HttpBearer

from benchdash.api.tokens import token_user


class ReadAccess(HttpBearer):
    """ninja's bearer scheme (so that the schema documents it), widened to sessions and public read."""

    def __call__(self, request: HttpRequest) -> Any | None:
        if request.headers.get(self.header):
            return super().__call__(request)
        if request.user.is_authenticated:
            return request.user
        return AnonymousUser() if settings.PUBLIC_READ else None

    def authenticate(self, request: HttpRequest, token: str) -> Any | None:
        return token_user(token)
