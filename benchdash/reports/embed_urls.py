from django.urls import path

from benchdash.reports import embed_views as views

# Stable addresses, for a wiki or a slide deck: /embed/studies/12/pgbench-select-only.png, /embed/trends/<slug>.svg,
# and the iframe pages /embed/studies/12/<slug>/, /embed/trends/<slug>/ (each with ?lang=ja|en).
app_name = "embeds"
urlpatterns = [
    path("studies/<int:pk>/<slug:scenario>.png", views.study_chart_image, {"extension": "png"}, name="study_png"),
    path("studies/<int:pk>/<slug:scenario>.svg", views.study_chart_image, {"extension": "svg"}, name="study_svg"),
    path("studies/<int:pk>/<slug:scenario>/", views.study_chart_frame, name="study_frame"),
    path("trends/<slug:scenario>.png", views.trend_chart_image, {"extension": "png"}, name="trend_png"),
    path("trends/<slug:scenario>.svg", views.trend_chart_image, {"extension": "svg"}, name="trend_svg"),
    path("trends/<slug:scenario>/", views.trend_chart_frame, name="trend_frame"),
]
