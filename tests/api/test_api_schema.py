"""The OpenAPI schema is valid, documents every endpoint as GET only with the bearer scheme, and every list is paged."""

import re

from django.contrib.staticfiles import finders
from django.urls import URLPattern
from openapi_spec_validator import validate

from benchdash.api.urls import API_PAGES, v1_patterns

ENDPOINTS = {
    "/api/v1/hosts",
    "/api/v1/hosts/{host_id}",
    "/api/v1/builds",
    "/api/v1/builds/{build_id}",
    "/api/v1/scenarios",
    "/api/v1/scenarios/{slug}",
    "/api/v1/studies",
    "/api/v1/studies/{study_id}",
    "/api/v1/studies/{study_id}/trials",
    "/api/v1/studies/{study_id}/points",
    "/api/v1/studies/{study_id}/comparisons",
    "/api/v1/studies/{study_id}/evidence",
    "/api/v1/trials/{trial_id}",
    "/api/v1/trials/{trial_id}/evidence",
    "/api/v1/trends",
    "/api/v1/trends/{slug}",
    "/api/v1/trends/{slug}/links",
}


def schema(client) -> dict:
    response = client.get("/api/v1/openapi.json")
    assert response.status_code == 200
    return response.json()


def test_the_schema_is_valid_openapi(client, db: None) -> None:
    document = schema(client)
    validate(document)
    assert document["openapi"].startswith("3.") and document["info"]["version"] == "1"


def test_the_schema_lists_every_endpoint_get_only(client, db: None) -> None:
    paths = schema(client)["paths"]
    routed = [pattern for pattern in v1_patterns if isinstance(pattern, URLPattern) and pattern.name not in API_PAGES]

    assert set(paths) == ENDPOINTS and len(routed) == len(ENDPOINTS)
    assert all(set(operations) == {"get"} for operations in paths.values())


def test_every_operation_asks_for_the_bearer_scheme_and_lists_are_paged(client, db: None) -> None:
    document = schema(client)

    assert document["components"]["securitySchemes"]["ReadAccess"] == {"type": "http", "scheme": "bearer"}
    for path, operations in document["paths"].items():
        operation = operations["get"]
        assert operation["security"] == [{"ReadAccess": []}], path
        parameters = {parameter["name"] for parameter in operation.get("parameters", [])}
        listed = "#/components/schemas/Paged" in str(operation["responses"]["200"])
        assert listed == ({"limit", "offset"} <= parameters), path


def test_the_documentation_page_uses_this_site_s_own_swagger_ui(client, db: None) -> None:
    response = client.get("/api/v1/docs")
    page = response.content.decode()
    assert response.status_code == 200 and '<div id="swagger-ui">' in page
    assert "https://" not in page  # nothing from a CDN: the page works where the members' network is closed
    files = re.findall(r'(?:src|href)="/static/(ninja/[^"]+)"', page)
    assert {"ninja/swagger-ui.css", "ninja/swagger-ui-bundle.js", "ninja/swagger-ui-init.js"} <= set(files)
    assert all(finders.find(name) for name in files)  # collectstatic gathers them for the web server
