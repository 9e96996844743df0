"""The alerts page: a member subscribes (the secret kept encrypted), sees and removes their own subscriptions; bad
input is refused with a clear message and nothing saved; another member's subscription cannot be removed; a visitor
is sent to log in."""

from urllib.parse import quote

import pytest
from django.contrib.auth.models import User
from django.urls import reverse

from benchdash.alerts.models import Subscription, Watch
from tests.alerts.helpers import SECRET, minor_step, subscribe
from tests.factories import HostFactory, ScenarioFactory

pytestmark = pytest.mark.django_db

URL = "/alerts/"


@pytest.fixture
def watcher(client) -> User:
    user = User.objects.create_user("watcher", email="watcher@example.org", password="pw-watcher-1")
    client.force_login(user)
    return user


def test_a_member_subscribes_to_a_scenario_by_webhook_in_trial_mode(client, watcher):
    scenario = ScenarioFactory(slug="pgecons-update")
    form = {"watch": "scenario", "scenario": scenario.pk, "webhook_url": "http://127.0.0.1:9/hook"}
    response = client.post(URL, form | {"webhook_secret": SECRET, "trial": "on"})
    assert response.status_code == 302
    subscription = Subscription.objects.get()
    assert (subscription.member, subscription.scenario, subscription.trial) == (watcher, scenario, True)
    assert (subscription.by_email, subscription.webhook_secret) == (False, SECRET)
    assert SECRET not in subscription.webhook_secret_encrypted
    assert "pgecons-update" in client.get(URL).content.decode()


def test_only_the_watched_field_of_its_choice_is_kept(client, watcher):
    host = HostFactory(name="db1")
    client.post(URL, {"watch": "host", "host": host.pk, "series_key": "trend:x:1", "by_email": "on"})
    subscription = Subscription.objects.get()
    assert (subscription.watch, subscription.host, subscription.series_key) == (Watch.HOST, host, "")


SERIES = {"watch": "series", "series_key": "trend:x:1"}


def hook(url: str, secret: str = SECRET) -> dict[str, str]:
    return SERIES | {"webhook_url": url, "webhook_secret": secret}


@pytest.mark.parametrize(
    ("form", "message"),
    [
        (SERIES | {"series_key": "nonsense", "by_email": "on"}, "A series key starts with trend:"),
        ({"watch": "scenario", "by_email": "on"}, "Say which one to watch."),
        (SERIES, "Choose a channel"),
        (hook("http://169.254.169.254/"), "a link-local address"),
        (hook("http://[fd00:ec2::254]/"), "a cloud metadata address"),
        (hook("http://127.0.0.1/", secret="short"), "at least 16"),
        (hook("ftp://127.0.0.1/"), "not an http(s) URL"),
    ],
)
def test_bad_input_is_refused_with_its_reason_and_nothing_saved(client, watcher, form, message):
    response = client.post(URL, form, HTTP_ACCEPT_LANGUAGE="en")
    assert response.status_code == 400
    assert message in response.content.decode()
    assert not Subscription.objects.exists()


def test_an_account_without_an_e_mail_address_cannot_choose_e_mail(client):
    client.force_login(User.objects.create_user("nomail", password="pw-nomail-1"))
    response = client.post(
        URL, {"watch": "series", "series_key": "trend:x:1", "by_email": "on"}, HTTP_ACCEPT_LANGUAGE="en"
    )
    assert "Your account has no e-mail address." in response.content.decode()
    assert not Subscription.objects.exists()


def test_a_member_removes_their_own_subscription_but_not_anothers(client, watcher):
    mine = subscribe(watcher, watch=Watch.SERIES, series_key="trend:x:1")
    other = subscribe(User.objects.create_user("other"), watch=Watch.SERIES, series_key="trend:x:1")
    assert client.post(reverse("alerts:delete", args=[other.pk])).status_code == 404
    assert client.post(reverse("alerts:delete", args=[mine.pk])).status_code == 302
    assert list(Subscription.objects.all()) == [other]


def test_a_visitor_is_sent_to_log_in(client):
    response = client.get(URL)
    assert response.status_code == 302
    assert "/accounts/login/" in response["Location"]


def test_a_changes_page_links_to_a_form_that_watches_its_series(client, watcher):
    change = minor_step()
    page = client.get(reverse("changes:detail", args=[change.pk]), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    link = f"/alerts/?series_key={quote(change.series_key)}"
    assert link in page
    form = client.get(link, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert f'value="{change.series_key}"' in form
    assert '<option value="series" selected>' in form
