"""Where benchdash's code does I/O while it holds a transaction open: read from the source, not from a run.

A transaction here is the body of `with transaction.atomic():` (or `atomic()`), of a function decorated with
`@transaction.atomic`, or of a function that calls `select_for_update()` (its lock holds until the caller's commit).
Inside one, a finding is:

- a call whose spelling names SSH, EC2/boto3, S3/storage, HTTP, a socket, a file write, a Celery send or a sleep
  (DENIED below, matched against the call's dotted name as the source writes it);
- a `yield` of the function that holds the transaction: it stays open for as long as the generator's reader takes.

A call to a module-level function of the tree read (the same module, or one imported from the tree by name or
through its module) is followed into that function's body, and on from there; lambdas, nested functions and what
`transaction.on_commit(...)` is given run after the block, so they are skipped. Methods are not followed.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

DENIED = re.compile(
    r"""(^|\.)(
        connect | exec_command | open_sftp | create_connection | getaddrinfo | urlopen | sleep |
        ec2_client | run_instances? | describe_images | describe_instances | terminate_instances | console_output |
        write_bytes | write_text | upload_file | apply_async | delay | send_task | send_trial
    )$
    | ^open$ | (^|\.)(transport|sftp|boto3|requests|http\.client|subprocess|aws)\.\w+$ | storage\.(save|open|delete)$
    """,
    re.VERBOSE,
)
# benchdash.cloud.aws's pure helpers: they build values and reach no endpoint.
PURE_AWS = re.compile(r"aws\.(instance_tags|boot_script|tag_value|ssh_endpoint)$")


@dataclass(frozen=True)
class Finding:
    path: str  # the file of the call (or yield), which may be another than the transaction's when calls were followed
    line: int
    function: str  # the function holding the transaction, then each function followed, joined by " > "
    what: str  # the call's dotted name, or "yield"

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.what} inside a transaction ({self.function})"


@dataclass
class Module:
    path: str
    tree: ast.Module
    functions: dict[str, ast.FunctionDef | ast.AsyncFunctionDef] = field(default_factory=dict)
    imported: dict[str, tuple[str, str]] = field(default_factory=dict)  # local name -> (module, function)
    modules: dict[str, str] = field(default_factory=dict)  # local name -> module


def findings_in_tree(root: Path, relative_to: Path) -> list[Finding]:
    """Every finding in every .py file under root, paths relative to relative_to."""
    modules = {}
    for path in sorted(root.rglob("*.py")):
        relative = path.relative_to(relative_to)
        name = ".".join(relative.with_suffix("").parts).removesuffix(".__init__")
        modules[name] = _module(path.read_text(), str(relative))
    return _findings(modules)


def findings_in_source(source: str, path: str) -> list[Finding]:
    return _findings({"module": _module(source, path)})


def _module(source: str, path: str) -> Module:
    tree = ast.parse(source)
    module = Module(path, tree)
    module.functions = {
        node.name: node for node in tree.body if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
    }
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for alias in node.names:
                module.imported[alias.asname or alias.name] = (node.module, alias.name)
        elif isinstance(node, ast.Import):
            module.modules |= {alias.asname: alias.name for alias in node.names if alias.asname}
    return module


def _findings(modules: dict[str, Module]) -> list[Finding]:
    found: set[Finding] = set()
    for name, module in modules.items():
        for function in _all_functions(module.tree):
            for block in _transaction_blocks(function):
                found.update(_block_findings(block, modules, name, [function.name], set()))
    return sorted(found, key=lambda finding: (finding.path, finding.line, finding.what, finding.function))


def _all_functions(tree: ast.AST) -> Iterator[ast.FunctionDef | ast.AsyncFunctionDef]:
    return (node for node in ast.walk(tree) if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef))


def _transaction_blocks(function: ast.FunctionDef | ast.AsyncFunctionDef) -> Iterator[list[ast.stmt]]:
    """The statement lists that run inside a transaction in this function (not in functions nested in it)."""
    if any(_is_atomic(decorator) for decorator in function.decorator_list) or _locks_rows(function):
        yield function.body
        return
    for node in _own_nodes(function.body):
        if isinstance(node, ast.With | ast.AsyncWith) and any(_is_atomic(item.context_expr) for item in node.items):
            yield node.body


def _is_atomic(expression: ast.expr) -> bool:
    target = expression.func if isinstance(expression, ast.Call) else expression
    return _dotted(target) in {"atomic", "transaction.atomic"}


def _locks_rows(function: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    calls = (node for node in _own_nodes(function.body) if isinstance(node, ast.Call))
    return any(_dotted(call.func).endswith("select_for_update") for call in calls)


def _block_findings(
    body: list[ast.stmt], modules: dict[str, Module], module: str, chain: list[str], followed: set[tuple[str, str]]
) -> Iterator[Finding]:
    path = modules[module].path
    for node in _own_nodes(body):
        if isinstance(node, ast.Yield | ast.YieldFrom) and len(chain) == 1:  # a callee's yield suspends only itself
            yield Finding(path, node.lineno, " > ".join(chain), "yield")
        if not isinstance(node, ast.Call):
            continue
        name = _dotted(node.func)
        target = _resolve(name, modules, module)
        if DENIED.search(name) and not PURE_AWS.search(name):
            yield Finding(path, node.lineno, " > ".join(chain), name)
        elif target and target not in followed:
            followed.add(target)
            callee = modules[target[0]].functions[target[1]]
            step = target[1] if target[0] == module else f"{target[0]}.{target[1]}"
            yield from _block_findings(callee.body, modules, target[0], [*chain, step], followed)


def _resolve(name: str, modules: dict[str, Module], module: str) -> tuple[str, str] | None:
    """(module, function) that a call's dotted name reaches among the modules read, or None."""
    here = modules[module]
    owner, _, function = name.rpartition(".")
    if not owner:
        target = (module, name) if name in here.functions else here.imported.get(name)
    elif owner in here.modules or owner in here.imported:
        target = (here.modules.get(owner) or ".".join(here.imported[owner]), function)
    else:
        target = None
    known = target and target[0] in modules and target[1] in modules[target[0]].functions
    return target if known else None


def _own_nodes(body: list[ast.stmt]) -> Iterator[ast.AST]:
    """Every node of body, leaving out what runs later: lambdas, nested definitions, on_commit's arguments."""
    pending: list[ast.AST] = list(reversed(body))
    while pending:
        node = pending.pop()
        if isinstance(node, ast.Lambda | ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            continue
        yield node
        if isinstance(node, ast.Call) and _dotted(node.func).endswith("on_commit"):
            continue
        pending.extend(reversed(list(ast.iter_child_nodes(node))))


def _dotted(expression: ast.expr) -> str:
    """'transaction.atomic' for transaction.atomic, 'cursor.cursor.copy' for cursor.cursor.copy, '' for a call's
    result or a subscript (what it reaches cannot be named from the source)."""
    if isinstance(expression, ast.Name):
        return expression.id
    if isinstance(expression, ast.Attribute):
        owner = _dotted(expression.value)
        return f"{owner}.{expression.attr}" if owner else expression.attr
    return ""
