"""The environment fingerprint a trial keeps: microcode and NUMA nodes in the host's facts, the build's configure
options from its pg_config, what its server binary gives perf to name functions with; and the study page's table of
what differs between builds."""

import posixpath
import re
import subprocess
from datetime import timedelta
from pathlib import Path

import pytest
from django.urls import reverse
from django.utils import timezone, translation

from tests.factories import BuildFactory, ScenarioFactory, StudyFactory, succeeded_trial
from workers.builds import BuildInstallError, probe_build, symbols_text
from workers.facts import collect_host_facts
from workers.transport import Transport, connect


def _cpuinfo_microcode() -> str | None:
    match = re.search(r"^microcode\s*:\s*(\S+)", Path("/proc/cpuinfo").read_text(), re.MULTILINE)
    return match.group(1) if match else None


def test_the_facts_give_the_microcode_and_the_numa_nodes_of_the_local_machine(local_target):
    with connect(local_target) as transport:
        facts = collect_host_facts(transport, local_target.work_dir)
    assert facts["microcode"] == _cpuinfo_microcode()
    nodes = len(list(Path("/sys/devices/system/node").glob("node[0-9]*")))
    assert facts["numa_nodes"] == (nodes or None)


DEBIAN_15 = "/usr/lib/postgresql/15/bin"


def server_only_bin_dir(transport: Transport) -> str:
    """A bin dir of the target's account that holds Debian's server and nothing else: no pg_config, no client tool."""
    bin_dir = posixpath.join(transport.host.work_dir, "server-only", "bin")
    transport.run(["sh", "-c", 'mkdir -p -- "$2" && ln -s -- "$1/postgres" "$2/"', "sh", DEBIAN_15, bin_dir])
    return bin_dir


def test_one_probe_gives_the_builds_version_tools_and_configure_options(local_target):
    with connect(local_target) as transport:
        debian = probe_build(transport, DEBIAN_15, "/usr/lib/postgresql/15/lib")
        server_only = probe_build(transport, server_only_bin_dir(transport), "/usr/lib/postgresql/15/lib")
        with pytest.raises(BuildInstallError, match="/nonexistent/bin/postgres -V failed on local"):
            probe_build(transport, "/nonexistent/bin", "/nonexistent/lib")
    version = subprocess.run([f"{DEBIAN_15}/postgres", "-V"], capture_output=True, text=True).stdout.split()[2]
    assert (debian.version, debian.tools) == (version, {"psql", "pgbench", "pg_config"})
    assert "'--prefix=/usr'" in debian.configure
    assert (server_only.version, server_only.tools, server_only.configure) == (version, frozenset(), None)


def test_a_stripped_server_is_named_with_the_build_id_its_debug_symbols_would_be_found_by(local_target):
    described = subprocess.run(["file", "-L", f"{DEBIAN_15}/postgres"], capture_output=True, text=True).stdout
    build_id = re.search(r"BuildID\[sha1\]=([0-9a-f]+)", described).group(1)
    debug_file = Path(f"/usr/lib/debug/.build-id/{build_id[:2]}/{build_id[2:]}.debug")
    with connect(local_target) as transport:
        symbols = probe_build(transport, DEBIAN_15, "/usr/lib/postgresql/15/lib").symbols
    assert "stripped" in described and not debug_file.exists()  # Debian's server, without its dbgsym package
    assert symbols == f"stripped, no debug symbols for build ID {build_id}"


@pytest.mark.parametrize(
    ("output", "text"),
    [
        ("symtab no 1f2e", "own symbol table"),
        ("symtab yes 1f2e", "own symbol table"),
        ("stripped yes 1f2e", "debug symbols installed"),
        ("stripped no 1f2e", "stripped, no debug symbols for build ID 1f2e"),
        ("", None),  # no readelf on the host: nothing is claimed
    ],
)
def test_what_the_symbols_check_printed_as_the_fingerprint_says_it(output, text):
    assert symbols_text(output) == text


