"""What the API's operations take: numbers within the store's ranges, and only the query parameters they name.

PostgreSQL answers a number past its column's type, or a NUL byte in text, with an error, which would be a 500:
both are refused before any query, as a 400 that names the parameter (api/errors.py). So is a query parameter
that the operation does not know: a misspelt filter would otherwise be ignored, and the answer look complete.
"""

from collections.abc import Callable, Iterable
from functools import wraps
from typing import Annotated, Any

from annotated_types import Interval
from django.http import HttpRequest
from django.utils.translation import gettext as _
from ninja import Router
from ninja.errors import HttpError
from ninja.signature import ViewSignature

MAX_BIGINT = 2**63 - 1
MAX_INTEGER = 2**31 - 1
MAX_SMALLINT = 2**15 - 1

RowId = Annotated[int, Interval(ge=1, le=MAX_BIGINT)]
Offset = Annotated[int, Interval(ge=0, le=MAX_BIGINT)]
Clients = Annotated[int, Interval(ge=1, le=MAX_INTEGER)]
Year = Annotated[int, Interval(ge=0, le=MAX_SMALLINT)]


class CheckedRouter(Router):
    """A router whose every operation refuses a query parameter it does not know, and a NUL byte in its path or
    query, with a 400."""

    def add_api_operation(self, path: str, methods: list[str], view_func: Callable[..., Any], **kwargs: Any) -> None:
        super().add_api_operation(path, methods, _checked(path, view_func), **kwargs)


def _checked(path: str, view_func: Callable[..., Any]) -> Callable[..., Any]:
    known = _query_names(path, view_func)

    @wraps(view_func)
    def checked(request: HttpRequest, *args: Any, **kwargs: Any) -> Any:
        refuse_bad_query(request, known)
        return view_func(request, *args, **kwargs)

    return checked


def _query_names(path: str, view_func: Callable[..., Any]) -> list[str]:
    """The names ninja reads from the query string for this operation, in the order of its signature."""
    models = ViewSignature(path, view_func).models
    return [name for model in models if model.__ninja_param_source__ == "query" for name in _flat_names(model)]


def _flat_names(model: Any) -> Iterable[str]:
    return getattr(model, "__ninja_flatten_map__", None) or model.model_fields


def refuse_bad_query(request: HttpRequest, known: list[str]) -> None:
    """Raise HttpError(400) for a NUL byte in the path or the query, or a query parameter not in `known`."""
    values = [value for _name, values in request.GET.lists() for value in values]
    if any("\x00" in text for text in (request.path, *request.GET.keys(), *values)):
        raise HttpError(400, _("a NUL byte is not allowed in a path or query"))
    unknown = [name for name in request.GET if name not in known]
    if unknown:
        names = {"unknown": ", ".join(unknown), "known": ", ".join(known) or _("none")}
        raise HttpError(400, _("unknown query parameter: %(unknown)s (this endpoint knows %(known)s)") % names)
