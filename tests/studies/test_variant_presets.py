"""The seeds' variant designs as presets (issue 21, point 7): the seeds' own words, the levels and repetitions they
state and what they leave unsaid, and each preset queued and planned against hosts of its kind."""

import io
import math
import re
import unicodedata
from pathlib import Path

import pytest
from django.core.management import call_command

from benchdash.studies.models import HostOrder, Load, Study, StudyPreset
from benchdash.studies.preset_sync import presets_sync
from benchdash.studies.seed_data import STUDY_PRESETS, VARIANT_PRESETS
from benchdash.studies.variant_design import parse_axes
from tests.factories import BuildFactory, HostFactory

SEEDS = Path(__file__).resolve().parents[3] / "shared" / "seeds"
PRESETS = {preset.slug: preset for preset in VARIANT_PRESETS}
SEED_OF = {"(seed 004)": "004_efa41cc6e0969691.txt", "(seed 001)": "001_108ef3f2346e8455.txt"}
SEED_OF["(seed 003)"] = "003_812d2844a1833bf1.txt"


def squeezed(text: str) -> str:
    return re.sub(r"\s+", "", unicodedata.normalize("NFKC", text))


def seed_of(slug: str) -> str:
    [name] = [file for mark, file in SEED_OF.items() if mark in PRESETS[slug].source]
    if not (SEEDS / name).exists():
        pytest.skip(f"no seed documents at {SEEDS}")
    return (SEEDS / name).read_text()


@pytest.mark.parametrize("slug", PRESETS)
def test_every_quote_in_a_variant_preset_is_its_seeds_own_wording(slug):
    seed = squeezed(seed_of(slug))
    quotes = re.findall(r"「(.*?)」", PRESETS[slug].procedure)
    assert quotes and [quote for quote in quotes if squeezed(quote) not in seed] == []


def test_the_levels_and_repetitions_are_the_ones_the_seeds_state():
    doruby = seed_of("doruby-2008-transactions")
    t_values = [int(line.split()[0]) for line in doruby.split("t値")[1].split("★")[0].splitlines()[1:] if line.strip()]
    transactions = PRESETS["doruby-2008-transactions"]
    assert transactions.vary == "transactions=" + ",".join(map(str, t_values)) == "transactions=10,100,500,1000"
    assert (transactions.client_levels, transactions.scale, transactions.repetitions) == ((10,), 25, 10)
    hot = PRESETS["doruby-2008-hot"]
    assert "pgbench -c 10 -t 10000 hot_test" in doruby and "-F 90" in doruby
    assert (hot.vary, hot.client_levels, hot.scale) == ("fillfactor=100,90\ntransactions=10000", (10,), 10)
    assert "コア数を15、30、45、60" in seed_of("pgecons-2014-core-scalability")
    assert PRESETS["pgecons-2014-core-scalability"].vary == "cpus=15,30,45,60"
    assert max(PRESETS["pgecons-2014-core-scalability"].client_levels) == 384
    windows = {preset.slug: preset.client_levels for preset in STUDY_PRESETS}  # the Windows procedure's (p.17, p.18)
    assert PRESETS["pgecons-2020-os-reference"].client_levels == windows["pgecons-2020-windows-reference"]
    assert PRESETS["pgecons-2020-os-update"].client_levels == windows["pgecons-2020-windows-update"]


@pytest.mark.parametrize("slug", PRESETS)
def test_each_preset_compares_something_and_says_what_its_seed_leaves_unsaid(slug):
    preset = PRESETS[slug]
    assert preset.vary and "compared: 「" in preset.procedure
    assert "not stated" in preset.procedure or slug.startswith("pgecons-2020-os")  # the Windows study states it all


HOSTS = ("physical", "kvm-guest", "kvm-guest-1", "kvm-guest-2", "windows", "linux", "no-container")
HOSTS += ("docker-hostfs-hostnet", "docker-hostfs-bridge", "docker-containerfs-hostnet", "docker-containerfs-bridge")


