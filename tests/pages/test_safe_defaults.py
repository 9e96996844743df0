"""Safe web defaults: DEBUG off unless set; with it on, a debug page only for staff on this machine; with
BENCHDASH_PUBLIC_READ off, every page but the login's sends an anonymous visitor to log in; raw files only
through the checked view."""

import os
import re
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.core.exceptions import ImproperlyConfigured
from django.test import Client
from django.urls import reverse

from benchdash.env import generated_secret
from tests.deploy_services import STORE_USER
from tests.factories import BuildFactory, HostFactory, ScenarioFactory, StudyFactory, TrialFactory
from tests.reachable import reachable_copy

REPO = Path(__file__).resolve().parents[2]
ELSEWHERE = "203.0.113.9"


def settings_in_a_fresh_process(tmp_path: Path, **env: str) -> list[str]:
    """DEBUG and the SECRET_KEY's length as settings.py makes them from this environment alone."""
    clean = {key: value for key, value in os.environ.items() if key not in ("DEBUG", "SECRET_KEY")}
    script = "from django.conf import settings; print(settings.DEBUG, len(settings.SECRET_KEY))"
    result = subprocess.run(
        [sys.executable, "-c", script],
        env={**clean, "DJANGO_SETTINGS_MODULE": "benchdash.settings", "BENCHDASH_VAR_DIR": str(tmp_path), **env},
        cwd=REPO,
        capture_output=True,
        text=True,
        check=True,
    )
    return result.stdout.split()


def test_debug_is_off_unless_set_and_the_secret_key_is_generated_into_a_private_file(tmp_path: Path) -> None:
    assert settings_in_a_fresh_process(tmp_path) == ["False", "67"]
    key_file = tmp_path / "secrets" / "secret-key"
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    assert stat.S_IMODE(key_file.parent.stat().st_mode) == 0o700
    assert settings_in_a_fresh_process(tmp_path, DEBUG="true") == ["True", "67"]
    assert settings_in_a_fresh_process(tmp_path, SECRET_KEY="k" * 60) == ["False", "60"]


def test_the_generated_secret_stays_the_same(tmp_path: Path) -> None:
    first = generated_secret(tmp_path / "secrets" / "secret-key")

    assert generated_secret(tmp_path / "secrets" / "secret-key") == first
    assert len(first) > 50


def test_a_secret_file_others_may_read_is_refused(tmp_path: Path) -> None:
    key_file = tmp_path / "secret-key"
    key_file.write_text("shared")
    key_file.chmod(0o644)

    with pytest.raises(ImproperlyConfigured) as refused:
        generated_secret(key_file)

    assert "may be read by other accounts (mode 0644)" in str(refused.value)


def test_make_run_turns_debug_on_for_development_and_runs_everything_as_the_run_user() -> None:
    makefile = (REPO / "Makefile").read_text()
    procfile = (REPO / "deploy" / "Procfile").read_text().splitlines()

    run_recipe = makefile.split("\nrun:\n", 1)[1].split("\n\n", 1)[0]
    assert "DEBUG=$${DEBUG:-true}" in run_recipe
    assert ".venv/bin/honcho --procfile deploy/Procfile" in run_recipe
    assert [line.split(":")[0] for line in procfile] == ["web", "worker", "beat"]
    assert all(line.split(": ", 1)[1].startswith("deploy/as-run-user.sh ") for line in procfile)


@pytest.mark.skipif(os.geteuid() != 0, reason="only root switches to the run user")
def test_the_run_user_wrapper_drops_root_or_says_loudly_why_it_cannot() -> None:
    """The wrapper from a copy of deploy/ beside a .venv/bin/python that links where the checkout's does: the run user
    may not reach the checkout itself (a clone in a directory only root may enter)."""
    venv_python = (REPO / ".venv" / "bin" / "python").resolve()
    with reachable_copy(STORE_USER, "deploy") as place:
        (place / ".venv" / "bin").mkdir(parents=True)
        (place / ".venv" / "bin" / "python").symlink_to(venv_python)
        wrapper = [str(place / "deploy" / "as-run-user.sh"), "id", "-u"]
        result = subprocess.run(wrapper, capture_output=True, text=True, check=True)

    if str(venv_python).startswith("/root/"):  # a pyenv Python no other account can run
        assert int(result.stdout) == 0
        assert f"WARNING: benchdash cannot run .venv/bin/python ({venv_python}): running id as root" in result.stderr
    else:
        assert int(result.stdout) != 0 and result.stderr == ""


