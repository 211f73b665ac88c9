"""The layout's two promises, read off the source: imports go one way (``envs`` → ``agents``
→ ``training`` → ``serving``: the games, then what plays them (search, networks, checkpoints,
inference, players, the levels file), then what trains them, then the service) and no module
imports itself round a circle, deferred imports inside functions included (a circle hidden in
a function still ties two modules into one)."""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
LAYERS = ("envs", "agents", "training", "serving")


def project_modules() -> dict[str, Path]:
    """Dotted module name → file, for every module of the layered packages."""
    out = {}
    for package in LAYERS:
        for path in (REPO / package).rglob("*.py"):
            parts = path.relative_to(REPO).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            out[".".join(parts)] = path
    return out


def imported_modules(name: str, path: Path, modules: dict[str, Path]) -> Iterator[str]:
    """The project modules that ``name`` imports anywhere in its file."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(parts + ([base] if base else []))
            # ``from pkg import sub`` imports the submodule; ``from mod import name`` the module.
            targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base
                       for a in node.names]
        else:
            continue
        for target in targets:
            while target and target not in modules:
                target = target.rpartition(".")[0]
            if target and target != name:
                yield target


def import_graph() -> dict[str, set[str]]:
    modules = project_modules()
    return {name: set(imported_modules(name, path, modules)) for name, path in modules.items()}


def wrong_way(graph: dict[str, set[str]]) -> list[str]:
    """Imports from a lower layer into a higher one (``envs`` importing ``training``, ...)."""
    return sorted(
        f"{module} imports {target}"
        for module, targets in graph.items()
        for target in targets
        if LAYERS.index(target.split(".")[0]) > LAYERS.index(module.split(".")[0])
    )


def find_circles(graph: dict[str, set[str]]) -> list[str]:
    """Every import circle met by a depth-first walk, as ``a -> b -> a``."""
    circles: list[str] = []
    done: set[str] = set()

    def visit(module: str, path: list[str]) -> None:
        if module in path:
            circles.append(" -> ".join(path[path.index(module):] + [module]))
            return
        if module in done:
            return
        for target in sorted(graph[module]):
            visit(target, path + [module])
        done.add(module)

    for module in sorted(graph):
        visit(module, [])
    return circles


def test_imports_go_one_way() -> None:
    wrong = wrong_way(import_graph())
    assert not wrong, "imports against envs -> agents -> training -> serving:\n" + "\n".join(wrong)


def test_no_import_circles() -> None:
    circles = find_circles(import_graph())
    assert not circles, "import circles:\n" + "\n".join(circles)


def test_the_checks_see_a_circle_and_a_wrong_way_import(tmp_path: Path, monkeypatch) -> None:
    """The two tests above would notice: a deferred import inside a function counts."""
    for package in LAYERS:
        (tmp_path / package).mkdir()
        (tmp_path / package / "__init__.py").write_text("")
    (tmp_path / "envs" / "a.py").write_text("def f():\n    from envs import b\n")
    (tmp_path / "envs" / "b.py").write_text("from envs.a import f\n")
    (tmp_path / "training" / "c.py").write_text("import serving\n")
    (tmp_path / "agents" / "d.py").write_text("from training import c\n")
    monkeypatch.setattr(sys.modules[__name__], "REPO", tmp_path)
    graph = import_graph()
    assert find_circles(graph) == ["envs.a -> envs.b -> envs.a"]
    assert wrong_way(graph) == ["agents.d imports training.c", "training.c imports serving"]
