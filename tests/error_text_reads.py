"""Finds code that reads an error's text to decide (issue 40): a query lookup over an error field
(error__contains, facts_error__regex, ...), a regex over an error, `... in error`, error.startswith(...). An error is
any name or attribute whose name ends with "error"; what a kind of failure is comes from its failure kind."""

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

TEXT_LOOKUPS = {"contains", "icontains", "startswith", "istartswith", "endswith", "iendswith", "regex", "iregex"}
STRING_TESTS = {"startswith", "endswith", "find", "index", "count"}
REGEX_CALLS = {"search", "match", "fullmatch", "findall", "finditer", "sub", "split"}


@dataclass(frozen=True)
class Read:
    path: str
    line: int
    what: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.what}"


def reads_in_tree(top: Path, root: Path) -> list[Read]:
    return [read for path in sorted(top.rglob("*.py")) for read in reads_in_source(path.read_text(), rel(path, root))]


def rel(path: Path, root: Path) -> str:
    return str(path.relative_to(root))


def reads_in_source(source: str, path: str = "<source>") -> list[Read]:
    return [Read(path, node.lineno, what) for node in ast.walk(ast.parse(source)) for what in _reads(node)]


def _reads(node: ast.AST) -> Iterator[str]:
    if isinstance(node, ast.Call):
        yield from _lookups(node)
        yield from _method_reads(node)
    if isinstance(node, ast.Compare) and any(isinstance(op, ast.In | ast.NotIn) for op in node.ops):
        yield from (f"in {_name(side)}" for side in node.comparators if _is_error(side))


def _lookups(call: ast.Call) -> Iterator[str]:
    for keyword in call.keywords:
        field, _, lookup = (keyword.arg or "").rpartition("__")
        if field.endswith("error") and lookup in TEXT_LOOKUPS:
            yield f"{keyword.arg}="


def _method_reads(call: ast.Call) -> Iterator[str]:
    if not isinstance(call.func, ast.Attribute):
        return
    method = call.func.attr
    if method in STRING_TESTS and _is_error(call.func.value):
        yield f"{_name(call.func.value)}.{method}()"
    if method in REGEX_CALLS and any(_is_error(argument) for argument in call.args):
        yield f"{method}() over an error"


def _is_error(node: ast.AST) -> bool:
    if isinstance(node, ast.BoolOp):  # error or ""
        return any(_is_error(value) for value in node.values)
    return _name(node).lower().endswith("error")


def _name(node: ast.AST) -> str:
    if isinstance(node, ast.Call):
        return _name(node.func)
    if isinstance(node, ast.Attribute):
        return node.attr
    return node.id if isinstance(node, ast.Name) else ""
