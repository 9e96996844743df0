"""The host keys an instance printed on its console at first boot (cloud-init's block), to pin before connecting:
a key is never taken from the connection itself (no trust on first use)."""

import re

BLOCK = re.compile(r"-----BEGIN SSH HOST KEY KEYS-----\r?\n(.*?)-----END SSH HOST KEY KEYS-----", re.DOTALL)
PREFERRED = ("ssh-ed25519", "ecdsa-sha2-nistp256", "rsa-sha2-512", "ssh-rsa")


def console_host_key(console: str) -> str | None:
    """The strongest key of the console's host key block as 'TYPE BASE64'; None until cloud-init printed it."""
    match = BLOCK.search(console)
    if match is None:
        return None
    keys = dict(_key_type_and_line(line) for line in match.group(1).splitlines() if len(line.split()) >= 2)
    return next((keys[kind] for kind in PREFERRED if kind in keys), None)


def _key_type_and_line(line: str) -> tuple[str, str]:
    kind, body = line.split()[:2]
    return kind, f"{kind} {body}"