@pytest.fixture
def debug_on(settings, db: None) -> Client:
    settings.DEBUG = True
    return Client(raise_request_exception=False, HTTP_ACCEPT_LANGUAGE="en")


@pytest.mark.urls("tests.pages.broken_urls")
def test_a_visitor_from_elsewhere_gets_the_plain_500_page_with_debug_on(debug_on: Client) -> None:
    response = debug_on.get("/broken/", REMOTE_ADDR=ELSEWHERE)

    page = response.content.decode()
    assert response.status_code == 500
    assert "<h1>Server error</h1>" in page
    assert "Traceback" not in page and "a bug in a view" not in page and "REDIS_URL" not in page


@pytest.mark.urls("tests.pages.broken_urls")
@pytest.mark.parametrize(
    "headers",
    [{"HTTP_X_FORWARDED_FOR": ELSEWHERE}, {"HTTP_FORWARDED": f"for={ELSEWHERE}"}, {"HTTP_X_REAL_IP": ELSEWHERE}],
)
def test_a_visitor_through_a_proxy_on_this_machine_gets_the_plain_500_page(debug_on: Client, headers) -> None:
    response = debug_on.get("/broken/", REMOTE_ADDR="127.0.0.1", **headers)

    assert response.status_code == 500
    assert "Traceback" not in response.content.decode()


@pytest.mark.urls("tests.pages.broken_urls")
def test_a_visitor_from_elsewhere_asking_for_text_gets_no_traceback_either(debug_on: Client) -> None:
    response = debug_on.get("/broken/", REMOTE_ADDR=ELSEWHERE, HTTP_ACCEPT="text/plain")

    assert response.status_code == 500
    assert response.content.decode() == "Server Error (500)\n"


def staff(client: Client) -> Client:
    client.force_login(User.objects.create_user("developer", is_staff=True))
    return client


@pytest.mark.urls("tests.pages.broken_urls")
@pytest.mark.parametrize("address", ["127.0.0.1", "::1"])
def test_a_developer_on_this_machine_gets_the_debug_page(debug_on: Client, address: str) -> None:
    response = staff(debug_on).get("/broken/", REMOTE_ADDR=address)

    assert response.status_code == 500
    assert "a bug in a view" in response.content.decode() and "Traceback" in response.content.decode()


@pytest.mark.parametrize("path", ["/no-such-page/", "/studies/999999/"])
def test_a_visitor_from_elsewhere_gets_the_plain_404_page_with_debug_on(debug_on: Client, path: str) -> None:
    response = debug_on.get(path, REMOTE_ADDR=ELSEWHERE)

    page = response.content.decode()
    assert response.status_code == 404
    assert "<h1>Page not found</h1>" in page
    assert "URLconf" not in page and "benchdash.urls" not in page and "Traceback" not in page

    local = staff(debug_on).get(path, REMOTE_ADDR="127.0.0.1")
    assert local.status_code == 404 and "DEBUG = True" in local.content.decode()


@pytest.fixture
def closed(settings, db: None) -> dict[str, int]:
    """BENCHDASH_PUBLIC_READ off, and one of everything a page can show."""
    settings.PUBLIC_READ = False
    host = HostFactory(name="db1", facts={"cpu_model": "secret CPU"})
    build, scenario = BuildFactory(version="15.0"), ScenarioFactory(slug="pgbench-select-only")
    study = StudyFactory(db_host=host, builds=[build], scenarios=[scenario], baseline=build)
    trial = TrialFactory(study=study, build=build, scenario=scenario)
    return {"study": study.pk, "trial": trial.pk, "host": host.pk}


