"""Writes pytest's rewritten bytecode of the test modules and conftest.py files, before `make test`'s workers start
and before `make check`'s pytest.

Where PYTHONDONTWRITEBYTECODE is set (this machine and CI), pytest reads the cached bytecode of a module whose asserts
it rewrites but never writes it, so each of the four pytest workers rewrote every test module in its collection, the
largest part of a worker's collection CPU (docs/BENCHMARKS.md). pytest checks the cached file against its source's hash
(PEP 552), so one that no longer matches is rewritten as before, never used; here, a module whose file still matches is
left as it is, so a later `make check` or `make test` rewrites only what changed. The module is pytest's own: the same
rewriter, reader, file name and format; a configuration is needed only for the pass hook, which this project leaves off.
"""

import ast
import os
import sys
import tomllib
from collections.abc import Iterator
from fnmatch import fnmatch
from pathlib import Path

from _pytest.assertion.rewrite import PYC_TAIL, _read_pyc, _rewrite_test, _write_pyc_fp, get_cache_dir

TESTS = Path(__file__).resolve().parent
PYPROJECT = TESTS.parent / "pyproject.toml"


def python_files(pyproject: Path) -> list[str]:
    """The patterns of test modules pytest collects here (python_files), pytest's default where none is set."""
    options = tomllib.loads(pyproject.read_text()).get("tool", {}).get("pytest", {}).get("ini_options", {})
    return options.get("python_files", ["test_*.py", "*_test.py"])


def plugin_modules(conftest: Path) -> list[Path]:
    """The modules the conftest names in pytest_plugins (pytest rewrites those too), read without importing it."""
    for statement in ast.parse(conftest.read_text()).body:
        if isinstance(statement, ast.Assign) and any(
            isinstance(target, ast.Name) and target.id == "pytest_plugins" for target in statement.targets
        ):
            names = ast.literal_eval(statement.value)
            return [conftest.parent.parent.joinpath(*name.split(".")).with_suffix(".py") for name in names]
    return []


def rewritten_modules(root: Path, patterns: list[str]) -> Iterator[Path]:
    """The modules pytest rewrites here: those matching python_files' patterns, conftest.py and the plugins named
    there."""
    yield from plugin_modules(root / "conftest.py")
    for path in sorted(root.rglob("*.py")):
        if path.name == "conftest.py" or any(fnmatch(path.name, pattern) for pattern in patterns):
            yield path


def rewritten_file(module: Path) -> Path:
    """Where pytest looks for the module's rewritten bytecode."""
    return get_cache_dir(module) / (module.name[: -len(".py")] + PYC_TAIL)


def write_rewritten(module: Path) -> None:
    pyc = rewritten_file(module)
    if _read_pyc(module, pyc) is not None:
        return
    source_hash, code = _rewrite_test(module, None)  # type: ignore[arg-type]
    pyc.parent.mkdir(exist_ok=True)
    part = pyc.with_name(f"{pyc.name}.{os.getpid()}")
    with part.open("wb") as output:
        _write_pyc_fp(output, source_hash, code)
    part.replace(pyc)


def main() -> int:
    for module in rewritten_modules(TESTS, python_files(PYPROJECT)):
        write_rewritten(module)
    return 0


if __name__ == "__main__":
    sys.exit(main())
