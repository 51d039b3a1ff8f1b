"""The rules of the house (docs/ARCHITECTURE.md), checked on the source: bgparse's modules form no
import circle, and no module imports one of a layer above its own.

The graph is read from the source with `ast`, not by importing: every `import` and `from ...
import` naming a bgparse module, at module level, under `if TYPE_CHECKING:` (a dependency all
the same) and inside functions (deferred imports). Circles are sought among the imports that are
not deferred; the layer rule holds for every import, deferred or not, so a deferred import may
reach down or sideways, never up.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "bgparse"

#: The layers, lowest first. A module may import its own layer's modules and those below, never
#: one above. A module is placed by its longest dotted prefix named here.
LAYERS: tuple[tuple[str, ...], ...] = (
    # Helpers every layer may use: errors, names and text shown, files written, signals, the
    # compiled-build switch.
    ("bgparse.helpers", "bgparse.version"),
    # The rules engine: positions, plays, cube, scoring; it knows nothing of records.
    ("bgparse.rules",),
    # The data model a record becomes: findings, events, the verified match, what a conversion
    # carries across formats; a decision and GNU's judgement of one.
    ("bgparse.model", "bgparse.analysis"),
    # Formats: finding inputs (files, folders, archives), reading and writing records.
    (
        "bgparse.store.inputs",
        "bgparse.store.archives",
        "bgparse.store.items",
        "bgparse.readers",
        "bgparse.writers",
    ),
    # The replay: events through the rules into a verified match and its rows.
    # Stored analysis meets the turns (`attach`); the engine evaluates positions (`engine`).
    ("bgparse.replay", "bgparse.analysis.attach", "bgparse.analysis.engine"),
    # Matches made rather than read: in the replay's package, above it (the replay never
    # needs them).
    ("bgparse.replay.generate",),
    # The dataset on disk: schemas, rows, parts, manifest, ledger, commit.
    ("bgparse.store",),
    # The pipeline runner: units of work on an executor (inline, process pool, Dask), knowing
    # nothing of what the work is.
    ("bgparse.pipeline",),
    # The import: its per-unit work, the committer, and the run that drives the runner.
    ("bgparse.ingest",),
    # Questions asked of the dataset.
    ("bgparse.questions",),
    # The engine's analysis of stored matches: it reads them through `query` and runs its
    # units on the pipeline runner, as the import does.
    ("bgparse.analyze",),
    # What is shown: boards, charts, reports.
    ("bgparse.render",),
    # The command line, over all of it.
    ("bgparse.cli", "bgparse.__main__", "bgparse"),
)


def _modules() -> dict[str, Path]:
    found: dict[str, Path] = {}
    for path in sorted([*PACKAGE.rglob("*.py"), *PACKAGE.rglob("*.pyx")]):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        found.setdefault(name, path)
    return found


MODULES = _modules()


def _module_of(name: str) -> str | None:
    """The bgparse module a dotted name is or lives in."""
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


def _targets(module: str, node: ast.Import | ast.ImportFrom) -> list[str]:
    if isinstance(node, ast.Import):
        names = [a.name for a in node.names]
    else:
        base = node.module or ""
        if node.level:
            package = module.split(".")
            if MODULES[module].name != "__init__.py":
                package = package[:-1]
            package = package[: len(package) - node.level + 1]
            base = ".".join([*package, base] if base else package)
        # `from pkg import mod` depends on pkg.mod; `from pkg import name` on pkg.
        names = [f"{base}.{a.name}" if f"{base}.{a.name}" in MODULES else base for a in node.names]
    found = [_module_of(n) for n in names if n == "bgparse" or n.startswith("bgparse.")]
    return [t for t in found if t is not None and t != module]


def _imports() -> tuple[dict[str, set[str]], list[tuple[str, int, str]]]:
    """(imports that run when a module is loaded or typed, every import as (module, line, target))."""
    eager: dict[str, set[str]] = defaultdict(set)
    every: list[tuple[str, int, str]] = []
    for module, path in MODULES.items():
        if path.suffix != ".py":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        deferred: set[int] = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                deferred.update(id(n) for n in ast.walk(node) if n is not node)
        for node in ast.walk(tree):
            if not isinstance(node, ast.Import | ast.ImportFrom):
                continue
            for target in _targets(module, node):
                every.append((module, node.lineno, target))
                if id(node) not in deferred:
                    eager[module].add(target)
    return eager, every


def _layer(module: str) -> int:
    best, where = -1, -1
    for n, names in enumerate(LAYERS):
        for prefix in names:
            if (module == prefix or module.startswith(prefix + ".")) and len(prefix) > best:
                best, where = len(prefix), n
    if where < 0:
        raise AssertionError(f"{module} is in no layer of LAYERS: place it (docs/ARCHITECTURE.md)")
    return where


def _circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for v in sorted(MODULES):
        if v not in index:
            visit(v)
    return groups


def test_the_graph_is_read() -> None:
    # The reading itself: known edges are found, of each kind.
    eager, every = _imports()
    assert "bgparse.rules.position" in eager["bgparse.rules.verification"]  # module level
    assert "bgparse.replay.state" in eager["bgparse.replay.cube"]  # under TYPE_CHECKING
    assert ("bgparse.cli.app", "bgparse.replay") in {(m, t) for m, _, t in every}  # deferred
    assert "bgparse.rules._speedups" in MODULES  # a compiled module's source is a module too


def test_no_import_circle() -> None:
    eager, _ = _imports()
    circles = _circles(eager)
    assert not circles, "import circles: " + "; ".join(" <-> ".join(c) for c in circles)


def test_no_module_imports_a_layer_above_its_own() -> None:
    _, every = _imports()
    upward = [
        f"{MODULES[m].relative_to(PACKAGE.parent)}:{line} imports {t}"
        for m, line, t in every
        if _layer(t) > _layer(m)
    ]
    assert not upward, "\n".join(upward)


@pytest.mark.parametrize(
    ("graph", "circles"),
    [
        ({"a": {"b"}, "b": {"c"}, "c": set()}, []),
        ({"a": {"b"}, "b": {"a"}}, [["a", "b"]]),
        ({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}, [["a", "b", "c"]]),
    ],
)
def test_circles_are_found(graph: dict[str, set[str]], circles: list[list[str]]) -> None:
    global MODULES
    saved = MODULES
    MODULES = {name: Path(name) for name in graph}
    try:
        assert _circles(graph) == circles
    finally:
        MODULES = saved


def test_the_top_level_holds_only_the_facade() -> None:
    # Every other module sits in the package of its layer, so that the tree shows the plan.
    loose = sorted(
        p.name
        for p in PACKAGE.iterdir()
        if p.suffix in (".py", ".pyx", ".pxd") and p.stem not in ("__init__", "__main__", "version")
    )
    assert not loose, f"modules at bgparse/'s top level: {loose} (place them: docs/ARCHITECTURE.md)"


def test_every_module_has_a_layer() -> None:
    for module in MODULES:
        _layer(module)  # raises, naming the module, where LAYERS has no place for it
