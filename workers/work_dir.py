"""A target's work dir is private to the account benchdash runs as there, or the target is refused.

Builds, clusters, their passwords and the fence all live under the work dir: another account that could
write there (or replace a directory on its path) could plant a build that benchdash would run. So before
a trial uses a host, check_work_dir makes the dir (mode 0700) if it is missing, then checks:

1. every directory on its path, every symbolic link on it and every directory such a link passes through
   (links are resolved one at a time, each checked itself) belongs to root or to the account, and no other
   account can write to it (a link cannot be written, only replaced by the owner of its directory). One
   exception: a directory of root's with the sticky bit (/tmp, /var/tmp) may be writable by all, as an ancestor
   only: there nobody may rename or remove an entry of another account's, and the entries below it (the work
   dir, or a directory of the account's) are checked as usual;
2. the work dir itself belongs to the account; group and others lose any access it gave them (chmod 700).
"""

import posixpath
import stat
from dataclasses import dataclass

from workers.transport import Transport, TransportError

# $1 "make" to make the path (mode 0700) when it is missing, $2 "files" to list the files in it too, $3 the path,
# $4 a name that must be found in it (exit 5 when it is not, before anything is read), or nothing.
# Prints the account's uid, then "uid mode type|path" (lstat) for the resolved path, then for every entry met
# walking the path from / one name at a time: a link is resolved one step (readlink), and its target walked the
# same way, so every link and every directory it passes through is seen (and, with "files", every entry in it).
# The walk gathers the entries (the shell's own tests); one stat reads them all.
_CHECK_SCRIPT = r"""
make=$1 files=$2 path=$3 required=$4
umask 077
if [ "$make" = make ]; then mkdir -p -- "$path" || exit 3; fi
if [ -n "$required" ] && [ ! -e "$path/$required" ]; then exit 5; fi
id -u
set -- /
resolved='' pending=$path links=0
while :; do
  pending=${pending#"${pending%%[!/]*}"}
  [ -n "$pending" ] || break
  name=${pending%%/*}
  case $pending in */*) pending=${pending#*/} ;; *) pending='' ;; esac
  case $name in
    .) continue ;;
    ..) resolved=${resolved%/*}; continue ;;
  esac
  current=$resolved/$name
  set -- "$@" "$current"
  if [ -L "$current" ]; then
    links=$((links + 1))
    if [ "$links" -gt 40 ]; then echo "$path: more than 40 symbolic links" >&2; exit 4; fi
    target=$(readlink -- "$current") || exit 4
    case $target in /*) resolved='' ;; esac
    pending=$target/$pending
  else
    resolved=$current
  fi
done
stat -c '%u %f %F|%n' -- "${resolved:-/}" "$@" || exit 4
if [ "$files" = files ]; then find "$path/" -mindepth 1 -maxdepth 1 ! -type l -exec stat -c '%u %f %F|%n' -- {} +; fi
"""
LINK = "symbolic link"


class UnsafeWorkDir(TransportError):
    """The work dir, or a directory on its path, could be changed by another account: the host is refused."""


class RequiredFileMissing(TransportError):
    """The path holds no file of the name it must hold (a build's bin dir without postgres), or does not exist."""


@dataclass(frozen=True)
class PathEntry:
    path: str
    uid: int
    mode: int  # st_mode: type and permission bits
    kind: str  # as stat prints it: "directory", "regular file", ...


def parse_entries(text: str) -> tuple[int, list[PathEntry]]:
    """The check script's output: the account's uid and each directory met, once."""
    lines = text.splitlines()
    entries: dict[str, PathEntry] = {}
    for line in lines[1:]:
        fields, _, path = line.partition("|")
        uid, mode, kind = fields.split(" ", 2)
        entries.setdefault(path, PathEntry(path, int(uid), int(mode, 16), kind))
    return int(lines[0]), list(entries.values())


