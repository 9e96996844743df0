"""Typed readers for settings taken from the environment; a bad value fails loudly at start-up."""

import errno
import os
import secrets
import stat
from decimal import Decimal
from pathlib import Path
from urllib.parse import quote

from django.core.exceptions import ImproperlyConfigured

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


def env_str(name: str, default: str) -> str:
    return os.environ.get(name, default)


def env_bool(name: str, default: bool) -> bool:
    raw = os.environ.get(name)
    if raw is None:
        return default
    value = raw.strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise ImproperlyConfigured(f"{name} must be true or false, not {raw!r}")


def env_int(name: str, default: int) -> int:
    raw = os.environ.get(name)
    if raw is None:
        return default
    try:
        return int(raw)
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be a whole number, not {raw!r}") from None


def env_decimal(name: str, default: str) -> Decimal:
    raw = os.environ.get(name, default)
    try:
        return Decimal(raw)
    except ArithmeticError:
        raise ImproperlyConfigured(f"{name} must be a number, not {raw!r}") from None


def env_list(name: str, default: list[str]) -> list[str]:
    raw = os.environ.get(name)
    if raw is None:
        return default
    return [item.strip() for item in raw.split(",") if item.strip()]


def env_service_url(name: str, local_url: str, port_name: str, default_port: int) -> str:
    """The URL in name; without it, local_url with `{port}` filled from port_name, the variable that deploy/lib.sh
    starts the local service on, so that set-up and settings name the same port."""
    url = os.environ.get(name)
    if url:
        return url
    return local_url.format(port=env_int(port_name, default_port))


def generated_secret(path: Path) -> str:
    """The secret kept in `path`, a 0600 file in a 0700 directory; generated on first use.

    Made by root (set-up), it goes to the owner of its directory, the account the processes run as. A file
    other accounts may read is refused: its secret would be theirs too; so is a link in place of it or its directory.
    """
    remedy = "set SECRET_KEY or chown it"
    try:
        return read_private_file(path, remedy)
    except FileNotFoundError:
        _write_new_secret(path)
    return read_private_file(path, remedy)


def read_private_file(path: Path, remedy: str) -> str:
    """The stripped text of a 0600 file; a file other accounts may read is refused: its secret would be theirs.

    Neither the file nor its directory may be a link (nor the file anything but a plain file): root, in set-up or
    a test run, reads these files in a directory of the run user's, and must not be led to a file of its own.
    """
    try:
        directory = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
        try:
            descriptor = os.open(path.name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK, dir_fd=directory)
        finally:
            os.close(directory)
    except PermissionError:
        raise ImproperlyConfigured(f"{path} cannot be read by this account; {remedy}") from None
    except OSError as error:
        # A link in place of the directory fails O_DIRECTORY (ENOTDIR) before O_NOFOLLOW (ELOOP).
        if error.errno != errno.ELOOP and not path.parent.is_symlink():
            raise
        raise ImproperlyConfigured(f"{path} or its directory is a link; remove it and run set-up again") from None
    with os.fdopen(descriptor) as file:
        mode = os.fstat(descriptor).st_mode
        if not stat.S_ISREG(mode):
            raise ImproperlyConfigured(f"{path} is not a plain file; remove it and run set-up again")
        if mode & 0o077:
            raise ImproperlyConfigured(f"{path} may be read by other accounts (mode {mode & 0o777:04o}); chmod 600 it")
        return file.read().strip()


def _write_new_secret(path: Path) -> None:
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return  # another process made it first
    except OSError as error:
        raise ImproperlyConfigured(f"cannot write {path} ({error.strerror}); set SECRET_KEY") from None
    owner = path.parent.stat()
    if os.geteuid() == 0 and owner.st_uid != 0:
        os.fchown(descriptor, owner.st_uid, owner.st_gid)  # the file made, not what its name may lead to now
    with os.fdopen(descriptor, "w") as file:
        file.write(secrets.token_urlsafe(50))


def secret_file(path: Path) -> str:
    """A generated password that deploy/setup.sh keeps in a 0600 file (var/secrets/), "" when there is none."""
    try:
        return read_private_file(path, "run the app as the account that owns it")
    except (FileNotFoundError, NotADirectoryError):
        return ""


def url_credentials(user: str, password: str) -> str:
    """'user:password@' for a URL, both quoted (braces too, so the result may go into a str.format template);
    '' when there are none."""
    credentials = f"{quote(user, safe='')}:{quote(password, safe='')}" if password else quote(user, safe="")
    return f"{credentials}@" if credentials else ""


def env_float_list(name: str, default: list[float]) -> list[float]:
    """Comma-separated positive numbers, e.g. delays in seconds: "5,10,20"."""
    items = env_list(name, [str(value) for value in default])
    try:
        values = [float(item) for item in items]
    except ValueError:
        values = []
    if not values or any(value <= 0 for value in values):
        raise ImproperlyConfigured(f"{name} must be positive numbers separated by commas, not {os.environ.get(name)!r}")
    return values
