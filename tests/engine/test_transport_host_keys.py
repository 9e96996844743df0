"""Host key pinning: unknown keys are refused with their fingerprint, changed keys loudly."""

import dataclasses
import subprocess
from pathlib import Path

import pytest

from tests.sshd import generate_key
from workers.transport import HostKeyChanged, HostKeyUnknown, connect, fetch_host_key, key_fingerprint


def ssh_keygen_fingerprint(public_key_line: str, tmp_path: Path) -> str:
    key_file = tmp_path / "key.pub"
    key_file.write_text(public_key_line + "\n")
    output = subprocess.run(["ssh-keygen", "-l", "-E", "sha256", "-f", str(key_file)], capture_output=True, text=True)
    return output.stdout.split()[1]


def test_it_computes_the_fingerprint_ssh_keygen_prints(ssh_target, tmp_path):
    assert key_fingerprint(ssh_target.host_key) == ssh_keygen_fingerprint(ssh_target.host_key, tmp_path)


def test_it_refuses_an_unknown_host_key_with_its_fingerprint(ssh_target, tmp_path):
    unpinned = dataclasses.replace(ssh_target, host_key="")
    with pytest.raises(HostKeyUnknown) as refusal:
        connect(unpinned)
    expected = ssh_keygen_fingerprint(ssh_target.host_key, tmp_path)
    assert refusal.value.fingerprint == expected
    assert expected in str(refusal.value)
    assert refusal.value.key == ssh_target.host_key


def test_it_refuses_a_changed_host_key(ssh_target, tmp_path):
    other_key = generate_key(tmp_path / "other_host_key")
    with pytest.raises(HostKeyChanged) as refusal:
        connect(dataclasses.replace(ssh_target, host_key=other_key))
    assert "CHANGED" in str(refusal.value)
    assert key_fingerprint(ssh_target.host_key) in str(refusal.value)


def test_it_reads_the_offered_host_key_without_logging_in(ssh_target):
    assert fetch_host_key(ssh_target.address, ssh_target.port) == ssh_target.host_key
