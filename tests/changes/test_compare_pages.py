"""The comparison page (issue 43, point 2): any two lines of any studies side by side at `/compare/?a=...&b=...`,
its figures, ratio, chart and evidence differences from real store rows; a bad ref answers 400 naming its parameter."""

import re

import pytest
from django.urls import reverse

from benchdash.changes.models import ChangePoint
from benchdash.studies.models import Study, Trial, TrialEvidence, Variant
from benchdash.studies.results.store import points_refresh
from tests.changes.test_change_pages import figure, official_change  # noqa: F401 (a fixture)
from tests.factories import BuildFactory, ScenarioFactory, StudyFactory, succeeded_runs, succeeded_trial

pytestmark = pytest.mark.django_db


@pytest.fixture
def two_studies():
    """The same build and scenario measured in two studies, b about 20% faster, each with its server settings."""
    scenario = ScenarioFactory(slug="select-only", name="select only")
    old, new = BuildFactory(version="16.4", name="PostgreSQL 16.4"), BuildFactory(version="17.0", name="PostgreSQL 17")
    studies = []
    for title, tps, buffers in (("first", [100.0, 102.0, 104.0], "128MB"), ("second", [120.0, 122.0, 124.0], "1GB")):
        study = StudyFactory(title=title, builds=[old, new], baseline=old, scenarios=[scenario], client_levels=[1, 2])
        succeeded_runs(study, scenario, {(old, 1): tps, (old, 2): tps, (new, 1): tps})
        study.trials.update(server_settings={"shared_buffers": buffers})
        studies.append(study)
    return studies[0], studies[1], old, new, scenario


def compare(client, a: str, b: str, language: str = "en"):
    return client.get(reverse("compare:sides"), {"a": a, "b": b}, HTTP_ACCEPT_LANGUAGE=language)


def test_two_studies_side_by_side_give_each_figure_and_the_ratio_of_b_to_a_with_its_verdict(client, two_studies):
    first, second, _old, _new, _scenario = two_studies

    response = compare(client, f"study:{first.pk}", f"study:{second.pk}")

    assert response.status_code == 200
    rows = response.context["page"].rows
    assert [(row.clients, row.a.figure, row.b.figure) for row in rows] == [(1, 102.0, 122.0), (2, 102.0, 122.0)]
    assert rows[0].b.ratio == pytest.approx(122.0 / 102.0)
    assert rows[0].b.interval is not None and rows[0].b.verdict is not None
    assert "120%" in response.content.decode()


def test_the_chart_draws_both_sides_curves_a_first(client, two_studies):
    first, second, old, _new, _scenario = two_studies

    page = compare(client, f"study:{first.pk}/line:{old.pk}", f"study:{second.pk}/line:{old.pk}").content.decode()

    traces = figure(page, "compare-chart")["data"]
    assert [trace["name"] for trace in traces] == [
        f"a: {first} · PostgreSQL 16.4",
        f"b: {second} · PostgreSQL 16.4",
    ]
    assert [trace["y"] for trace in traces] == [[102.0, 102.0], [122.0, 122.0]]


def test_a_line_a_build_and_a_variant_each_name_their_side(client, two_studies):
    first, second, old, new, _scenario = two_studies
    variant = second.variants.get(build=old)

    page = compare(client, f"study:{first.pk}/line:{new.pk}", f"variant:{variant.pk}").context["page"]
    assert (page.a.study, page.a.line.label, page.b.study, page.b.line.label) == (
        first, "PostgreSQL 17", second, "PostgreSQL 16.4"
    )  # fmt: skip
    newest = compare(client, f"build:{new.pk}", f"study:{first.pk}").context["page"]
    assert (newest.a.study, newest.a.line.label) == (second, "PostgreSQL 17")
    assert [row.b.ratio for row in newest.rows if row.a and row.b] == [pytest.approx(102.0 / 122.0)]


def test_the_evidence_differences_name_the_setting_that_differs(client, two_studies):
    first, second, _old, _new, _scenario = two_studies

    page = compare(client, f"study:{first.pk}", f"study:{second.pk}").context["page"]

    (difference,) = page.evidence
    assert difference.clients == 2
    assert [(item.name, item.before, item.after) for item in difference.moved] == [("shared_buffers", "128MB", "1GB")]


@pytest.mark.parametrize(
    ("a", "b", "named"),
    [
        ("nonsense", "study:{first}", "a"),
        ("study:{first}", "", "b"),
        ("study:{first}", "study:999999999", "b"),
        ("study:{first}/line:999999999", "study:{second}", "a"),
        ("build:999999999", "variant:999999999", "a b"),
        ("study:{first}; rm -rf /", "study:{second}", "a"),
    ],
)
def test_a_bad_ref_answers_400_naming_its_parameter_and_nothing_else(client, two_studies, a, b, named):
    first, second, *_rest = two_studies
    counts = (Study.objects.count(), Trial.objects.count())

    response = compare(client, a.format(first=first.pk, second=second.pk), b.format(first=first.pk, second=second.pk))

    assert response.status_code == 400
    page = response.content.decode()
    assert sorted(re.findall(r'data-parameter="(\w)"', page)) == named.split()
    assert 'id="compare-table"' not in page
    assert (Study.objects.count(), Trial.objects.count()) == counts


