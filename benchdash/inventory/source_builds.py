"""Source builds: registered from a tarball (a file on the worker, or a URL downloaded once into BUILDS_DIR) or a
git ref, with patches and configure options; compiled on a target by the engine (workers/source_build.py), which
reports the configure line and the compiler recorded here."""

import re
import shutil
import urllib.request
from collections.abc import Sequence
from pathlib import Path

from django.conf import settings
from django.core.exceptions import ValidationError

from benchdash.inventory.models import Build
from workers import source_build
from workers.builds import InstalledBuild

# postgresql-15.18.tar.bz2, postgresql-15_15.18.orig.tar.bz2, postgresql-9.6.24.tar.gz, REL_15_18, REL9_6_24
_VERSION_IN_NAME_RE = re.compile(r"(\d+\.\d+(?:\.\d+)?)(?:\.orig)?\.tar\.[a-z0-9]+$")
_VERSION_IN_REF_RE = re.compile(r"^REL_?(\d+)_(\d+)(?:_(\d+))?$")
_URL_RE = re.compile(r"^https?://")


class SourceBuildRefused(Exception):
    """The source build was not registered; the message says why, and nothing was changed."""


def version_from_source(tarball: str, git_ref: str) -> str:
    """The version a tarball's name or a release tag says ('' when neither says one)."""
    if match := _VERSION_IN_NAME_RE.search(Path(tarball).name):
        return match.group(1)
    if match := _VERSION_IN_REF_RE.match(git_ref):
        return ".".join(part for part in match.groups() if part)
    return ""


def tarball_on_worker(tarball: str) -> str:
    """The tarball's path on the worker: a URL is downloaded once into BUILDS_DIR/sources/, a path is taken as is."""
    if not _URL_RE.match(tarball):
        return str(Path(tarball).resolve())
    target = Path(settings.BUILDS_DIR, "sources", Path(tarball.split("?", 1)[0]).name)
    if not target.is_file():
        target.parent.mkdir(parents=True, exist_ok=True)
        part = target.with_name(target.name + ".part")
        try:
            with urllib.request.urlopen(tarball, timeout=60) as response, part.open("wb") as stream:  # noqa: S310
                shutil.copyfileobj(response, stream)
        except OSError as error:
            raise SourceBuildRefused(f"cannot download {tarball}: {error}") from error
        part.rename(target)
    return str(target)


def build_register_source(
    *,
    name: str,
    tarball: str = "",
    git_url: str = "",
    git_ref: str = "",
    patches: Sequence[str] = (),
    configure_flags: str = "",
    version: str = "",
) -> Build:
    """Register (or describe anew) the source build `name`; its digest is taken from what is on the worker now."""
    if bool(tarball) == bool(git_ref):
        raise SourceBuildRefused("give either a tarball or a git URL and ref")
    build = Build.objects.filter(name=name).first() or Build(name=name)
    if build.pk and build.kind != Build.Kind.SOURCE:
        raise SourceBuildRefused(f"a build named {name!r} exists and is not a source build")
    path = tarball_on_worker(tarball) if tarball else ""
    build.kind = Build.Kind.SOURCE
    build.archive_path, build.source_url, build.git_ref = path, git_url or tarball, git_ref
    build.patches = "\n".join(str(Path(patch).resolve()) for patch in patches)
    build.configure_flags = configure_flags
    build.version = version or version_from_source(path, git_ref)
    build.configure_line = build.compiler = ""
    if problem := source_build.source_problem(build.spec()):
        raise SourceBuildRefused(problem)
    if not build.version:
        raise SourceBuildRefused(
            "the version cannot be read from the source's name: give it with --pg-version (e.g. 9.6.24)"
        )
    try:
        build.full_clean()
    except ValidationError as error:
        raise SourceBuildRefused("; ".join(error.messages)) from error
    build.save()
    return build


def build_record_compile(*, build: Build, installed: InstalledBuild, info: source_build.SourceBuildInfo) -> None:
    """What a compile on a target said: the version `postgres -V` gives, the configure line, the compiler."""
    build.version, build.configure_line, build.compiler = installed.version, info.configure_line, info.compiler
    build.save(update_fields=["version", "version_sort", "configure_line", "compiler"])
