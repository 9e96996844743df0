from django.contrib.auth.decorators import login_not_required
from django.urls import URLPattern, URLResolver, path

from benchdash.api import views
from benchdash.api.v1 import api

# Its schema, documentation and root pages follow the pages' rule (benchdash.access): with public read off, log in.
API_PAGES = {"openapi-json", "openapi-view", "api-root"}


def _answered_by_the_api(patterns: list[URLPattern | URLResolver]) -> list[URLPattern | URLResolver]:
    """The API's operations decide access themselves (api/access.py: tokens too) and answer 401 in JSON, so the
    site's login redirect (LoginRequiredUnlessPublicRead) steps aside for them."""
    for pattern in patterns:
        if isinstance(pattern, URLPattern) and pattern.name not in API_PAGES:
            login_not_required(pattern.callback)
    return patterns


v1_patterns, v1_app, v1_namespace = api.urls
urlpatterns = [
    path("api/v1/", (_answered_by_the_api(v1_patterns), v1_app, v1_namespace)),
    path("accounts/api-tokens/", views.tokens, name="api_tokens"),
    path("accounts/api-tokens/<int:pk>/revoke/", views.token_revoke, name="api_token_revoke"),
]
