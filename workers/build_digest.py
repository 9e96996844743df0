"""What an unpacked archive build must hold, and whether the copy on a target still holds exactly that.

The expected contents come from the archive on the worker (whose sha512 the registry vouched for), never
from the target: for every file under package/native/bin and lib its sha256, for every link its target
(the soname links benchdash adds, builds.link_shared_libraries). A target's copy is read with one
`find ... | sha256sum` and compared path by path; a file changed, added or removed refuses the build.

Hashing bin/ and lib/ (about 55 MB) takes a few tenths of a second, so the worker remembers, per process,
each verified copy's fingerprint: type, inode, size, change time and mode of every entry. A file cannot
be written, replaced or chmod-ed without a new change time (ctime, which no unprivileged account can set),
so while the fingerprint is the same the content is too, and a trial's check costs one `find` (~15 ms).
"""

import base64
import hashlib
import posixpath
import stat
import tarfile
from functools import lru_cache

from workers.transport import Transport

NATIVE = "package/native"
TREES = ("bin", "lib")
# $1 the build's native dir: every file's sha256 and every link's target, relative to it.
_CONTENT_SCRIPT = r"""
cd -- "$1" || exit 3
find bin lib -type l -printf 'l %l %p\n'
find bin lib -type f -exec sha256sum -- {} + | sed 's/^\([0-9a-f]*\)  /f \1 /'
find bin lib ! -type l ! -type f ! -type d -printf 'x - %p\n'
"""
# $1 the build's native dir: one line per entry, the fingerprint the content check is remembered by.
_FINGERPRINT_ARGS = ["-printf", "%y %i %s %C@ %m %U %p\n"]

Manifest = dict[str, tuple[str, str]]  # relative path -> ("f", sha256) or ("l", link target)


def sri_to_hex(integrity: str) -> str:
    """'sha512-<base64>' (npm's integrity) -> the hex digest sha512sum prints."""
    algorithm, _, encoded = integrity.partition("-")
    if algorithm != "sha512" or not encoded:
        raise ValueError(f"not a sha512 integrity string: {integrity!r}")
    return base64.b64decode(encoded).hex()


@lru_cache(maxsize=16)
def archive_manifest(path: str, digest: str) -> Manifest:
    """What bin/ and lib/ hold once the archive at path (of this sha512) is unpacked, without the soname
    links (links_manifest adds them). Cached by digest: an archive is read once per worker process."""
    manifest: Manifest = {}
    with tarfile.open(path, "r:gz") as archive:
        for member in archive:
            relative = posixpath.relpath(member.name, NATIVE)
            if relative.split("/", 1)[0] not in TREES:
                continue
            if member.isfile():
                stream = archive.extractfile(member)
                assert stream is not None
                content = hashlib.sha256()
                for chunk in iter(lambda: stream.read(1 << 20), b""):  # noqa: B023 (used before the next member)
                    content.update(chunk)
                manifest[relative] = ("f", content.hexdigest())
            elif member.issym():
                manifest[relative] = ("l", member.linkname)
    return manifest


def with_links(manifest: Manifest, links: dict[str, str]) -> Manifest:
    """The manifest with the soname links made in lib/ (name -> target, as link_shared_libraries made them)."""
    return {**manifest, **{f"lib/{name}": ("l", target) for name, target in links.items()}}


def parse_content(text: str) -> Manifest:
    manifest: Manifest = {}
    for line in text.splitlines():
        kind, value, path = line.split(" ", 2)
        manifest[path] = (kind, value)
    return manifest


def manifest_differences(expected: Manifest, found: Manifest) -> list[str]:
    """'changed: bin/postgres', 'added: lib/evil.so', 'missing: bin/initdb', sorted by path."""
    changes = []
    for path in sorted(set(expected) | set(found)):
        if path not in found:
            changes.append(f"missing: {path}")
        elif path not in expected:
            changes.append(f"added: {path}")
        elif expected[path] != found[path]:
            changes.append(f"changed: {path}")
    return changes


def target_content(transport: Transport, native_dir: str) -> Manifest:
    result = transport.run(["sh", "-c", _CONTENT_SCRIPT, "sh", native_dir], timeout=600)
    return parse_content(result.text)


def target_fingerprint(transport: Transport, native_dir: str) -> tuple[str, list[str]]:
    """(a digest of every entry's type, inode, size, ctime, mode and owner; entries others could write)."""
    argv = ["find", *(posixpath.join(native_dir, tree) for tree in TREES), *_FINGERPRINT_ARGS]
    text = transport.run(argv, timeout=120).text
    writable = []
    for line in text.splitlines():
        kind, _inode, _size, _ctime, mode, _uid, path = line.split(" ", 6)
        if kind != "l" and int(mode, 8) & (stat.S_IWGRP | stat.S_IWOTH):
            writable.append(path)
    return hashlib.sha256(text.encode()).hexdigest(), writable
