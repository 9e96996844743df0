"""The tests' stand-in for an EC2 instance: the local sshd of tests/sshd.py. The test settings name these
functions as CLOUD_SSH_ENDPOINT and CLOUD_CONSOLE_OUTPUT (the cloud_stand_in fixture); production never does."""

from typing import Any

from benchdash.cloud import aws
from workers.spec import HostSpec

# The sshd every instance stands for, and the host key its console shows (the sshd's own, unless a test says;
# none while "console_silent" is set, as before cloud-init prints it).
STAND_IN: dict[str, Any] = {}


def sshd_endpoint(instance: dict[str, Any], public: bool) -> tuple[str, int]:
    target: HostSpec = STAND_IN["sshd"]
    return target.address, target.port


def sshd_console_output(ec2: Any, instance_id: str) -> str:
    """What moto's EC2 prints for the instance, then the host key block cloud-init would print at boot."""
    if STAND_IN.get("console_silent"):
        return aws.console_output(ec2, instance_id)
    key_line = STAND_IN.get("console_key") or STAND_IN["sshd"].host_key
    block = f"-----BEGIN SSH HOST KEY KEYS-----\n{key_line} root@ip-10-0-0-1\n-----END SSH HOST KEY KEYS-----\n"
    return aws.console_output(ec2, instance_id) + "\nci-info: no authorized SSH keys fingerprints\n" + block
