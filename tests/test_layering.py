"""The layering of docs/architecture.md, checked on the real imports of src/longview.

Imports are read with `ast`, lazy ones inside functions and TYPE_CHECKING blocks included: a cycle or a
wrong-way import hidden behind them is still one in the design.
"""

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "longview"


def _module(path: Path) -> str:
    parts = list(path.relative_to(SRC.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_module(p): p for p in SRC.rglob("*.py")}


def _owner(name: str) -> str:
    """The longest known module that `name` is or lies inside ('' for outside longview)."""
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name


def _imports(module: str) -> set[str]:
    path = MODULES[module]
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(_owner(a.name) for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(anchor + ([node.module] if node.module else []))
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                found.add(sub if sub in MODULES else _owner(base))
    found.discard(module)
    found.discard("")
    return found


GRAPH = {m: _imports(m) for m in MODULES}


def _cycles() -> list[list[str]]:
    """Strongly connected components with more than one module (iterative Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    found: list[list[str]] = []
    counter = 0
    for root in sorted(GRAPH):
        if root in index:
            continue
        work = [(root, iter(sorted(GRAPH[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            advanced = False
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(GRAPH[child]))))
                    advanced = True
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def _suite_of(module: str) -> str | None:
    parts = module.split(".")
    return parts[2] if len(parts) > 2 and parts[1] == "suites" else None


def test_no_import_cycle():
    assert _cycles() == []


def test_a_suite_never_imports_another_suite():
    wrong = [
        (m, t) for m, targets in GRAPH.items() for t in targets
        if _suite_of(m) and _suite_of(t) and _suite_of(m) != _suite_of(t)
    ]
    assert wrong == []


def test_a_suite_imports_only_the_kernel_the_harness_and_the_shared_parts():
    """Nothing of the report, the CLI, the Python API or results.py: a suite is a room of its own
    on the kernel, the harness and the reusable parts."""
    shared = ("longview.kernel", "longview.harness", "longview.agents", "longview.users", "longview.memory",
              "longview.judges", "longview.domains", "longview.text")
    wrong = [
        (m, t) for m, targets in GRAPH.items() if _suite_of(m) for t in targets
        if not _suite_of(t) and t not in ("longview.suite", "longview.suites", "longview._version")
        and not any(t == p or t.startswith(p + ".") for p in shared)
    ]
    assert wrong == []


def test_the_lower_layers_know_no_suite_and_nothing_above_them():
    above = ("longview.suites", "longview.report", "longview.cli")
    lower = ("longview.kernel", "longview.harness", "longview.agents", "longview.users",
             "longview.memory", "longview.judges", "longview.domains", "longview.text")
    wrong = [
        (m, t) for m, targets in GRAPH.items() if m.startswith(lower)
        for t in targets if t.startswith(above)
    ]
    assert wrong == []


def test_the_report_knows_no_suite():
    """A report reads run folders (and the suite through the registry, when installed), never a
    suite's modules."""
    wrong = [(m, t) for m, targets in GRAPH.items() if m.startswith("longview.report")
             for t in targets if t.startswith("longview.suites")]
    assert wrong == []


def test_the_kernel_imports_only_itself():
    wrong = [
        (m, t) for m, targets in GRAPH.items() if m.startswith("longview.kernel")
        for t in targets if not t.startswith("longview.kernel") and t != "longview._version"
    ]
    assert wrong == []


def test_the_checker_sees_a_planted_cycle(tmp_path, monkeypatch):
    """The cycle finder is not vacuous: two modules importing each other are found."""
    monkeypatch.setitem(GRAPH, "longview.x_a", {"longview.x_b"})
    monkeypatch.setitem(GRAPH, "longview.x_b", {"longview.x_a"})
    assert ["longview.x_a", "longview.x_b"] in _cycles()
