"""The read API, version 1: /api/v1/ (docs/API.md). GET only; every operation follows api/access.py."""

from ninja import NinjaAPI
from ninja.openapi.docs import ABS_TPL_PATH, Swagger

from benchdash.api.access import ReadAccess
from benchdash.api.errors import install_error_handlers
from benchdash.api.routes import inventory, studies, trends


class SiteSwagger(Swagger):
    """The Swagger page with the Swagger UI that this site serves (ninja's static files, settings.py), where ninja
    would take it from a CDN because "ninja" is not an installed app: its own page, read as a template."""

    template_cdn = str(ABS_TPL_PATH / "swagger.html")


api = NinjaAPI(
    title="benchdash read API",
    version="1",
    description=(
        "The figures of benchdash for scripts and notebooks: hosts, builds, scenarios, studies, trials, points, the "
        "chained version index and its links, evidence summaries. Read only. Every list is paged (limit, offset). "
        "Anonymous requests are answered only where the site's public read is on; otherwise log in, or send a "
        "member's token as `Authorization: Bearer bd_...` (made on the member's API tokens page)."
    ),
    urls_namespace="api-v1",
    auth=ReadAccess(),
    docs=SiteSwagger(),
)
install_error_handlers(api)
api.add_router("", inventory.router)
api.add_router("", studies.router)
api.add_router("", trends.router)
