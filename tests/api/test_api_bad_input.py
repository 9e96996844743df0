"""Bad input to the read API answers 400 with a short JSON error, and a failure the site's plain 500: never a
traceback, with DEBUG on (as `make run` sets it) or off (issue 39)."""

import pytest
from django.test import Client

from tests.api.conftest import History

API = "/api/v1"
HUGE = "99999999999999999999"  # past PostgreSQL's bigint
PAGED = ["/hosts", "/builds", "/scenarios", "/studies", "/trends"]
PAGED += ["/studies/{study}/trials", "/studies/{study}/points", "/studies/{study}/evidence", "/trends/{slug}/links"]
ONE = ["/hosts/{host}", "/builds/{build}", "/scenarios/{slug}", "/studies/{study}", "/trials/{trial}"]
ONE += ["/trials/{trial}/evidence", "/trends/{slug}"]
FILTERS = {
    "/builds": [{"version": "14\x00"}],
    "/studies": [{"status": "\x00"}, {"kind": "measured\x00"}, {"year": HUGE}, {"official": "\x00"}],
    "/studies/{study}/trials": [{"status": "\x00"}, {"build_id": HUGE}, {"clients": HUGE}, {"clients": "-1"}],
}
PAGES = [{"offset": HUGE}, {"limit": HUGE}, {"offset": "-1"}, {"limit": "0"}, {"limit": "1\x00"}]
UNKNOWN = [{"surprise": "1"}, {"\x00": "1"}, {"Limit": "1"}]


def hostile_requests() -> list[tuple[str, dict[str, str]]]:
    """Every endpoint with a parameter it does not know; paged ones with bad pages; filters with bad values; and
    each id or slug in the path as a NUL byte, and each id as a number past bigint."""
    requests = [(path, params) for path in PAGED + ONE for params in UNKNOWN]
    requests += [(path, params) for path in PAGED for params in PAGES]
    requests += [(path, params) for path, filters in FILTERS.items() for params in filters]
    for path in PAGED + ONE:
        for placeholder in ("{host}", "{build}", "{study}", "{trial}", "{slug}"):
            if placeholder in path:
                requests.append((path.replace(placeholder, "%00"), {}))
                requests += [(path.replace(placeholder, HUGE), {})] if placeholder != "{slug}" else []
    return requests


def filled(path: str, history: History) -> str:
    trial = history.older.trials.order_by("pk").first()
    ids = {"host": history.host.pk, "build": history.builds["14.0"].pk, "study": history.older.pk}
    return path.format(**ids, trial=trial.pk if trial else 0, slug=history.scenario.slug)


@pytest.fixture
def history(db: None, history_of_the_module: History) -> History:
    """Made once for the module: its 250 tests read it, one wrote and rolled back (0.18 s of CPU a test to make)."""
    return history_of_the_module


@pytest.fixture
def raw_client() -> Client:
    """A client that hands back the site's answer to an error instead of raising it in the test."""
    return Client(raise_request_exception=False)


def assert_no_traceback(text: str) -> None:
    for trace in ("Traceback", 'File "', "/benchdash/", "site-packages", "line "):
        assert trace not in text


@pytest.mark.parametrize("debug", [True, False], ids=["debug-on", "debug-off"])
@pytest.mark.parametrize(("path", "params"), hostile_requests())
def test_bad_input_is_a_400_with_a_short_json_error(raw_client, history, settings, debug, path, params) -> None:
    settings.DEBUG = debug
    response = raw_client.get(f"{API}{filled(path, history)}", params)
    assert_no_traceback(response.content.decode(errors="replace"))
    assert (response.status_code, response["Content-Type"]) == (400, "application/json; charset=utf-8")
    detail = response.json()["detail"]
    assert isinstance(detail, str) and 0 < len(detail) < 300


@pytest.mark.parametrize("debug", [True, False], ids=["debug-on", "debug-off"])
def test_an_unknown_parameter_is_named_in_the_error(raw_client, history, settings, debug) -> None:
    settings.DEBUG = debug
    query = {"year": "2021", "stauts": "done", "offset": "0"}
    response = raw_client.get(f"{API}/studies", query, headers={"Accept-Language": "en"})
    assert response.status_code == 400
    assert response.json() == {
        "detail": "unknown query parameter: stauts (this endpoint knows year, kind, status, official, limit, offset)"
    }


def test_a_value_out_of_range_names_its_parameter(raw_client, history) -> None:
    response = raw_client.get(f"{API}/studies", {"offset": HUGE})
    assert response.status_code == 400
    assert response.json() == {"detail": "offset: Input should be less than or equal to 9223372036854775807"}


def test_the_site_s_own_messages_are_in_japanese_by_default(raw_client, history) -> None:
    response = raw_client.get(f"{API}/hosts/{history.host.pk}", {"surprise": "1"})
    detail = response.json()["detail"]
    assert detail == "不明なクエリパラメーター: surprise（このエンドポイントが受け付けるのは なし）"


def test_an_unknown_status_names_the_statuses(raw_client, history) -> None:
    response = raw_client.get(f"{API}/studies", {"status": "finished"})
    assert response.status_code == 400
    assert response.json()["detail"].startswith("status: ")
    assert "'done'" in response.json()["detail"]


@pytest.mark.parametrize("debug", [True, False], ids=["debug-on", "debug-off"])
def test_a_failure_is_the_sites_plain_500(raw_client, history, settings, debug) -> None:
    """A row the API cannot answer (settings stored as a list, where the schema says an object) fails inside the
    operation: the site's 500 page answers, as for any page, not ninja's traceback."""
    settings.DEBUG = debug
    history.smoke.__class__.objects.filter(pk=history.smoke.pk).update(pg_settings=["shared_buffers"])
    response = raw_client.get(f"{API}/studies/{history.smoke.pk}", headers={"Accept-Language": "en"})
    assert (response.status_code, response["Content-Type"]) == (500, "text/html; charset=utf-8")
    assert "<h1>Server error</h1>" in response.content.decode()
    assert_no_traceback(response.content.decode())