def path_refusals(
    uid: int, entries: list[PathEntry], target: str, *, target_is_the_account_s: bool = True
) -> list[str]:
    """Why the path target is not private (empty when it is): rules 1 and 2 of the module's docstring. A build's
    bin dir may be root's (target_is_the_account_s False); files are checked as directories, without the sticky
    exception."""
    reasons = []
    for entry in entries:
        own = entry.path == target
        is_dir = entry.kind == "directory"
        # A link's own mode means nothing (always 0777): only its owner, or the directory's, can replace it.
        is_link = entry.kind == LINK and not own
        writable_by_others = entry.mode & (stat.S_IWGRP | stat.S_IWOTH) and not is_link
        sticky_root_dir = is_dir and entry.uid == 0 and entry.mode & stat.S_ISVTX
        if not is_dir and not is_link and (own or entry.kind != "regular file"):
            reasons.append(f"{entry.path} is not a directory" if own else f"{entry.path} is a {entry.kind}")
        elif own and target_is_the_account_s and entry.uid != uid:
            reasons.append(f"{entry.path} belongs to uid {entry.uid}, not to the account benchdash runs as (uid {uid})")
        elif entry.uid not in (0, uid):
            reasons.append(f"{entry.path} belongs to uid {entry.uid}, neither root nor the account (uid {uid})")
        elif writable_by_others and (own or not sticky_root_dir):
            reasons.append(f"{entry.path} is writable by other accounts (mode {stat.S_IMODE(entry.mode):04o})")
    return reasons


def inspect_path(
    transport: Transport, path: str, *, make: bool, files: bool, required: str = ""
) -> tuple[int, list[PathEntry]]:
    """The account's uid and the entries of path's directories (and files), one round trip; UnsafeWorkDir when
    the path cannot be made or read, RequiredFileMissing when required is given and path holds nothing of that name."""
    if not posixpath.isabs(path):
        raise UnsafeWorkDir(f"{path!r} on {transport.host.name} is not an absolute path")
    flags = ["make" if make else "", "files" if files else ""]
    argv = ["sh", "-c", _CHECK_SCRIPT, "sh", *flags, path, required]
    result = transport.run(argv, check=False, timeout=60)
    if result.exit_status == 5:
        raise RequiredFileMissing(f"{path} on {transport.host.name} holds no {required}")
    if not result.ok:
        detail = result.stderr.decode("utf-8", "replace").strip()
        raise UnsafeWorkDir(f"cannot make or inspect {path} on {transport.host.name}: {detail}")
    return parse_entries(result.text)


def check_work_dir(transport: Transport) -> None:
    """Make the host's work dir if missing and make sure it is private (see the module's docstring);
    raises UnsafeWorkDir, with every reason, when it is not. Two round trips at most."""
    work_dir = transport.host.work_dir
    uid, entries = inspect_path(transport, work_dir, make=True, files=False)
    resolved = entries[0].path
    reasons = path_refusals(uid, entries, resolved)
    if reasons:
        raise UnsafeWorkDir(
            f"{transport.host.name} refused: its work dir {work_dir} is not private to the account benchdash "
            f"runs as: {'; '.join(reasons)}. Use a directory in that account's home, or /var/lib/benchdash "
            f"owned by it with mode 0700."
        )
    if stat.S_IMODE(entries[0].mode) & 0o077:
        transport.run(["chmod", "700", "--", resolved], timeout=60)


def check_installed_dir(transport: Transport, directory: str, build_name: str, required: str = "") -> None:
    """An installed build's bin or lib dir, and every file in it, belong to root or the account and no other
    account may change them (as Debian's /usr/lib/postgresql/N/bin): else the build is refused. RequiredFileMissing
    when it holds nothing named required (given)."""
    uid, entries = inspect_path(transport, directory, make=False, files=True, required=required)
    reasons = path_refusals(uid, entries, entries[0].path, target_is_the_account_s=False)
    if reasons:
        raise UnsafeWorkDir(
            f"build {build_name} refused on {transport.host.name}: other accounts could change what it runs: "
            f"{'; '.join(reasons[:5])}"
        )


def ensure_private_work_dir(transport: Transport) -> None:
    """check_work_dir once per transport (a trial's connection): the builds and clusters of a trial rely on it."""
    if transport.private_work_dir != transport.host.work_dir:
        check_work_dir(transport)
        transport.private_work_dir = transport.host.work_dir
