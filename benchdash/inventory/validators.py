"""The checks of what benchdash hands to a target, for every way in: the model's fields (so the admin and any
ModelForm) and the commands. A path (work directory, bin directory): the rule is the worker's own
(workers/paths.py), which checks it again before it reaches a host. A host's address and SSH port."""

import ipaddress
import re
import socket

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.utils.translation import gettext_lazy as _

from workers.paths import MAX_PATH_LENGTH, PathProblem, path_problem

_MESSAGES = {
    PathProblem.EMPTY: _("Enter an absolute path."),
    PathProblem.RELATIVE: _("%(path)s is not an absolute path: it must start with /."),
    PathProblem.CHARACTERS: _(
        "%(path)s has characters a shell could read as code: only letters, digits and / . _ - are allowed."
    ),
    PathProblem.PARENT: _("%(path)s has a .. component: name the directory itself."),
    PathProblem.LENGTH: _("%(path)s is longer than %(limit)s characters."),
}


def validate_target_path(path: str) -> None:
    """Raise ValidationError unless `path` is absolute, of letters, digits and / . _ - only, without `..`."""
    problem = path_problem(path)
    if problem is not None:
        raise ValidationError(
            _MESSAGES[problem], code=f"path_{problem}", params={"path": path, "limit": MAX_PATH_LENGTH}
        )


# A host name as RFC 1123 spells one: dot-separated labels of letters, digits and inner hyphens, 253 characters in all.
_HOST_NAME_RE = re.compile(r"(?=.{1,253}$)(?!-)[A-Za-z0-9-]{1,63}(?<!-)(?:\.(?!-)[A-Za-z0-9-]{1,63}(?<!-))*", re.ASCII)
NOT_AN_ADDRESS = _(
    "%(address)s is neither a host name (letters, digits and hyphens, in labels separated by dots) nor an IP address."
)
NUMERIC_NAME = _("%(address)s is written as a number: give the IP address in its usual form (as 192.0.2.10).")
LINK_LOCAL = _(
    "%(address)s is a link-local address (169.254.0.0/16, fe80::/10), where cloud machines answer with their "
    "credentials: benchdash refuses it unless an administrator sets BENCHDASH_ALLOW_LINK_LOCAL_HOSTS=true."
)
PORT_RANGE = _("A port is a number from 1 to 65535.")
validate_port = [MinValueValidator(1, PORT_RANGE), MaxValueValidator(65535, PORT_RANGE)]


def validate_host_address(address: str) -> None:
    """Raise ValidationError unless `address` is a host name (RFC 1123) or an IP address that is not link-local
    (unless settings.ALLOW_LINK_LOCAL_HOSTS)."""
    params = {"address": address}
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        _check_host_name(address, params)
        return
    mapped = ip.ipv4_mapped if isinstance(ip, ipaddress.IPv6Address) else None
    if (mapped or ip).is_link_local and not settings.ALLOW_LINK_LOCAL_HOSTS:
        raise ValidationError(LINK_LOCAL, code="link_local", params=params)


def _check_host_name(address: str, params: dict[str, str]) -> None:
    if not _HOST_NAME_RE.fullmatch(address):
        raise ValidationError(NOT_AN_ADDRESS, code="address", params=params)
    # The resolver reads 2852039166, 0xa9.0xfe.0xa9.0xfe or 169.254.43518 as IPv4 addresses, not as names.
    try:
        socket.inet_aton(address)
    except OSError:
        return
    raise ValidationError(NUMERIC_NAME, code="numeric_address", params=params)
