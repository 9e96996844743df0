"""Every link between machines is encrypted and authenticated: a Celery worker with BENCHDASH_REQUIRE_TLS reaches a
TLS-only Redis (rediss://, the certificate checked against the local CA and its name) and a store that lets in
`hostssl` only (sslmode=verify-full), and completes a task against both: beat's work-dir sweep reads a host from
the store and sends its clean-up to the host's queue in Redis. Plain links and a certificate from another CA are
refused."""

import base64
import json

import psycopg
import pytest
import redis
from kombu import Connection

from benchdash.inventory.models import Host
from benchdash.queue.tasks import sweep_work_dirs
from benchdash.tls import redis_tls_options
from tests.queue.conftest import Processes
from tests.queue.support import wait_for
from tests.tls import copy_test_database, make_certs

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def test_a_worker_completes_a_task_over_tls_only_redis_and_store(tls_redis, tls_store, tmp_path, certs):
    host = Host.objects.create(name="tls-target", address="192.0.2.7", work_dir_usage={"clusters": 1})
    copy_test_database(tls_store)  # the row above included
    store_url = tls_store.url()
    worker = Processes(tls_redis, tmp_path)
    worker.env = {"DATABASE_URL": store_url, "BENCHDASH_WORKER_HOSTS": "nowhere", "BENCHDASH_REQUIRE_TLS": "true"}
    try:
        worker.worker("tls")
        with Connection(tls_redis, ssl=redis_tls_options(tls_redis)) as broker:
            sweep_work_dirs.apply_async(connection=broker, ignore_result=True)
        queue = redis.Redis.from_url(tls_redis, ssl_cert_reqs="required")
        wait_for(lambda: queue.llen("host.tls-target"), 60, "the sweep's clean-up task in the host's queue")
        wait_for(lambda: "succeeded" in worker.log("tls"), 30, "the sweep to end")  # stop_all kills, busy or not
    finally:
        worker.stop_all()

    message = json.loads(queue.lindex("host.tls-target", 0))
    assert message["headers"]["task"] == "benchdash.queue.tasks.clear_ended_clusters"
    assert json.loads(base64.b64decode(message["body"]))[0] == [host.pk]
    assert "sweep_work_dirs" in worker.log("tls") and "succeeded" in worker.log("tls")


def test_plain_links_and_a_certificate_of_another_ca_are_refused(tls_redis, tls_store, tmp_path):
    plain = tls_redis.replace("rediss://", "redis://").split("?")[0]
    with pytest.raises(redis.ConnectionError):
        redis.Redis.from_url(plain, socket_timeout=5).ping()
    with pytest.raises(psycopg.OperationalError, match="no pg_hba.conf entry"):
        psycopg.connect(tls_store.url().split("?")[0] + "?sslmode=disable", connect_timeout=5)
    other_ca = make_certs(tmp_path / "other", "127.0.0.1")
    with pytest.raises(psycopg.OperationalError, match="certificate verify failed"):
        psycopg.connect(tls_store.url().replace(str(tls_store.ca), str(other_ca / "ca.crt")), connect_timeout=5)
    with pytest.raises(redis.ConnectionError, match="certificate verify failed"):
        redis.Redis.from_url(
            tls_redis.replace(str(tls_store.ca), str(other_ca / "ca.crt")), ssl_cert_reqs="required"
        ).ping()
    with psycopg.connect(tls_store.url("postgres"), connect_timeout=5) as verified:
        assert verified.info.pgconn.ssl_in_use and verified.execute("SELECT 1").fetchone() == (1,)
