"""Every list of the API comes in pages: `limit` (1 to 500, 100 by default) items from `offset`, and the `count`."""

from ninja import Field, Schema
from ninja.pagination import LimitOffsetPagination

MAX_LIMIT = 500
DEFAULT_LIMIT = 100


class Page(LimitOffsetPagination):
    class Input(Schema):
        limit: int = Field(DEFAULT_LIMIT, ge=1, le=MAX_LIMIT, description="How many items, at most 500.")
        offset: int = Field(0, ge=0, description="How many items to skip.")

    def __init__(self, **kwargs: object) -> None:
        super().__init__(max_limit=MAX_LIMIT, **kwargs)  # type: ignore[arg-type]
