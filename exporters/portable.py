"""The app's own code in the python package: `studio.packaged` and every studio module it imports (found by
reading their import statements), copied into the package as `studio_runtime/` with their imports
renamed, so the package's example.py gives the app's output — sentence splitting, protection, beam search, the
decode guards — with only numpy, sentencepiece and a runtime (ai-edge-litert or onnxruntime) installed: no
TensorFlow, nothing of the project. A module that loads TensorFlow, Keras, JAX or Gradio is left out (the Keras
model, the TF runtime): the functions that import it inside them are never called by `studio.packaged`."""

from __future__ import annotations

import ast
import functools
import re
from pathlib import Path

ENTRY = "studio.packaged"
PACKAGE = "studio_runtime"
ROOT = Path(__file__).resolve().parents[1]  # the folder that holds studio/
HEAVY = {"tensorflow", "keras", "jax", "gradio", "tf2onnx", "onnx"}
_IMPORT = re.compile(r"^(\s*(?:from|import)\s+)studio(?=[.\s])", re.MULTILINE)


def module_path(module: str) -> Path | None:
    """The file of a studio module (its __init__.py for a package), or None for one that is not studio's."""
    base = ROOT.joinpath(*module.split("."))
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def _imports(path: Path, load_time: bool) -> frozenset[str]:
    """The modules `path` imports: all of them, or (`load_time`) those outside functions and classes."""
    stat = path.stat()  # read again once the file changes
    return _parsed_imports(path, load_time, (stat.st_ino, stat.st_mtime_ns, stat.st_ctime_ns, stat.st_size))


# each package and app identity reads the same ~50 modules: 0.21 s -> 0.015 s a call
@functools.lru_cache(maxsize=None)
def _parsed_imports(path: Path, load_time: bool, stamp: tuple[int, ...]) -> frozenset[str]:
    found: set[str] = set()
    nodes = list(ast.parse(path.read_text(encoding="utf-8")).body)
    while nodes:
        node = nodes.pop()
        if load_time and isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)  # a submodule, if it is one
        nodes.extend(ast.iter_child_nodes(node))
    return frozenset(found)


def _studio(names: frozenset[str]) -> set[str]:
    return {name for name in names if name.split(".")[0] == "studio" and module_path(name)}


def _heavy(module: str) -> bool:
    """Whether loading `module` loads TensorFlow, Keras, JAX or Gradio: left out, with what imports it inside a
    function (the Keras model, the TF runtime), which the package never calls."""
    return any(name.split(".")[0] in HEAVY for name in _imports(module_path(module), load_time=True))


def module_closure(entry: str = ENTRY) -> list[str]:
    """`entry` and every studio module loading it loads, with the packages (`__init__`) on their way."""
    seen: set[str] = set()
    waiting = [entry]
    while waiting:
        module = waiting.pop()
        if module in seen:
            continue
        seen.add(module)
        parts = module.split(".")
        waiting += [".".join(parts[:n]) for n in range(1, len(parts))]  # its packages run first
        waiting += sorted(m for m in _studio(_imports(module_path(module), load_time=False)) if not _heavy(m))
    return sorted(seen)


def runtime_files(entry: str = ENTRY) -> dict[str, bytes]:
    """{path in the package: source} of `studio_runtime/`: the closure of `entry`, imports renamed."""
    files = {}
    for module in module_closure(entry):
        path = module_path(module)
        relative = path.relative_to(ROOT / "studio").as_posix()
        source = _IMPORT.sub(rf"\g<1>{PACKAGE}", path.read_text(encoding="utf-8"))
        files[f"{PACKAGE}/{relative}"] = source.encode("utf-8")
    return files


# The python package's app.py: the app's output from this folder's model, with the code above in studio_runtime/.
APP_PY = r'''#!/usr/bin/env python3
"""This folder's model as Transformer Studio runs it: the same code (studio_runtime/, copied from the app) with the
same defaults, so the outputs are `studio translate` / `studio chat`'s on this model file — sentences split, terms
protected (numbers, amounts, dates, times, URLs, names, your glossary), the task's default decoding (beam search for
the translator), the decode guards, empty input refused.

    python app.py "3조 5천억 원을 투자했다."   # one text: its output
    python app.py < input.txt                  # translator: every line as one text (a name introduced in one line
                                               # is remembered in the next), one output line per line; chatbot: a
                                               # reply per line
    python app.py --glossary terms.txt ...     # translator: `korean = english` per line
    python app.py --reply generate ...         # chatbot: the model writes every reply (default: a stored reply,
                                               # the answer of the training question most like the message)
    python app.py --golden                     # check against golden/app.json (exit status 1 on a mismatch)

In your own code:  from studio_runtime.packaged import PackagedModel;  model = PackagedModel("path/to/this/folder");
model("...") (or model.translate(text, glossary=...), model.reply(text, mode=...), model.stored_reply(text)). It
needs numpy, sentencepiece and the runtime README.md names; nothing else of Transformer Studio."""

import argparse
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from studio_runtime.errors import StudioError  # noqa: E402 (after the path is set)
from studio_runtime.packaged import PackagedModel  # noqa: E402
from studio_runtime.replies import GENERATE  # noqa: E402


def check_golden(model: PackagedModel) -> list[str]:
    """Each golden text whose output differs from golden/app.json's."""
    golden = json.loads((HERE / "golden" / "app.json").read_text(encoding="utf-8"))
    cases = golden["cases"] + ([golden["document"]] if "document" in golden else [])
    problems = [f"{case['text'][:60]!r}: {got!r}, golden {case['output']!r}"
                for case in cases if (got := model(case["text"])) != case["output"]]
    return problems + [f"{case['text'][:60]!r} (the model's reply): {got!r}, golden {case['generated']!r}"
                       for case in cases if "generated" in case
                       and (got := model.reply(case["text"], mode=GENERATE)) != case["generated"]]


def outputs(model: PackagedModel, lines: list[str], glossary) -> list[str]:
    if model.task.translates:
        return model.translate("\n".join(lines), glossary=glossary).split("\n")
    return [model.reply(line) if line.strip() else "" for line in lines]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("text", nargs="?", help="a text (else the lines of stdin)")
    parser.add_argument("--glossary", type=Path, help="the translator's glossary: `korean = english` per line")
    parser.add_argument("--golden", action="store_true", help="check against golden/app.json")
    parser.add_argument("--reply", default=None, help="chatbot: retrieve (a stored reply; the default) or generate")
    parser.add_argument("--threads", type=int, default=None)
    args = parser.parse_args()
    try:
        model = PackagedModel(HERE, threads=args.threads, reply_mode=None if args.golden else args.reply)
    except StudioError as error:  # an unknown --reply
        print(f"error: {error}", file=sys.stderr)
        return 2
    if args.golden:
        problems = check_golden(model)
        print("\n".join(problems) or "golden: the app's output on every golden text")
        return 1 if problems else 0
    glossary = args.glossary.read_text(encoding="utf-8") if args.glossary else None
    try:
        if args.text is not None:  # one text: an empty one is refused, as the app refuses it
            print(model.translate(args.text, glossary) if model.task.translates else model.reply(args.text))
        else:  # stdin's lines: an empty line gets an empty line, as `studio chat` and `studio translate` give
            print("\n".join(outputs(model, [line.rstrip("\n") for line in sys.stdin], glossary)))
    except StudioError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
'''
