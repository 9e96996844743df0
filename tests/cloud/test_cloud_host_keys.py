"""The host key pinned for an instance comes from cloud-init's block on its console, the strongest kind first."""

from benchdash.cloud.host_keys import console_host_key

CONSOLE = """[   12.3] cloud-init[512]: Cloud-init v. 23.1 running 'modules:final'
-----BEGIN SSH HOST KEY KEYS-----
ecdsa-sha2-nistp256 AAAAE2VjZHNh root@ip-10-0-0-12
ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIKey root@ip-10-0-0-12
ssh-rsa AAAAB3NzaC1yc2E root@ip-10-0-0-12
-----END SSH HOST KEY KEYS-----
"""


def test_the_ed25519_key_of_the_block_is_pinned_without_its_comment():
    assert console_host_key(CONSOLE) == "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIKey"


def test_an_ecdsa_key_is_taken_when_the_block_has_no_ed25519_key():
    without_ed25519 = "\n".join(line for line in CONSOLE.splitlines() if "ed25519" not in line)
    assert console_host_key(without_ed25519) == "ecdsa-sha2-nistp256 AAAAE2VjZHNh"


def test_no_key_before_cloud_init_printed_its_block_whole():
    assert console_host_key("[    0.0] Linux version 6.1.0\n") is None
    assert console_host_key(CONSOLE.split("-----END")[0]) is None
