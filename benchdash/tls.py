"""Links between machines, encrypted and authenticated: Redis over TLS (a `rediss://` REDIS_URL, the server's
certificate checked against a CA and its name) and the store with `sslmode=verify-full` in DATABASE_URL.

deploy/make-certs.sh makes a local CA and the servers' certificates; deploy/SCALE-OUT.md says where they go.
BENCHDASH_REQUIRE_TLS=true (a multi-machine install) refuses to start with a plain link."""

import ssl
from typing import Any
from urllib.parse import parse_qs, urlsplit

from django.core.exceptions import ImproperlyConfigured

UNCHECKED_CERTIFICATES = ("none", "optional", "cert_none", "cert_optional")


def redis_tls_options(redis_url: str) -> dict[str, Any] | None:
    """What Celery's broker and result backend need to reach Redis over TLS (broker_use_ssl,
    redis_backend_use_ssl): the certificate required and its name checked, against the CA the URL names
    (`?ssl_ca_certs=PATH`; else the system's). None for a plain `redis://` URL."""
    parts = urlsplit(redis_url)
    if parts.scheme != "rediss":
        return None
    query = {name: values[-1] for name, values in parse_qs(parts.query).items()}
    if query.get("ssl_cert_reqs", "required").lower() in UNCHECKED_CERTIFICATES:
        raise ImproperlyConfigured("REDIS_URL: a rediss:// link must check the server's certificate (ssl_cert_reqs)")
    options: dict[str, Any] = {"ssl_cert_reqs": ssl.CERT_REQUIRED, "ssl_check_hostname": True}
    if "ssl_ca_certs" in query:
        options["ssl_ca_certs"] = query["ssl_ca_certs"]
    return options


def check_links_encrypted(database_options: dict[str, Any], redis_url: str) -> None:
    """For BENCHDASH_REQUIRE_TLS: refuse a store link without verify-full, or a broker link without TLS."""
    if database_options.get("sslmode") != "verify-full":
        raise ImproperlyConfigured("BENCHDASH_REQUIRE_TLS: DATABASE_URL needs ?sslmode=verify-full&sslrootcert=CA")
    if redis_tls_options(redis_url) is None:
        raise ImproperlyConfigured("BENCHDASH_REQUIRE_TLS: REDIS_URL must be rediss://...?ssl_ca_certs=CA")
