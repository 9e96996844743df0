"""benchdash settings: every value comes from the environment (see .env.example)."""

import importlib.util
import re
from datetime import timedelta
from pathlib import Path
from typing import Any

import dj_database_url
from django.core.exceptions import ImproperlyConfigured
from django.utils.translation import gettext_lazy as _

from benchdash.env import (
    env_bool,
    env_decimal,
    env_float_list,
    env_int,
    env_list,
    env_service_url,
    env_str,
    generated_secret,
    secret_file,
    url_credentials,
)
from benchdash.tls import check_links_encrypted, redis_tls_options
from benchdash.var_owner import var_dir

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = var_dir()

# Off unless set: `make run` sets it for development. Even on, only staff logged in on this machine see a debug page
# (benchdash/debug_guard.py), and it shows no secret (benchdash/redaction.py).
DEBUG = env_bool("DEBUG", False)
# Generated secrets: 0600 files in a 0700 directory (deploy/setup.sh keeps the store's and Redis's passwords there).
SECRETS_DIR = Path(env_str("BENCHDASH_SECRETS_DIR", str(VAR_DIR / "secrets")))
# SECRET_KEY, or else one generated once into SECRETS_DIR/secret-key.
SECRET_KEY = env_str("SECRET_KEY", "") or generated_secret(SECRETS_DIR / "secret-key")
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["127.0.0.1", "localhost"])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django.contrib.humanize",
    "django.contrib.postgres",
    "benchdash.inventory",
    "benchdash.studies",
    "benchdash.trends",
    "benchdash.changes",
    "benchdash.queue",
    "benchdash.cloud",
    "benchdash.api",
    "benchdash.alerts",
    "axes",
]


def _package_dir(name: str) -> Path:
    """Where an installed package's files are, found without importing it."""
    spec = importlib.util.find_spec(name)
    if spec is None or spec.origin is None:
        raise ImproperlyConfigured(f"the package {name} is not installed: run make run (or make test) to install it")
    return Path(spec.origin).parent


# Django Ninja's templates and static files (the API's Swagger page, benchdash/api/v1.py), taken from its package
# without making it an installed app: every installed app is imported at each process's start, and ninja brings
# pydantic and django.test into every Celery worker, beat and manage.py command (docs/BENCHMARKS.md), where only the
# web server serves the API.
NINJA_DIR = _package_dir("ninja")

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    # Static files (CSS, JS, plotly.js) come from the WSGI server itself, with DEBUG off too.
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "benchdash.access.LoginRequiredUnlessPublicRead",
    "benchdash.debug_guard.DebugPagesForThisMachineOnly",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # Last, as django-axes asks: it turns a refused login (too many failures) into the lockout page.
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "benchdash.urls"
WSGI_APPLICATION = "benchdash.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates", NINJA_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
            "libraries": {"embeds": "benchdash.reports.embed_tags"},
        },
    },
]

