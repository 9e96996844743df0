"""The import graph of benchdash and workers, read with grimp (the graph builder of import-linter).

The layers are import-linter contracts in pyproject.toml, checked by `lint-imports`. What those cannot say is "no
cycle between any two modules, whatever their packages and depths", which is checked here. Imports inside functions
count: they are cycles that only wait for the wrong import order. Imports under `if TYPE_CHECKING:` do not.
"""

import grimp
import pytest

ROOT_PACKAGES = ("benchdash", "workers")


def import_cycles(graph: grimp.ImportGraph) -> list[tuple[str, ...]]:
    """Every import that takes part in a cycle, each shown in the shortest cycle through it.

    1. Take each direct import, importer -> imported.
    2. It lies on a cycle when a chain of imports leads from imported back to importer; the shortest one closes it.
    3. Rotate each cycle to start at its first module in name order, so that a cycle reached from several of its
       imports is listed once.
    """
    cycles: set[tuple[str, ...]] = set()
    for importer in graph.modules:
        for imported in graph.find_modules_directly_imported_by(importer):
            if imported == importer:
                cycles.add((importer,))
                continue
            chain_back = graph.find_shortest_chain(importer=imported, imported=importer)
            if chain_back is None:
                continue
            ring = (importer, *chain_back[:-1])
            start = ring.index(min(ring))
            cycles.add(ring[start:] + ring[:start])
    return sorted(cycles)


def describe_cycle(graph: grimp.ImportGraph, cycle: tuple[str, ...]) -> str:
    steps = []
    for importer, imported in zip(cycle, cycle[1:] + cycle[:1], strict=True):
        details = graph.get_import_details(importer=importer, imported=imported)
        lines = ", ".join(str(number) for number in sorted(detail["line_number"] for detail in details))
        steps.append(f"    {importer} -> {imported} (l.{lines})")
    return "\n".join(steps)


def test_no_module_imports_itself_through_others():
    graph = grimp.build_graph(*ROOT_PACKAGES, exclude_type_checking_imports=True, cache_dir=None)

    cycles = import_cycles(graph)

    if cycles:
        listed = "\n\n".join(describe_cycle(graph, cycle) for cycle in cycles)
        pytest.fail(f"{len(cycles)} import cycle(s); break each one:\n\n{listed}", pytrace=False)


def test_the_cycle_finder_lists_every_cycle_across_packages_and_depths():
    graph = grimp.ImportGraph()
    for importer, imported in [
        ("pkg.a.deep.one", "other.two"),
        ("other.two", "pkg.b"),
        ("pkg.b", "pkg.a.deep.one"),
        ("pkg.c", "pkg.d"),
        ("pkg.d", "pkg.c"),
        ("pkg.d", "pkg.b"),
        ("pkg.e", "pkg.e"),
    ]:
        graph.add_import(importer=importer, imported=imported, line_number=1, line_contents=f"import {imported}")

    assert import_cycles(graph) == [
        ("other.two", "pkg.b", "pkg.a.deep.one"),
        ("pkg.c", "pkg.d"),
        ("pkg.e",),
    ]


def test_the_cycle_finder_finds_nothing_in_a_graph_without_cycles():
    graph = grimp.ImportGraph()
    graph.add_import(importer="pkg.views", imported="pkg.models", line_number=1, line_contents="import pkg.models")
    graph.add_import(importer="pkg.models", imported="other.engine", line_number=1, line_contents="import other")

    assert import_cycles(graph) == []
