"""Every list of the API comes in pages: `limit` (1 to 500, 100 by default) items from `offset`, and the `count`."""

from typing import Any

from django.db.models import QuerySet
from django.http import HttpRequest
from ninja import Field, Schema
from ninja.pagination import LimitOffsetPagination

from benchdash.api.params import Offset

MAX_LIMIT = 500
DEFAULT_LIMIT = 100


class Page(LimitOffsetPagination):
    class Input(Schema):
        limit: int = Field(DEFAULT_LIMIT, ge=1, le=MAX_LIMIT, description="How many items, at most 500.")
        offset: Offset = Field(0, description="How many items to skip.")

    def __init__(self, **kwargs: object) -> None:
        super().__init__(max_limit=MAX_LIMIT, **kwargs)  # type: ignore[arg-type]

    def paginate_queryset(
        self, queryset: QuerySet[Any] | list[Any], pagination: Any, request: HttpRequest, **params: Any
    ) -> Any:
        """A queryset's page is found by its keys first, then read: where an index serves the order (a study's
        trials: api_trial_page_idx) a deep offset skips index entries, not whole rows."""
        if not isinstance(queryset, QuerySet):  # a list: ninja slices it
            return super().paginate_queryset(queryset, pagination, request, **params)  # type: ignore[arg-type]
        start = pagination.offset
        keys = list(queryset.values_list("pk", flat=True)[start : start + min(pagination.limit, MAX_LIMIT)])
        return {"items": queryset.filter(pk__in=keys), "count": queryset.count()}