def every_page(ids: dict[str, int]) -> list[str]:
    """Every URL the site answers, but the admin's (it has its own login), the login pages and the icon (a static
    file's address, tests/pages/test_favicon.py)."""
    from benchdash import urls

    found = []
    for pattern in _patterns(urls.urlpatterns):
        route = str(pattern)
        if route.startswith(("admin/", "accounts/login", "i18n/", "favicon.ico")):
            continue
        for name, value in (("<int:pk>", ids["trial"] if "trials/" in route else ids["study"]),):
            route = route.replace(name, str(ids["host"] if route.startswith("hosts/") else value))
        route = route.replace("<int:study_id>", str(ids["study"])).replace("<slug:scenario>", "pgbench-select-only")
        route = route.replace("<int:study>", str(ids["study"])).replace("<slug:figure>", "timeline")  # the embeds
        found.append("/" + _regex_filled(route))
    return found


REGEX_SAMPLES = {"pk": "1", "year": "2021", "language": "en", "extension": "pdf", "version": "14"}


def _regex_filled(route: str) -> str:
    """A re_path route (the report files) as a URL it answers: each named group replaced by a sample value."""
    if "(?P<" not in route:
        return route
    filled = re.sub(r"\(\?P<(\w+)>(?:[^()]|\([^()]*\))*\)", lambda group: REGEX_SAMPLES[group.group(1)], route)
    return filled.replace("^", "").replace("$", "").replace("\\.", ".")


def _machine_readable(page: str) -> bool:
    """The API's data, the Atom feed and the embedded images answer a visitor without a session 401 (scripts, feed
    readers and a wiki fetching an image cannot follow a login page); every other page sends the visitor to log in."""
    api_data = page.startswith("/api/v1/") and not page.endswith(("/v1/", "/docs", "/openapi.json"))
    embedded_image = page.startswith("/embed/") and page.endswith((".png", ".svg"))
    return api_data or embedded_image or page.endswith("/feed.atom")


def _patterns(patterns, prefix: str = ""):
    for pattern in patterns:
        if hasattr(pattern, "url_patterns"):
            yield from _patterns(pattern.url_patterns, prefix + str(pattern.pattern))
        else:
            yield prefix + str(pattern.pattern)


def test_with_public_read_off_every_page_but_login_sends_a_visitor_to_log_in(client, closed) -> None:
    pages = every_page(closed)

    answers = {page: client.get(page) for page in pages}

    assert len(pages) > 25 and f"/hosts/{closed['host']}/" in pages and "/accounts/password/" in pages
    expected = {page: 401 if _machine_readable(page) else 302 for page in pages}
    assert {page: response.status_code for page, response in answers.items()} == expected
    redirected = [response for page, response in answers.items() if expected[page] == 302]
    assert all(response["Location"].startswith("/accounts/login/?next=") for response in redirected)
    assert "/reports/2021.en.pdf" in pages and "/api/v1/hosts" in pages
    assert "secret CPU" not in "".join(response.content.decode() for response in answers.values())


def test_with_public_read_off_the_login_page_and_its_language_switch_stay_open(client, closed) -> None:
    assert client.get(reverse("login")).status_code == 200
    response = client.post(reverse("set_language"), {"language": "en", "next": reverse("login")})
    assert response.status_code == 302 and response["Location"] == reverse("login")


def test_a_member_reads_every_page_with_public_read_off(client, closed, django_user_model) -> None:
    client.force_login(django_user_model.objects.create_user("reader"))

    response = client.get(reverse("inventory:host_detail", args=[closed["host"]]))

    assert response.status_code == 200 and "secret CPU" in response.content.decode()


def test_media_is_never_served(client, closed, settings, tmp_path: Path) -> None:
    settings.MEDIA_ROOT = tmp_path
    (tmp_path / "artifact.txt").write_text("raw")
    settings.PUBLIC_READ = True

    assert client.get("/media/artifact.txt").status_code == 404


@pytest.mark.urls("tests.pages.broken_urls")
def test_with_public_read_off_even_a_page_without_its_own_check_sends_a_visitor_to_log_in(client, closed) -> None:
    response = client.get("/broken/")  # a view with no @read_access: the middleware stops the visitor first

    assert response.status_code == 302 and response["Location"] == "/accounts/login/?next=/broken/"
