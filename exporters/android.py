"""What the android package carries besides the model: the Android library's sources (mobile/android: the module a
developer adds to an app, with its Gradle file and a sample Activity, and the Maven build that compiles and runs
the same sources on the JVM), and `run-jvm.sh` at the package root, which translates or replies with this package's
own model on any machine with Java 17 and Maven — so anyone can compare it with `studio translate --backend onnx`.

The package's root is the model folder the library opens (`Translator.open(folder)`): manifest.json, config.json,
tokenizer/ and the graphs, as in the python package."""

from __future__ import annotations

from pathlib import Path

from studio.errors import StudioError

LIBRARY = "library"  # where the module's sources go in the package
# the library's files a package carries: its build files, sources and sample; not its tests, fixtures or builds
CARRIED = ("pom.xml", "build.gradle.kts", "consumer-rules.pro", "run-jvm.sh", "README.md", "src/main", "src/android",
           "src/litert", "sample")
RUN_JVM = """#!/bin/sh
# This package's model on the JVM: one output line per line of stdin (Java 17+ and Maven; built on first use).
#   ./run-jvm.sh translate < input.txt      (a translator package)
#   ./run-jvm.sh reply < messages.txt       (a chatbot package: its stored reply where one is alike, else the model's)
#   ./run-jvm.sh generate < messages.txt    (a chatbot package: the model's reply to each line)
#   ./run-jvm.sh translate OTHER_MODEL_DIR < input.txt
here=$(cd "$(dirname "$0")" && pwd)
if [ $# -eq 1 ]; then set -- "$1" "$here"; fi  # this package's model by default
exec "$here/library/run-jvm.sh" "$@"  # which says how to call it when the arguments are wrong
"""


def library_folder() -> Path:
    """mobile/android in a checkout, or the installed `studio_mobile` package's copy of it."""
    for candidate in (Path(__file__).resolve().parents[1] / "mobile" / "android", _installed_copy()):
        if candidate is not None and (candidate / "pom.xml").is_file():
            return candidate
    raise StudioError("the Android library's sources are missing from this installation; reinstall it with "
                      "`pip install --force-reinstall transformer-studio` (or `pip install .` in a checkout)")


def _installed_copy() -> Path | None:
    try:
        import studio_mobile  # the wheel's copy of mobile/ (pyproject.toml's package-dir)
    except ImportError:
        return None
    return Path(studio_mobile.__path__[0]) / "android"


def library_files() -> dict[str, Path]:
    """{path in the package: file} of the library's carried sources, and the root's run-jvm.sh as bytes."""
    folder = library_folder()
    files: dict[str, Path] = {}
    for name in CARRIED:
        path = folder / name
        if path.is_file():
            files[f"{LIBRARY}/{name}"] = path
        elif path.is_dir():
            files.update({f"{LIBRARY}/{p.relative_to(folder).as_posix()}": p
                          for p in sorted(path.rglob("*")) if p.is_file() and "__pycache__" not in p.parts})
    return files