# The store and the broker: DATABASE_URL / REDIS_URL, or else the ones deploy/setup.sh runs on this machine, on
# BENCHDASH_PG_PORT / BENCHDASH_REDIS_PORT (deploy/lib.sh reads the same variables, with the same defaults), with the
# passwords it generated (0600 files in SECRETS_DIR).
# The credentials stay lower-case module names, not settings: a debug page lists every setting.
# The store's role for the app is deploy/lib.sh's APP_ROLE, no superuser, once set-up has made it (and moved the
# superuser's password to admin-password); until set-up runs again, an older store's superuser.
_store_user = "benchdash_app" if (SECRETS_DIR / "admin-password").exists() else "benchdash"
_store_credentials = url_credentials(_store_user, secret_file(SECRETS_DIR / "store-password"))
_redis_credentials = url_credentials("", secret_file(SECRETS_DIR / "redis-password"))
DATABASE_URL = env_service_url(
    "DATABASE_URL", f"postgres://{_store_credentials}127.0.0.1:{{port}}/benchdash", "BENCHDASH_PG_PORT", 54329
)
REDIS_URL = env_service_url(
    "REDIS_URL", f"redis://{_redis_credentials}127.0.0.1:{{port}}/0", "BENCHDASH_REDIS_PORT", 63799
)
DATABASES = {
    "default": dj_database_url.parse(
        DATABASE_URL,
        conn_max_age=env_int("DATABASE_CONN_MAX_AGE", 60),
    )
}
# A store that does not answer fails a connection within seconds, so that a worker's heartbeat tries again
# instead of hanging (benchdash/queue/heartbeat.py).
DATABASES["default"].setdefault("OPTIONS", {}).setdefault("connect_timeout", 10)
DATABASES["default"]["TEST"] = {"NAME": env_str("BENCHDASH_TEST_DB", "test_benchdash")}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
]
DEFAULT_EXCEPTION_REPORTER = "benchdash.debug_guard.GuardedExceptionReporter"
DEFAULT_EXCEPTION_REPORTER_FILTER = "benchdash.redaction.SecretHidingFilter"
# Login throttling (django-axes, its attempts in the store): after LOGIN_FAILURE_LIMIT wrong passwords for one
# account from one address, even the right one is refused for LOGIN_COOLOFF_MINUTES, on /accounts/login/ and
# /admin/login/ alike. The axes backend comes first: it refuses before the password is checked.
AUTHENTICATION_BACKENDS = ["axes.backends.AxesStandaloneBackend", "django.contrib.auth.backends.ModelBackend"]
AXES_FAILURE_LIMIT = env_int("BENCHDASH_LOGIN_FAILURE_LIMIT", 5)
AXES_COOLOFF_TIME = timedelta(minutes=env_int("BENCHDASH_LOGIN_COOLOFF_MINUTES", 15))
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_LOCKOUT_CALLABLE = "benchdash.lockout.locked_out_page"
AXES_RESET_ON_SUCCESS = True
# No banner on every manage.py command and worker start.
AXES_VERBOSE = False
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = LOGOUT_REDIRECT_URL = "trends:index"

LANGUAGE_CODE = "ja"
LANGUAGES = [("ja", _("Japanese")), ("en", _("English"))]
LOCALE_PATHS = [BASE_DIR / "locale"]
TIME_ZONE = env_str("TIME_ZONE", "Asia/Tokyo")
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static", NINJA_DIR / "static"]
STATIC_ROOT = VAR_DIR / "staticfiles"
# Off: pages name the hashed files collectstatic wrote, and whitenoise serves them compressed (gzip, brotli) and
# cached for a year (immutable). On (DEBUG's default, for editing static/): plain names, read from static/ on each
# request. `make run` turns it off: it serves what set-up collected.
STATIC_FROM_SOURCE = env_bool("BENCHDASH_STATIC_FROM_SOURCE", DEBUG)
WHITENOISE_AUTOREFRESH = WHITENOISE_USE_FINDERS = STATIC_FROM_SOURCE
MEDIA_URL = "media/"
# Raw trial files, where S3 is not used.
MEDIA_ROOT = Path(env_str("BENCHDASH_MEDIA_ROOT", str(VAR_DIR / "media")))

S3_BUCKET = env_str("BENCHDASH_S3_BUCKET", "")
# Before each attempt the worker checks that MEDIA_ROOT has room for an outcome: the largest one of the study so far,
# and at least this many MiB (benchdash/studies/lifecycle/storage_room.py); less stops the study before pgbench runs.
ARTIFACT_ROOM_MIN_BYTES = env_int("BENCHDASH_ARTIFACT_ROOM_MIN_MIB", 64) * 2**20
if ARTIFACT_ROOM_MIN_BYTES < 0:
    raise ImproperlyConfigured("BENCHDASH_ARTIFACT_ROOM_MIN_MIB must be at least 0")
STORAGES: dict[str, dict[str, Any]] = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    # collectstatic (deploy/setup.sh) writes hashed names and compressed copies (benchdash/static_storage.py).
    "staticfiles": {"BACKEND": "benchdash.static_storage.HashedStaticStorage"},
}
if S3_BUCKET:
    STORAGES["default"] = {
        "BACKEND": "storages.backends.s3.S3Storage",
        "OPTIONS": {
            "bucket_name": S3_BUCKET,
            "endpoint_url": env_str("BENCHDASH_S3_ENDPOINT_URL", "") or None,
            "region_name": env_str("AWS_DEFAULT_REGION", "us-east-1"),
        },
    }

