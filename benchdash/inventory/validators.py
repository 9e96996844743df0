"""The checks of what benchdash hands to a target, for every way in: the model's fields (so the admin and any
ModelForm) and the commands. A path (work directory, bin directory): the rule is the worker's own
(workers/paths.py), which checks it again before it reaches a host. A host's address (the worker's rule too,
workers/addresses.py, checked again when it connects) and SSH port."""

import ipaddress
import re
import socket

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.utils.translation import gettext_lazy as _

from workers.addresses import AddressProblem, address_problem, resolve, written_as_ip
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
METADATA = _(
    "%(address)s is a cloud metadata address (fd00:ec2::254, 100.100.100.200), where cloud machines answer with "
    "their credentials: benchdash refuses it unless an administrator sets BENCHDASH_ALLOW_LINK_LOCAL_HOSTS=true."
)
DISGUISED = _(
    "%(address)s is this machine in disguise (0.0.0.0, ::, or loopback inside an IPv6 address; write loopback as "
    "127.0.0.1 or ::1): benchdash refuses it unless an administrator sets BENCHDASH_ALLOW_LINK_LOCAL_HOSTS=true."
)
RESOLVED = _("%(name)s (resolves to %(ip)s)")
_ADDRESS_MESSAGES = {
    AddressProblem.LINK_LOCAL: LINK_LOCAL,
    AddressProblem.METADATA: METADATA,
    AddressProblem.DISGUISED: DISGUISED,
}
PORT_RANGE = _("A port is a number from 1 to 65535.")
validate_port = [MinValueValidator(1, PORT_RANGE), MaxValueValidator(65535, PORT_RANGE)]


def validate_host_address(address: str) -> None:
    """Raise ValidationError unless `address` is a host name (RFC 1123) or an IP address, and neither it nor any
    address the name resolves to is one that workers/addresses.py refuses (unless settings.ALLOW_LINK_LOCAL_HOSTS).

    A name that does not resolve here is taken: the web server may not see the targets' names, and the worker
    checks what it resolves to when it connects."""
    try:
        ipaddress.ip_address(address)
    except ValueError:
        _check_host_name(address, {"address": address})
    refused = None if settings.ALLOW_LINK_LOCAL_HOSTS else address_problem(resolve(address))
    if refused is not None:
        ip, problem = refused
        shown = address if written_as_ip(address, ip) else RESOLVED % {"name": address, "ip": ip}
        raise ValidationError(_ADDRESS_MESSAGES[problem], code=str(problem), params={"address": shown})


def _check_host_name(address: str, params: dict[str, str]) -> None:
    if not _HOST_NAME_RE.fullmatch(address):
        raise ValidationError(NOT_AN_ADDRESS, code="address", params=params)
    # The resolver reads 2852039166, 0xa9.0xfe.0xa9.0xfe or 169.254.43518 as IPv4 addresses, not as names.
    try:
        socket.inet_aton(address)
    except OSError:
        return
    raise ValidationError(NUMERIC_NAME, code="numeric_address", params=params)
