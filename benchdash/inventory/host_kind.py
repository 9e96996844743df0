"""A host's kind: the hosts whose run-to-run spread can stand for one another's (docs/GLOSSARY.md, "Host kind").

A host a cloud template made is of the template's kind: its instance type and image, whatever its facts say. Any
other host is of the kind its facts fingerprint: CPU model, core count, memory in whole GiB (rounded to the nearest,
since two machines of one model report a few MiB apart) and the kernel's major.minor release (6.1 of 6.1.0-13-amd64:
a distribution's patch releases of one kernel schedule alike). A host whose facts lack one of them has no kind.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from django.utils.translation import gettext

from benchdash.inventory.models import Host

_KERNEL_RELEASE = re.compile(r"\d+\.\d+")


@dataclass(frozen=True)
class HostKind:
    """One kind of host: a cloud instance type and image, or a hardware fingerprint (the other fields empty)."""

    instance_type: str = ""
    image: str = ""
    cpu_model: str = ""
    cores: int = 0
    memory_gib: int = 0
    kernel: str = ""

    @property
    def is_cloud(self) -> bool:
        return bool(self.instance_type)

    def describe(self) -> str:
        """The kind in words, as "from 4 studies on ..." ends: "m5a.8xlarge instances", or "hosts like this one:
        <CPU model>, 16 cores, 64 GiB, 6.1"."""
        if self.is_cloud:
            return gettext("%(instance_type)s instances") % {"instance_type": self.instance_type}
        return gettext("hosts like this one: %(cpu)s, %(cores)s cores, %(memory)s GiB, %(kernel)s") % {
            "cpu": self.cpu_model,
            "cores": self.cores,
            "memory": self.memory_gib,
            "kernel": self.kernel,
        }


def host_kind(host: Host) -> HostKind | None:
    """The host's kind: its cloud template's, else its facts' fingerprint; None when its facts cannot give one."""
    if host.cloud_instance_type:
        return HostKind(instance_type=host.cloud_instance_type, image=host.cloud_image)
    return hardware_kind(host.facts or {})


def hardware_kind(facts: dict[str, object]) -> HostKind | None:
    """The fingerprint of a host's facts (the module's rule); None when one of its parts is missing."""
    model, cores, memory, kernel = (facts.get(key) for key in ("cpu_model", "cpu_cores", "memory_bytes", "kernel"))
    release = _KERNEL_RELEASE.match(kernel) if isinstance(kernel, str) else None
    if not (isinstance(model, str) and model and isinstance(cores, int) and isinstance(memory, int) and release):
        return None
    return HostKind(cpu_model=model, cores=cores, memory_gib=round(memory / 2**30), kernel=release.group())


def hosts_of_kind(kind: HostKind) -> list[int]:
    """The ids of every host of the kind (the host it was read from among them)."""
    if kind.is_cloud:
        return list(
            Host.objects.filter(cloud_instance_type=kind.instance_type, cloud_image=kind.image).values_list(
                "pk", flat=True
            )
        )
    # The facts' CPU model and cores narrow it down in the store; memory and kernel are rounded, so compared here.
    candidates = Host.objects.filter(
        cloud_instance_type="", facts__cpu_model=kind.cpu_model, facts__cpu_cores=kind.cores
    ).values_list("pk", "facts")
    return [pk for pk, facts in candidates if hardware_kind(facts or {}) == kind]
