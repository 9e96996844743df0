"""tests/rewrite_ahead.py: the bytecode it writes is the one pytest reads, for the modules pytest rewrites."""

import os
import subprocess
import sys
from pathlib import Path

from tests.rewrite_ahead import PYPROJECT, python_files, rewritten_file, rewritten_modules, write_rewritten

PROJECT = {
    "__init__.py": "",
    "conftest.py": 'pytest_plugins = ["tests.helpers"]\n',
    "helpers.py": "",
    "test_sum.py": "def test_sum():\n    assert sum([1, 2]) == 3\n",
    "data.py": "VALUE = 1\n",
}


def a_project(root: Path) -> Path:
    tests = root / "tests"
    tests.mkdir()
    for name, text in PROJECT.items():
        (tests / name).write_text(text)
    return tests


def rewritten_by_pytest(root: Path, modules: list[Path]) -> list[Path]:
    """Which of the modules pytest rewrote in a run in root where no bytecode is written, by its own trace."""
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1", "PYTEST_DEBUG": "1", "PYTEST_ADDOPTS": ""}
    env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"  # none of the installed plugins: a fraction of a run's time
    argv = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/test_sum.py"]
    run = subprocess.run(argv, cwd=root, env=env, capture_output=True, text=True, timeout=120, check=False)
    assert "1 passed" in run.stdout, run.stdout + run.stderr
    return [module for module in modules if f"rewriting {module!r}" in run.stderr]


def test_it_picks_the_test_modules_the_conftests_and_the_plugins_they_name(tmp_path: Path) -> None:
    tests = a_project(tmp_path)
    picked = [path.name for path in rewritten_modules(tests, python_files(PYPROJECT))]
    assert picked == ["helpers.py", "conftest.py", "test_sum.py"]


def test_the_test_modules_are_those_of_the_project_s_python_files(tmp_path: Path) -> None:
    assert python_files(PYPROJECT) == ["test_*.py"]
    tests = a_project(tmp_path)
    (tests / "sum_check.py").write_text("")
    picked = [path.name for path in rewritten_modules(tests, ["*_check.py"])]
    assert picked == ["helpers.py", "conftest.py", "sum_check.py"]


def test_pytest_reads_what_it_wrote_and_rewrites_nothing_itself(tmp_path: Path) -> None:
    tests = a_project(tmp_path)
    modules = list(rewritten_modules(tests, python_files(PYPROJECT)))
    assert rewritten_by_pytest(tmp_path, modules) == modules
    for module in modules:
        write_rewritten(module)
    assert rewritten_by_pytest(tmp_path, modules) == []


def test_a_file_that_still_matches_its_module_is_kept_and_one_that_does_not_is_written_again(tmp_path: Path) -> None:
    tests = a_project(tmp_path)
    module = tests / "test_sum.py"
    write_rewritten(module)
    written = rewritten_file(module).stat()
    write_rewritten(module)
    assert rewritten_file(module).stat().st_ino == written.st_ino
    module.write_text(PROJECT["test_sum.py"].replace("== 3", "== 3.0"))
    write_rewritten(module)
    assert rewritten_file(module).stat().st_ino != written.st_ino
    assert rewritten_by_pytest(tmp_path, [module]) == []
