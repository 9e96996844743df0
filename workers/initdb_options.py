"""A variant's cluster creation options (initdb): data checksums, WAL segment size, locale and encoding, as initdb
arguments, checked against what the build's own initdb knows (`initdb --help`) before a cluster is made.

Without options a cluster is made as before variants: UTF8, no locale, checksums as initdb's default.
"""

import hashlib
import re
from dataclasses import dataclass

# The first version (version_sort: 9.3 -> 90300) whose initdb has the option; the others every supported one has.
OPTION_FLOORS = {"--data-checksums": 90300, "--wal-segsize": 110000, "--no-data-checksums": 180000}
DEFAULT_ENCODING = "UTF8"
_OPTION_RE = re.compile(r"(?<![\w-])(--[a-z][a-z-]*)")


class InitdbOptionUnknown(ValueError):
    """The build's initdb has no such option: the variant cannot be made with this build."""


@dataclass(frozen=True)
class InitdbOptions:
    """None and "": initdb's default (checksums) or benchdash's (UTF8, no locale). wal_dir: a directory of the DB
    host under which each cluster keeps its WAL (initdb -X, workers/wal_dir.py); "": inside the data directory."""

    data_checksums: bool | None = None
    wal_segment_mb: int | None = None
    locale: str = ""
    encoding: str = ""
    wal_dir: str = ""

    @property
    def tag(self) -> str:
        """A short name of the options for the cluster's directory: '' without any, else 'k1-w64'."""
        parts = []
        if self.data_checksums is not None:
            parts.append(f"k{int(self.data_checksums)}")
        if self.wal_segment_mb:
            parts.append(f"w{int(self.wal_segment_mb)}")
        if self.locale:
            parts.append(f"l{self.locale}")
        if self.encoding:
            parts.append(f"e{self.encoding}")
        if self.wal_dir:  # a path is no directory name: its digest tells two WAL directories apart
            parts.append(f"x{hashlib.sha256(self.wal_dir.encode()).hexdigest()[:8]}")
        return "-".join(parts)


def initdb_option_floor(option: str) -> int | None:
    return OPTION_FLOORS.get(option)


def known_options(help_text: str) -> set[str]:
    """Every long option `initdb --help` lists."""
    return set(_OPTION_RE.findall(help_text))


def initdb_arguments(options: InitdbOptions, known: set[str]) -> list[str]:
    """The initdb arguments for these options; InitdbOptionUnknown when the build's initdb lacks one that matters.
    Checksums off on an initdb without --no-data-checksums (before 18) is its default: nothing to add."""
    argv = ["-E", options.encoding or DEFAULT_ENCODING]
    argv += [f"--locale={options.locale}"] if options.locale else ["--no-locale"]
    wanted = []
    if options.data_checksums:
        wanted.append("--data-checksums")
    elif options.data_checksums is False and "--no-data-checksums" in known:
        wanted.append("--no-data-checksums")
    if options.wal_segment_mb:
        wanted.append(f"--wal-segsize={int(options.wal_segment_mb)}")
    missing = [option.split("=")[0] for option in wanted if option.split("=")[0] not in known]
    if missing:
        raise InitdbOptionUnknown(f"this build's initdb has no {', '.join(missing)} (initdb --help does not list it)")
    return argv + wanted


def locale_key(name: str) -> str:
    """A locale name as the C library matches it: the codeset without case or punctuation ('ja_JP.UTF-8' and
    `locale -a`'s 'ja_JP.utf8' are one locale)."""
    language, dot, rest = name.partition(".")
    codeset, at, modifier = rest.partition("@")
    return language + dot + re.sub(r"[^a-z0-9]", "", codeset.lower()) + at + modifier


def locale_installed(name: str, installed: list[str]) -> bool:
    """Whether `locale -a`'s list holds the locale."""
    return locale_key(name) in {locale_key(each) for each in installed}
