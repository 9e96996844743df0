from django.urls import path

from benchdash.reports import embed_views as views
from benchdash.reports.embed_registry import CHARTS

# Stable addresses, for a wiki or a slide deck: per chart of the registry, <route>.png, <route>.svg and the iframe
# page <route>/ (each with ?lang=ja|en, ?zoom=x0,x1,y0,y1, and the chart's own state: /embed/compare.png?a=...&b=...).
app_name = "embeds"
urlpatterns = [
    pattern
    for chart in CHARTS
    for pattern in (
        path(f"{chart.route}.png", views.chart_image, {"chart": chart, "extension": "png"}, name=f"{chart.name}_png"),
        path(f"{chart.route}.svg", views.chart_image, {"chart": chart, "extension": "svg"}, name=f"{chart.name}_svg"),
        path(f"{chart.route}/", views.chart_frame, {"chart": chart}, name=f"{chart.name}_frame"),
    )
]
