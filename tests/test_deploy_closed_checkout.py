"""A checkout the store's account cannot enter (a clone under /root, a `mktemp -d`): set-up keeps var/ root's and
puts the store's and Redis's files under /var/lib/benchdash/<checkout id>/, which that account reaches."""

import hashlib
import shutil
import stat
import tempfile
from pathlib import Path

import pytest

from tests.deploy_services import APP_ROLE, services

pytestmark = [pytest.mark.servers, pytest.mark.slow]
__all__ = ["services"]  # the fixture


def test_a_var_the_store_s_account_cannot_reach_stays_root_s_and_the_store_runs_outside_it(services):
    closed = Path(tempfile.mkdtemp(prefix="benchdash-closed-"))  # 0700, root's
    var = closed / "var"
    services.env["BENCHDASH_VAR_DIR"] = str(var)
    services.secrets = var / "secrets"
    outside = Path("/var/lib/benchdash", hashlib.sha256(str(var).encode()).hexdigest()[:12])
    try:
        services.setup()
        pong = services.redis("root", "ping", REDISCLI_AUTH=services.password("redis-password"))
        role = services.app_psql("SELECT current_user")
        secrets = services.secrets.stat()
        assert (secrets.st_uid, stat.S_IMODE(secrets.st_mode)) == (0, 0o700)
        assert (outside / "pg" / "PG_VERSION").exists() and (outside / "redis").is_dir()
        assert (role.stdout.strip(), pong.stdout.strip()) == (APP_ROLE, "PONG"), role.stderr
    finally:
        services.setup("stop")
        shutil.rmtree(closed)
        shutil.rmtree(outside, ignore_errors=True)
