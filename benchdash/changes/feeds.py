"""The Atom feed of new changes in official series: what a member subscribes to."""

from __future__ import annotations

from django.contrib.syndication.views import Feed
from django.db.models import QuerySet
from django.urls import reverse, reverse_lazy
from django.utils.feedgenerator import Atom1Feed
from django.utils.translation import gettext_lazy as _

from benchdash.changes.models import ChangePoint

FEED_ITEMS = 50


def new_official_changes() -> QuerySet[ChangePoint]:
    return ChangePoint.objects.new().filter(official=True).order_by("-found_at", "pk")


class NewChangesFeed(Feed):
    feed_type = Atom1Feed
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

    def item_pubdate(self, item: ChangePoint):
        return item.found_at
