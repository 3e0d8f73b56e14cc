"""The dependency rule of docs/architecture.md, read from the code with `ast` (imports inside functions
included): no import circle among the modules of studio/ and exporters/, and no import from a lower layer to a
higher one."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# Top to bottom; a module may import its own layer's modules (without a circle) and every layer below. The
# longest matching prefix places a module ("studio" is the package's own __init__ alone); every module is placed,
# and docs/architecture.md's table says the same (`test_the_architecture_docs_table_is_the_rule`).
LAYERS = (
    ("app", ("studio.cli", "studio.ui")),
    ("api", ("studio.api",)),  # below the page: it imports no Gradio
    ("jobs", ("studio.app_model", "studio.serving", "studio.scheduler", "studio.latency", "studio.train.run",
              "studio.train.accelerated", "studio.train.card", "studio.train.ensemble", "studio.train.jobs",
              "studio.importers")),
    ("packages", ("exporters.package", "exporters.portable", "exporters.app_golden", "exporters.android", "exporters.ios",
                  "exporters.web", "exporters.web_constants", "exporters.replies")),
    ("translation", ("studio.translation", "studio.evaluate", "studio.fidelity", "studio.packaged")),
    ("inference", ("studio.inference",)),
    ("exporters", ("exporters",)),
    ("runtimes", ("studio.runtimes", "studio.bundle", "studio.variants", "studio.graph_pack", "studio.library")),
    ("documents", ("studio.formats", "studio.data", "studio.model", "studio.train", "studio.replies")),
    ("text", ("studio.text", "studio.generate", "studio.tasks")),
    ("base", ("studio.errors", "studio.files", "studio.config", "studio.weights", "studio.quiet_tf", "studio.paths",
              "studio")),
)
# a registry's "module:attribute" string (`studio.variants`, `studio.formats`, `exporters.CONVERTERS`) is an import
# made later: an edge like any other
REGISTRY_NAME = re.compile(r"^((?:studio|exporters)(?:\.\w+)*):\w+$")


def modules() -> dict[str, Path]:
    found = {}
    for top in ("studio", "exporters"):
        for path in (ROOT / top).rglob("*.py"):
            parts = path.relative_to(ROOT).with_suffix("").parts
            found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def imports(name: str, path: Path, known: dict[str, Path]) -> set[str]:
    """The project modules `name` imports, wherever the import statement is."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    targets = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and REGISTRY_NAME.match(node.value):
            targets.add(REGISTRY_NAME.match(node.value).group(1))
        elif isinstance(node, ast.Import):
            targets |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                stem = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(stem + ([node.module] if node.module else []))
            targets |= {f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base for alias in node.names}
    return {owner for target in targets if (owner := _owner(target, known)) and owner != name}


def _owner(target: str, known) -> str | None:
    while target and target not in known:
        target = target.rpartition(".")[0]
    return target or None


def layer(name: str) -> int:
    """The layer's depth from the top (0 = app)."""
    best = max(((len(prefix), depth) for depth, (_, prefixes) in enumerate(LAYERS) for prefix in prefixes
                if name == prefix or (prefix != "studio" and name.startswith(prefix + "."))), default=None)
    assert best is not None, f"{name} is in no layer of LAYERS: add it where it belongs"
    return best[1]


def graph() -> dict[str, set[str]]:
    known = modules()
    return {name: imports(name, path, known) for name, path in known.items()}


def test_no_module_imports_from_a_layer_above_its_own():
    upward = [f"{name} ({LAYERS[layer(name)][0]}) -> {target} ({LAYERS[layer(target)][0]})"
              for name, targets in graph().items() for target in sorted(targets) if layer(target) < layer(name)]
    assert not upward, "imports that run up the layers:\n" + "\n".join(sorted(upward))


def test_no_import_circle():
    edges, circles = graph(), []
    state: dict[str, str] = {}

    def visit(node, trail):
        state[node] = "open"
        for target in sorted(edges[node]):
            if state.get(target) == "open":
                circles.append(" -> ".join(trail[trail.index(target):] + [target]))
            elif target not in state:
                visit(target, trail + [target])
        state[node] = "done"

    for node in sorted(edges):
        if node not in state:
            visit(node, [node])
    assert not circles, "import circles:\n" + "\n".join(circles)


def test_the_rule_sees_imports_inside_functions(tmp_path):
    module = tmp_path / "m.py"
    module.write_text("def f():\n    from studio.ui.app import build\n", encoding="utf-8")
    known = {"studio.ui.app": Path("x"), "studio.errors": Path("y")}
    assert imports("studio.errors", module, known) == {"studio.ui.app"}


def test_no_module_but_tasks_decides_by_a_tasks_name():
    """What differs between the chatbot and the translator is a field of `studio.tasks.Task`: no other module
    compares a task's name with a literal (`task == "chatbot"`, `task in ("translator", ...)`)."""
    import re

    names = "|".join(("chatbot", "translator"))
    comparison = re.compile(rf"""(?:[=!]=\s*["'](?:{names})["']|["'](?:{names})["']\s*[=!]=|"""
                            rf"""\bin\s*[(\[{{]\s*["'](?:{names})["'])""")
    found = [f"{path.relative_to(ROOT)}:{number}: {line.strip()}" for name, path in modules().items()
             if name != "studio.tasks"
             for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
             if comparison.search(line.split("#")[0])]
    assert not found, "decide by a Task field instead:\n" + "\n".join(found)


def test_the_api_and_the_request_core_import_no_gradio():
    """The LibreTranslate API and `AppModel` sit below the page: nothing they import, directly or through other
    modules of the project, imports Gradio."""
    known, edges = modules(), graph()
    reached, todo = set(), ["studio.api.libretranslate", "studio.app_model"]
    while todo:
        name = todo.pop()
        if name not in reached:
            reached.add(name)
            todo += edges[name]
    gradio = [name for name in sorted(reached) for node in ast.walk(ast.parse(known[name].read_text(encoding="utf-8")))
              if isinstance(node, (ast.Import, ast.ImportFrom))
              and any((alias.name if isinstance(node, ast.Import) else node.module or "").split(".")[0] == "gradio"
                      for alias in node.names)]
    assert not gradio, f"these import Gradio: {gradio}"


def test_registry_strings_are_seen_as_imports(tmp_path):
    (tmp_path / "studio").mkdir()
    (tmp_path / "studio" / "table.py").write_text('RUNTIME = "studio.runtimes.tf_runtime:TFCachedRuntime"\n')
    known = {"studio.table": tmp_path / "studio" / "table.py", "studio.runtimes.tf_runtime": tmp_path}
    assert imports("studio.table", known["studio.table"], known) == {"studio.runtimes.tf_runtime"}


def test_the_architecture_docs_table_is_the_rule():
    """docs/architecture.md's layer table lists the layers of LAYERS, in order, with the same modules."""
    rows = [line.split("|")[1:3] for line in (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
            .split("## Layers and the dependency rule", 1)[1].split("\n\n")[2].splitlines()[2:]]
    documented = [(layer_name.strip(), {path.strip("/").replace("/", ".").removesuffix(".py").removesuffix(
        ".__init__") for path in re.findall(r"`([^`]+)`", modules_cell)}) for layer_name, modules_cell in rows]
    assert documented == [(name, set(prefixes)) for name, prefixes in LAYERS]
