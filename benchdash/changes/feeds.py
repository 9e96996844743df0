"""The Atom feed of new changes in official series: what a member subscribes to.

A feed reader holds no session: besides the pages' rule (anyone with public read, else a logged-in member), the
feed takes a member's API token as `Authorization: Bearer bd_...` (a token in the URL would end in logs). A token
that is given must be good.
"""

from __future__ import annotations

from datetime import datetime

from django.contrib.auth.decorators import login_not_required
from django.contrib.syndication.views import Feed
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse
from django.urls import reverse, reverse_lazy
from django.utils.feedgenerator import Atom1Feed
from django.utils.translation import gettext_lazy as _

from benchdash.api.tokens import reader_allowed, unauthorized
from benchdash.changes.models import ChangePoint

FEED_ITEMS = 50


def new_official_changes() -> QuerySet[ChangePoint]:
    return ChangePoint.objects.new().filter(official=True).order_by("-found_at", "pk")


@login_not_required
def feed_view(request: HttpRequest) -> HttpResponse:
    """The feed for a reader allowed by the module's rule; 401 with the scheme to use otherwise."""
    if not reader_allowed(request):
        return unauthorized()
    return NewChangesFeed()(request)


class NewChangesFeed(Feed):
    """Valid by RFC 4287: Atom1Feed writes the feed's id, title, updated and links, each entry's id, title and
    alternate link; an entry's updated is when the change was first found (Django writes none from a pubdate alone),
    and the feed names its author (else every entry must)."""

    feed_type = Atom1Feed
    author_name = "benchdash"
    title = _("benchdash: new changes in official series")
    subtitle = _("Change points found in the official trends and official studies, not yet acknowledged.")
    link = reverse_lazy("changes:list")

    def items(self) -> QuerySet[ChangePoint]:
        return new_official_changes()[:FEED_ITEMS]

    def item_title(self, item: ChangePoint) -> str:
        return f"{item.series_title}: {item.before_label} → {item.after_label} {item.size_percent}"

    def item_description(self, item: ChangePoint) -> str:
        return str(
            _("Level %(before).1f → %(after).1f (%(size)s), confidence %(confidence)s.")
            % {
                "before": item.mean_before,
                "after": item.mean_after,
                "size": item.size_percent,
                "confidence": item.confidence_percent,
            }
        )

    def item_link(self, item: ChangePoint) -> str:
        return reverse("changes:detail", args=[item.pk])

    def item_pubdate(self, item: ChangePoint) -> datetime:
        return item.found_at

    def item_updateddate(self, item: ChangePoint) -> datetime:
        return item.found_at