# Behind a reverse proxy that ends TLS and sets X-Forwarded-Proto (deploy/SCALE-OUT.md, "Serving"): cookies only over
# HTTPS, plain HTTP redirected, and browsers told to keep to HTTPS (HSTS).
HTTPS = env_bool("BENCHDASH_HTTPS", False)
if HTTPS:
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SECURE_SSL_REDIRECT = True
    SESSION_COOKIE_SECURE = CSRF_COOKIE_SECURE = True
    SECURE_HSTS_SECONDS = env_int("BENCHDASH_HSTS_SECONDS", 31536000)
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    SECURE_HSTS_PRELOAD = True

# Reading (trends, studies, hosts, builds, CSV) can be opened to anonymous visitors;
# queueing, cancelling and administration always need a login.
PUBLIC_READ = env_bool("BENCHDASH_PUBLIC_READ", True)

# postgresql.conf settings a study may set besides the allowlist (benchdash/studies/pg_settings.py), by name.
# Widening is for the whole site, never per study; settings that run commands, load libraries, name files or
# change how the server listens stay refused whatever this says.
STUDY_SETTINGS_EXTRA = env_list("BENCHDASH_STUDY_SETTINGS_EXTRA", [])
# A host's address may be link-local (169.254.0.0/16, fe80::/10: where cloud metadata services answer) only with this.
ALLOW_LINK_LOCAL_HOSTS = env_bool("BENCHDASH_ALLOW_LINK_LOCAL_HOSTS", False)

# Where the engine keeps fetched PostgreSQL archives and SSH keys on the worker's machine.
BUILDS_DIR = Path(env_str("BENCHDASH_BUILDS_DIR", str(VAR_DIR / "builds")))
SSH_KEY_DIR = Path(env_str("BENCHDASH_SSH_KEY_DIR", str(VAR_DIR / "ssh")))
NPM_REGISTRY = env_str("BENCHDASH_NPM_REGISTRY", "https://registry.npmjs.org")

# Alerts (docs/ALERTS.md): e-mail through Django's backend, console unless EMAIL_HOST names an SMTP server; links in
# alerts start with SITE_URL; a webhook or a mail server gets ALERT_TIMEOUT_S to answer, and send_alert tries again
# ALERT_RETRIES times, ALERT_RETRY_BACKOFF_S, twice that, ... apart (at most 10 min, with jitter).
EMAIL_HOST = env_str("EMAIL_HOST", "")
EMAIL_BACKEND = env_str(
    "EMAIL_BACKEND",
    "django.core.mail.backends.smtp.EmailBackend" if EMAIL_HOST else "django.core.mail.backends.console.EmailBackend",
)
EMAIL_PORT = env_int("EMAIL_PORT", 25)
EMAIL_HOST_USER = env_str("EMAIL_HOST_USER", "")
EMAIL_HOST_PASSWORD = env_str("EMAIL_HOST_PASSWORD", "")
EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", False)
EMAIL_TIMEOUT = env_int("EMAIL_TIMEOUT", 10)
ALERT_FROM = env_str("BENCHDASH_ALERT_FROM", "benchdash@localhost")
SITE_URL = env_str("BENCHDASH_SITE_URL", "http://127.0.0.1:8000")
ALERT_TIMEOUT_S = env_int("BENCHDASH_ALERT_TIMEOUT_S", 10)
ALERT_RETRIES = env_int("BENCHDASH_ALERT_RETRIES", 5)
ALERT_RETRY_BACKOFF_S = env_int("BENCHDASH_ALERT_RETRY_BACKOFF_S", 30)