@pytest.fixture
def lab(db):
    """Hosts of each kind the presets name, with the seeds' 60 cores, and a build they can run."""
    presets_sync()
    facts = {"cpu_threads": 64, "architecture": "x86_64"}
    for name in ("lab", *HOSTS):
        HostFactory(name=name, facts=facts)
    return BuildFactory(name="pg15", version="15.20", bin_dir="/usr/lib/postgresql/15/bin")


@pytest.mark.django_db
@pytest.mark.parametrize("slug", PRESETS)
def test_each_preset_queues_and_plans_against_hosts_of_its_kind(lab, slug):
    preset = StudyPreset.objects.get(slug=slug)
    args = ["--preset", slug, "--builds", "pg15", "--host", "lab", "--title", slug]
    call_command("queue_study", *args, stdout=io.StringIO(), stderr=io.StringIO())
    study = Study.objects.get(title=slug)
    axes = parse_axes(preset.vary.splitlines())
    variants = math.prod(len(axis.values) for axis in axes)
    assert study.variants.count() == variants and study.variants.filter(baseline=True).count() == 1
    cells = variants * len(preset.client_levels) * preset.scenarios.count()
    # No seed states a warm-up run: each preset runs one per cell, uncounted, before its rounds.
    assert study.warmup_runs == preset.warmup_runs == 1
    assert study.trials.count() == cells * (1 + preset.repetitions)
    assert study.trials.filter(warmup=True, repetition=0).count() == cells
    assert (study.scale, study.repetitions, list(study.client_levels)) == (
        preset.scale,
        preset.repetitions,
        preset.client_levels,
    )
    hosts = {axis.name: axis.values for axis in axes}.get("host", ())
    assert set(study.trials.values_list("host__name", flat=True)) == (set(hosts) or {"lab"})


@pytest.mark.django_db
def test_a_vary_option_replaces_only_the_preset_s_axis_of_its_name(lab):
    """The KVM design narrowed to 4 CPUs keeps its two hosts; an axis the preset lacks is added to its own."""
    args = ["--preset", "pgecons-2014-kvm-update", "--builds", "pg15", "--host", "lab", "--title", "narrowed"]
    call_command("queue_study", *args, "--vary", "CPUs=4", "--vary", "checksums=off,on", stdout=io.StringIO())
    study = Study.objects.get(title="narrowed")
    variants = set(study.variants.values_list("db_host__name", "cpus", "data_checksums"))
    assert variants == {(host, 4, checksums) for host in ("physical", "kvm-guest") for checksums in (False, True)}


@pytest.mark.django_db
def test_a_preset_s_study_is_named_after_the_preset_unless_titled(lab):
    call_command(
        "queue_study", "--preset", "pgecons-2014-checksums", "--builds", "pg15", "--host", "lab", stdout=io.StringIO()
    )
    preset = StudyPreset.objects.get(slug="pgecons-2014-checksums")
    assert Study.objects.get().title == f"{preset.name}: PostgreSQL 15.20"


@pytest.mark.django_db
def test_the_dual_boot_presets_run_one_host_after_the_other_and_the_two_guests_preset_loads_them_at_once(lab):
    for slug in ("pgecons-2020-os-update", "pgecons-2014-kvm-two-guests"):
        args = ["--preset", slug, "--builds", "pg15", "--host", "lab", "--title", slug]
        call_command("queue_study", *args, stdout=io.StringIO(), stderr=io.StringIO())
    dual_boot, two_guests = (
        Study.objects.get(title="pgecons-2020-os-update"),
        Study.objects.get(title="pgecons-2014-kvm-two-guests"),
    )
    assert dual_boot.host_order == HostOrder.IN_TURN
    assert two_guests.host_order == HostOrder.TOGETHER
    assert set(two_guests.variants.values_list("db_host__name", "load")) == {
        (host, load) for host in ("kvm-guest-1", "kvm-guest-2") for load in (Load.ALONE, Load.AT_ONCE)
    }
    assert two_guests.variants.get(baseline=True).label.endswith("host=kvm-guest-1 load=alone")