def test_the_study_page_offers_to_compare_with_another_study(client, two_studies):
    first, second, *_rest = two_studies

    page = client.get(reverse("studies:detail", args=[first.pk])).content.decode()

    assert f'name="a" value="study:{first.pk}"' in page
    assert f'<option value="study:{second.pk}">' in page
    assert f'<option value="study:{first.pk}">' not in page


def test_the_change_page_links_its_two_sides_side_by_side(client, member, official_change: ChangePoint):  # noqa: F811
    page = client.get(reverse("changes:detail", args=[official_change.pk])).content.decode()

    link = re.search(r'href="([^"]+)" id="compare-sides"', page)
    assert link, "no link to the comparison"
    response = client.get(link.group(1).replace("&amp;", "&"))
    assert response.status_code == 200
    compared = response.context["page"]
    assert (compared.a.study, compared.b.study) == (official_change.before_study, official_change.after_study)


def test_the_evidence_table_names_the_sides_a_and_b(client, two_studies):
    first, second, *_rest = two_studies

    page = compare(client, f"study:{first.pk}", f"study:{second.pk}").content.decode()

    evidence = page[page.index('id="evidence-differences"') :]
    assert '<th class="num">a</th><th class="num">b</th>' in evidence
    assert "<td>shared_buffers</td>" in evidence


def test_the_evidence_column_names_what_moved_in_the_page_s_language_not_by_its_code(client, two_studies):
    first, second, *_rest = two_studies

    page = compare(client, f"study:{first.pk}", f"study:{second.pk}", language="ja").content.decode()

    evidence = page[page.index('id="evidence-differences"') :]
    assert "<tr><td>設定</td><td>shared_buffers</td>" in evidence
    assert "<td>setting</td>" not in evidence


def test_two_variants_of_one_build_side_by_side_each_keep_their_own_evidence(client):
    """Evidence is keyed by the side (build and variant): each variant's settings and CPU, never the build's mix."""
    build, scenario = BuildFactory(name="pg16", version="16.4"), ScenarioFactory(slug="select-only")
    study = StudyFactory(builds=[build], baseline=build, scenarios=[scenario], client_levels=[1])
    small = Variant.objects.get(study=study)
    Variant.objects.filter(pk=small.pk).update(label="pg16 sb=128MB", pg_settings={"shared_buffers": "128MB"})
    large = Variant.objects.create(
        study=study, build=build, label="pg16 sb=1GB", pg_settings={"shared_buffers": "1GB"}, position=1
    )
    for variant, buffers, user in ((small, "128MB", 40.0), (large, "1GB", 70.0)):
        for repetition, tps in enumerate((100.0, 101.0, 102.0), start=1):
            trial = succeeded_trial(
                study, build, scenario, 1, repetition, tps, variant=variant, server_settings={"shared_buffers": buffers}
            )
            TrialEvidence.objects.create(
                trial=trial, cpu_user=user, cpu_system=10.0, cpu_iowait=0.0, cpu_idle=90 - user
            )
    points_refresh(study_id=study.pk)

    page = compare(client, f"variant:{small.pk}", f"variant:{large.pk}").context["page"]

    (difference,) = page.evidence
    moved = {(item.evidence, item.name): (item.before, item.after) for item in difference.moved}
    assert moved[("setting", "shared_buffers")] == ("128MB", "1GB")
    assert moved[("cpu", "user")] == (40.0, 70.0)


def test_sides_whose_trials_left_no_evidence_say_so(client, two_studies):
    first, second, *_rest = two_studies
    Trial.objects.update(server_settings={})

    page = compare(client, f"study:{first.pk}", f"study:{second.pk}").content.decode()

    assert "Neither side's trials left any evidence here" in page


def test_with_public_read_off_a_visitor_logs_in_first_and_a_member_reads_it(client, two_studies, settings, member):
    first, second, *_rest = two_studies
    settings.PUBLIC_READ = False
    client.logout()

    refused = compare(client, f"study:{first.pk}", f"study:{second.pk}")
    client.force_login(member)
    read = compare(client, f"study:{first.pk}", f"study:{second.pk}")

    assert refused.status_code == 302 and refused.url.startswith(reverse("login"))
    assert read.status_code == 200


@pytest.mark.parametrize("page", ["trends:index", "studies:detail", "compare:sides"])
def test_the_pages_with_charts_offer_to_copy_their_link(client, two_studies, page):
    first, second, *_rest = two_studies
    arguments = {"studies:detail": [first.pk]}.get(page, [])
    query = {"a": f"study:{first.pk}", "b": f"study:{second.pk}"} if page == "compare:sides" else {}

    response = client.get(reverse(page, args=arguments), query)

    assert response.status_code == 200
    assert response.content.decode().count("data-copy-link") == 1