CELERY_BROKER_URL = REDIS_URL
# kombu's Redis transport with the fix that keeps a worker alive when Redis restarts (benchdash/queue/broker.py).
CELERY_BROKER_TRANSPORT = "benchdash.queue.broker:Transport"
# A worker that lost Redis tries again for ever (every 2, 4, ... up to 30 s), at start-up too.
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_BROKER_CONNECTION_MAX_RETRIES = None
CELERY_RESULT_BACKEND = REDIS_URL
# A rediss:// REDIS_URL: TLS with the server's certificate and name checked (benchdash/tls.py), for the broker and the
# results alike; BENCHDASH_REQUIRE_TLS refuses plain links to the store and the broker (deploy/SCALE-OUT.md).
CELERY_BROKER_USE_SSL = CELERY_REDIS_BACKEND_USE_SSL = redis_tls_options(REDIS_URL)
if env_bool("BENCHDASH_REQUIRE_TLS", False):
    check_links_encrypted(DATABASES["default"].get("OPTIONS", {}), REDIS_URL)
# The store keeps every outcome: a task result would only be one more write to Redis.
CELERY_TASK_IGNORE_RESULT = True
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
# Redis re-delivers an unacknowledged task after this many seconds; every trial task has a
# hard time limit well below it (TRIAL_TIME_LIMIT), so a running trial is never handed out twice.
CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": env_int("CELERY_VISIBILITY_TIMEOUT", 7200)}
TRIAL_TIME_LIMIT = env_int("BENCHDASH_TRIAL_TIME_LIMIT", 3600)
# What a trial needs besides its pgbench run (install, data reset, prewarm, checkpoint, collecting):
# a study's duration may be at most TRIAL_TIME_LIMIT less this.
TRIAL_SETUP_MARGIN_S = env_int("BENCHDASH_TRIAL_SETUP_MARGIN_S", 600)
if not 0 <= TRIAL_SETUP_MARGIN_S < TRIAL_TIME_LIMIT:
    raise ImproperlyConfigured("BENCHDASH_TRIAL_SETUP_MARGIN_S must be at least 0 and below BENCHDASH_TRIAL_TIME_LIMIT")
# A running trial's task writes Trial.heartbeat_at this often; beat puts back a trial whose heartbeat
# is older than TRIAL_STALE_AFTER_S (its worker vanished). A failing target gets TRIAL_MAX_ATTEMPTS tries.
TRIAL_HEARTBEAT_S = env_int("BENCHDASH_TRIAL_HEARTBEAT_S", 10)
TRIAL_STALE_AFTER_S = env_int("BENCHDASH_TRIAL_STALE_AFTER_S", 120)
TRIAL_MAX_ATTEMPTS = env_int("BENCHDASH_TRIAL_MAX_ATTEMPTS", 3)
# A trial whose attempt failed or was lost is sent again after this delay: a fault of the moment may pass meanwhile.
TRIAL_RETRY_DELAY_S = env_int("BENCHDASH_TRIAL_RETRY_DELAY_S", 5)
if not 0 <= TRIAL_RETRY_DELAY_S <= 3600:
    raise ImproperlyConfigured("BENCHDASH_TRIAL_RETRY_DELAY_S must be between 0 and 3600")
HOST_BUSY_RETRY_S = env_int("BENCHDASH_HOST_BUSY_RETRY_S", 15)
# An attempt whose host does not answer tries again after these growing delays (the last one repeats), and
# gives up, failing the study with the reason, once the host has been unreachable for HOST_WAIT_LIMIT_S.
HOST_WAIT_DELAYS_S = env_float_list("BENCHDASH_HOST_WAIT_DELAYS_S", [5.0, 10.0, 20.0, 40.0, 60.0])
HOST_WAIT_LIMIT_S = env_int("BENCHDASH_HOST_WAIT_LIMIT_S", 900)
if not 0 < HOST_WAIT_LIMIT_S < TRIAL_TIME_LIMIT - TRIAL_SETUP_MARGIN_S:
    raise ImproperlyConfigured(
        "BENCHDASH_HOST_WAIT_LIMIT_S must be above 0 and below "
        "BENCHDASH_TRIAL_TIME_LIMIT less BENCHDASH_TRIAL_SETUP_MARGIN_S"
    )
