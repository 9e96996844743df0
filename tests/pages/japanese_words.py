"""The English words a Japanese page shows, and those it may: units and names of things (TPS, PostgreSQL, pgbench),
the settings catalog's setting names, code (identifiers, paths, what <code> holds), what a part marked lang="en"
says, and what the store holds under a name (slugs, hosts, builds, titles, facts, members)."""

import re
from collections.abc import Iterable
from html.parser import HTMLParser

from django.contrib.auth.models import User

from benchdash.inventory.models import Build, Host
from benchdash.studies.models import Scenario, Study, StudyPreset
from workers.settings_catalog import catalog_majors, load_catalog

WORD = re.compile(r"[A-Za-z][A-Za-z0-9_]*(?:[-.'’][A-Za-z0-9_]+)*")
# An identifier (pg_stat_user_tables, PostgresMain), a path, an address, a key=value, an option (--builds), a short
# quoted literal ('name = value'), an English title quoted whole (「Power before a study runs」) or a word cut short
# (pgb…): code, a citation or a part of a stored text, not interface text.
CODE = re.compile(r"[^\s「」]*(?:_|[a-z][A-Z]|/|=)[^\s「」]*|(?<!\S)--?[a-z][\w-]*|'[ -&(-~]{1,30}'|「[ -~]+」|\S+…")
CODE_TAGS = frozenset({"script", "style", "code", "kbd", "samp", "pre", "textarea"})
VOID_TAGS = frozenset({"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "wbr"})
SHOWN_ATTRIBUTES = ("title", "placeholder", "aria-label", "alt")
# Units, formats, programs and their files, products, protocols, SQL, column names (sar's, perf's, pgbench_accounts'
# filler), pgbench's built-in scripts, EC2's terminate: the same words in a Japanese text; the sample evidence's disk,
# wait event and perf's [postgres] and main; PGECons' WG (working group); the language chooser's "English".
NAMES = """
TPS ms MiB GiB KiB TiB MB GB kB GHz CPU CPUs vCPU SSH CSV PDF PPTX PNG SVG JSON API URL HTTP HTTPS zip PostgreSQL
Postgres pgbench sar sadf perf Redis Celery S3 EC2 AWS OS ID IO WAL HOT KVM Docker Windows Linux Debian RHEL DB CV
HDD SSD NUMA PGECons DoRuby EDB EPAS TPC-B SQL psql initdb pg_config pgstattuple benchdash Django plotly sysstat Atom
RSS OK vs t-test E-divisive Apache Otava Hodges Lehmann LWLock BufferPin iowait steal await util idle user system
Lock transactionid vda English Transparent Huge Pages SHOW ALL self children icicle log filler fillfactor WG
select-only simple-update tpcb-like manage.py npm postgresql.conf terminate postgres main Webhook X-Benchdash-Signature
"""


class _ShownText(HTMLParser):
    """The text a reader sees and the shown attributes, leaving out code and parts in another language."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.open: list[tuple[str, bool]] = []  # tag, whether its content is left out

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attributes = dict(attrs)
        self.parts += [attributes[name] or "" for name in SHOWN_ATTRIBUTES if name in attributes]
        if tag not in VOID_TAGS:
            other_language = attributes.get("lang") not in (None, "ja")
            self.open.append((tag, self.skipping or tag in CODE_TAGS or other_language))

    def handle_endtag(self, tag: str) -> None:
        while self.open and self.open.pop()[0] != tag:
            pass

    def handle_data(self, data: str) -> None:
        if not self.skipping:
            self.parts.append(data)

    @property
    def skipping(self) -> bool:
        return bool(self.open) and self.open[-1][1]


def english_words(html: str) -> set[str]:
    """The ASCII words of two letters or more a reader sees, but code."""
    parser = _ShownText()
    parser.feed(html)
    text = CODE.sub(" ", " ".join(parser.parts))
    return {word for word in WORD.findall(text) if sum(c.isalpha() for c in word) >= 2}


def allowed_words() -> set[str]:
    stored = [*Scenario.objects.values_list("slug", flat=True), *StudyPreset.objects.values_list("slug", flat=True)]
    stored += [*Host.objects.values_list("name", flat=True), *Build.objects.values_list("name", flat=True)]
    stored += [*Study.objects.values_list("title", flat=True), *User.objects.values_list("username", flat=True)]
    return set(NAMES.split()) | _setting_names() | _words_of([*stored, *_fact_values(), *_published_records()])


def _published_records() -> list[str]:
    """What data/published_results.csv records of each published study, in its source's words."""
    fields = ("source", "hardware", "os", "notes", "trials__conditions", "trials__notes")
    rows = Study.objects.filter(kind=Study.Kind.PUBLISHED).values_list(*fields)
    return [str(value) for row in rows for value in row if value]


def _fact_values() -> list[str]:
    return [str(value) for facts in Host.objects.values_list("facts", flat=True) for value in (facts or {}).values()]


def _setting_names() -> set[str]:
    catalogs = [load_catalog(major) for major in catalog_majors()]
    return {name for catalog in catalogs if catalog for name in catalog.settings}


def _words_of(texts: Iterable[str]) -> set[str]:
    return {word for text in texts for word in WORD.findall(text)}
