"""Set-up as root follows no link that the run user (who owns var/) planted there, and says what is wrong.

The run user could otherwise turn set-up's writes, chowns and reads into root's own files into its own
(docs/SECURITY.md). Each test plants links after a first set-up, on its own ports with its own var/.
"""

import shutil
from pathlib import Path

import pytest

from tests.deploy_services import OTHER_USER, STORE_USER, plant_links, roots_files, services, state

pytestmark = [pytest.mark.servers, pytest.mark.slow]
__all__ = ["services"]  # the fixture


def setup_again_refuses(services, place: Path, links: dict[Path, Path]) -> str:
    before = state(place)
    plant_links(links)
    again = services.run_setup()
    assert again.returncode != 0 and state(place) == before, again.stdout + again.stderr
    return again.stderr


def test_links_in_place_of_the_secrets_stop_set_up_and_change_nothing_of_root_s(services):
    services.setup()
    kept = {path: path.read_text() for path in sorted(services.secrets.iterdir())}
    place = roots_files([path.name for path in kept])
    try:
        for path, secret in kept.items():
            message = setup_again_refuses(services, place, {path: place / path.name})
            assert f"{path} is a link, not what set-up made there" in message, message
            plant_links({path: place / "gone"})  # a dangling one is not written through either
            assert f"{path} is a link" in services.run_setup().stderr and not (place / "gone").exists()
            path.unlink()
            path.write_text(secret)
            path.chmod(0o600)
            shutil.chown(path, STORE_USER)
    finally:
        shutil.rmtree(place)
    assert services.run_setup().returncode == 0


@pytest.mark.parametrize("directory", ["secrets", "ssh", "media", "redis"])
def test_links_in_place_of_var_s_directories_stop_set_up_and_change_nothing_of_root_s(services, directory):
    services.setup()
    place = roots_files([directory])
    try:
        message = setup_again_refuses(services, place, {services.var / directory: place / f"{directory}.d"})
    finally:
        shutil.rmtree(place)
    assert f"{services.var / directory} is a link, not what set-up made there" in message, message


def test_a_var_that_another_account_owns_stops_set_up(services):
    services.setup()
    shutil.chown(services.secrets, OTHER_USER)  # root's own would be handed over: set-up made it, earlier
    again = services.run_setup()
    assert again.returncode != 0 and f"{services.secrets} belongs to {OTHER_USER}, not {STORE_USER}" in again.stderr