# The noise check before a study (workers/preflight.py) samples every process's CPU time over this window.
NOISE_SAMPLE_MS = env_int("BENCHDASH_NOISE_SAMPLE_MS", 1000)
if not 100 <= NOISE_SAMPLE_MS <= 30_000:
    raise ImproperlyConfigured("BENCHDASH_NOISE_SAMPLE_MS must be between 100 and 30000")
# ... and times a CPU-bound micro-run this many times: their spread (CV) is the host's own, at its quietest.
NOISE_MICRO_RUNS = env_int("BENCHDASH_NOISE_MICRO_RUNS", 10)
if not 3 <= NOISE_MICRO_RUNS <= 100:
    raise ImproperlyConfigured("BENCHDASH_NOISE_MICRO_RUNS must be between 3 and 100")
# A DB host keeps the pristine data of each build, scale and fillfactor (workers/pristine.py) this many days after a
# cluster last copied it; 0: only while a study is active on the host.
PRISTINE_KEEP_DAYS = env_int("BENCHDASH_PRISTINE_KEEP_DAYS", 14)
if not 0 <= PRISTINE_KEEP_DAYS <= 3650:
    raise ImproperlyConfigured("BENCHDASH_PRISTINE_KEEP_DAYS must be between 0 and 3650")
CELERY_TASK_ALWAYS_EAGER = False
# The DB hosts whose trials this worker takes (their queues host.<name>); empty: every registered host,
# looked up again every WORKER_HOSTS_REFRESH_S seconds (benchdash/queue/worker_queues.py).
WORKER_HOSTS = env_list("BENCHDASH_WORKER_HOSTS", [])
if any(not re.fullmatch(r"[-a-zA-Z0-9_]+", name) for name in WORKER_HOSTS):
    raise ImproperlyConfigured(f"BENCHDASH_WORKER_HOSTS must be host names separated by commas, not {WORKER_HOSTS}")
WORKER_HOSTS_REFRESH_S = env_int("BENCHDASH_WORKER_HOSTS_REFRESH_S", 30)
# How often beat, and each worker, look for trials whose worker vanished (benchdash/queue/sweep.py).
REQUEUE_EVERY_S = env_int("BENCHDASH_REQUEUE_EVERY", 60)

# Studies on cloud templates (benchdash/cloud/): the administrator's budgets in USD, what a study may cost at most
# and what all cloud studies made in a month may; the expiry (the instances end themselves then) is the set-up plus
# the estimated time times CLOUD_EXPIRY_FACTOR; how long a launch waits for an instance, sshd and its host keys.
CLOUD_STUDY_BUDGET_USD = env_decimal("BENCHDASH_CLOUD_STUDY_BUDGET_USD", "100")
CLOUD_MONTHLY_BUDGET_USD = env_decimal("BENCHDASH_CLOUD_MONTHLY_BUDGET_USD", "1000")
CLOUD_EXPIRY_FACTOR = float(env_decimal("BENCHDASH_CLOUD_EXPIRY_FACTOR", "1.5"))
CLOUD_BOOT_WAIT_S = env_int("BENCHDASH_CLOUD_BOOT_WAIT_S", 600)
CLOUD_POLL_S = env_int("BENCHDASH_CLOUD_POLL_S", 5)
CLOUD_LAUNCH_TIME_LIMIT_S = env_int("BENCHDASH_CLOUD_LAUNCH_TIME_LIMIT_S", 3600)
CLOUD_REAP_EVERY_S = env_int("BENCHDASH_CLOUD_REAP_EVERY_S", 300)
# Functions (dotted paths) giving where a worker reaches an instance's sshd and what the instance printed on its
# console: EC2's. Only the tests name others (their local sshd standing in for an instance).
CLOUD_SSH_ENDPOINT = "benchdash.cloud.aws.ssh_endpoint"
CLOUD_CONSOLE_OUTPUT = "benchdash.cloud.aws.console_output"

# One handler, whose lines lose any URL password or secret (an exception's message may hold one). Django's loggers
# drop the handlers of its default configuration and pass their records to it.
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"secret_hiding": {"()": "benchdash.redaction.SecretHidingFormatter"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "secret_hiding"}},
    "loggers": {"django": {"handlers": [], "propagate": True}},
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "INFO")},
}