@pytest.mark.django_db
def test_the_study_page_shows_what_differs_between_the_builds_environments(client):
    scenario = ScenarioFactory(slug="environment")
    old, new = BuildFactory(version="13.4", name="pg13"), BuildFactory(version="15.0", name="pg15")
    study = StudyFactory(builds=[old, new], scenarios=[scenario], baseline=old, status="done")
    common = {"kernel": "6.1.0-18-amd64", "cpu_model": "AMD EPYC 7R13", "numa_nodes": 1, "turbo": True}
    finished = timezone.now()
    # The new build's trial finished first: the columns still read baseline first, as the results tables do.
    for build, microcode, configure, minutes in (
        (old, "0xa0011d1", "'--prefix=/usr'", 2),
        (new, "0xa0011d5", "'--with-llvm'", 1),
    ):
        succeeded_trial(
            study,
            build,
            scenario,
            1,
            1,
            1000.0,
            host_facts={**common, "microcode": microcode, "configure": configure},
            pgbench_version="15.14",
            finished_at=finished + timedelta(minutes=minutes),
        )
    response = client.get(reverse("studies:detail", args=[study.pk]), HTTP_ACCEPT_LANGUAGE="en")
    environment = response.context["environment"]
    assert environment.columns == ["pg13", "pg15"]
    assert [(str(row.label), row.values) for row in environment.differing] == [
        ("CPU microcode", ["0xa0011d1", "0xa0011d5"]),
        ("configure options (pg_config)", ["'--prefix=/usr'", "'--with-llvm'"]),
    ]
    assert "kernel" in [str(label) for label in environment.agreeing]
    assert "The builds ran in environments that differ in these" in response.content.decode()


@pytest.mark.django_db
def test_a_variant_study_s_page_speaks_of_its_variants_environments(client):
    from benchdash.studies.models import Variant

    scenario, build = ScenarioFactory(slug="variant-environment"), BuildFactory(version="15.0", name="pg15")
    study = StudyFactory(builds=[build], scenarios=[scenario], baseline=build, status="done")
    Variant.objects.filter(study=study).update(label="pg15 cpus=1", cpus=1)
    Variant.objects.create(study=study, build=build, label="pg15 cpus=2", cpus=2, position=1)
    facts = {"kernel": "6.1.0-18-amd64", "cpu_model": "AMD EPYC 7R13"}
    for variant in Variant.objects.filter(study=study):
        succeeded_trial(study, build, scenario, 1, 1, 1000.0, host_facts=facts, variant=variant)
    page = client.get(reverse("studies:detail", args=[study.pk]), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    section = page.split('id="environment"')[1].split("</section>")[0]
    assert "Every variant ran in the same environment." in section and "The same for every variant:" in section
    assert "build" not in section


@pytest.mark.django_db
def test_the_trends_index_says_what_differs_between_the_studies_of_two_chained_links():
    from benchdash.trends.page import index_rows
    from benchdash.trends.queries import trend_of

    scenario = ScenarioFactory(slug="chained-environment")
    v13, v14, v15 = BuildFactory(version="13.4"), BuildFactory(version="14.0"), BuildFactory(version="15.0")
    common = {"kernel": "6.1.0-18-amd64", "cpu_model": "AMD EPYC 7R13", "configure": "'--prefix=/usr'"}
    for (older, newer), microcode in (((v13, v14), "0xa0011d1"), ((v14, v15), "0xa0011d5")):
        study = StudyFactory(builds=[older, newer], scenarios=[scenario], baseline=older, status="done", official=True)
        for build, tps in ((older, 1000.0), (newer, 1100.0)):
            succeeded_trial(study, build, scenario, 1, 1, tps, host_facts={**common, "microcode": microcode})
    rows = index_rows(trend_of(scenario).index)
    assert [row.point.version for row in rows] == ["13", "14", "15"]
    with translation.override("en"):  # the labels are lazy: whatever language a test before this left active
        assert [[str(label) for label in row.environment_differs] for row in rows] == [[], [], ["CPU microcode"]]
