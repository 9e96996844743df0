"""A webhook's shared secret, kept encrypted in the store: Fernet with a key derived from SECRET_KEY.

The secret must be readable again (it signs each webhook body with HMAC), so it cannot be kept as a digest the way an
API token is. A store copy without SECRET_KEY reads nothing; changing SECRET_KEY makes every stored secret unreadable
(the alert fails with that reason, and the member enters the secret again).
"""

import base64
import hashlib

from cryptography.fernet import Fernet, InvalidToken
from django.conf import settings

_PURPOSE = b"benchdash webhook secret v1"


class SecretUnreadable(Exception):
    """The stored secret was encrypted under another SECRET_KEY."""


def _fernet() -> Fernet:
    key = hashlib.sha256(_PURPOSE + settings.SECRET_KEY.encode()).digest()
    return Fernet(base64.urlsafe_b64encode(key))


def secret_encrypt(secret: str) -> str:
    return _fernet().encrypt(secret.encode()).decode() if secret else ""


def secret_decrypt(stored: str) -> str:
    if not stored:
        return ""
    try:
        return _fernet().decrypt(stored.encode()).decode()
    except InvalidToken as error:
        raise SecretUnreadable("the webhook secret was stored under another SECRET_KEY") from error
