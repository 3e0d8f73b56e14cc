import runpy
import tomllib
from pathlib import Path

import setuptools

ROOT = Path(__file__).resolve().parents[2]


def wheel_packages(monkeypatch) -> set[str]:
    """The package list setup.py hands to setuptools (pyproject.toml has none: see setup.py)."""
    captured = {}
    monkeypatch.setattr(setuptools, "setup", lambda **kwargs: captured.update(kwargs))
    monkeypatch.chdir(ROOT)
    runpy.run_path(str(ROOT / "setup.py"))
    return set(captured["packages"])


def test_every_python_package_ships_in_the_wheel(monkeypatch):
    packages = wheel_packages(monkeypatch)
    found = {".".join(p.parent.relative_to(ROOT).parts) for top in ("studio", "exporters")
             for p in (ROOT / top).rglob("__init__.py")}
    assert found <= packages, f"setup.py does not find {sorted(found - packages)}"
    bundles = {f"studio_assets.{p.name}" for p in (ROOT / "assets").iterdir() if (p / "config.json").is_file()}
    assert {"studio_assets"} | bundles <= packages
    assert "packages" not in tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"], \
        "pyproject.toml's `packages` would override setup.py's discovery"


def test_readme_test_command_is_what_ci_runs():
    readme = (ROOT / "README.md").read_text()
    ci = (ROOT / ".ci" / "run").read_text().strip().splitlines()[-1]
    assert ci in readme


def test_the_wheel_carries_every_file_the_web_page_is_built_from(monkeypatch):
    """`studio web` and the web export from a `pip install .` (no checkout): the page's own files travel in
    `studio_web`; only what `npm ci` fetches (node_modules/) is not shipped."""
    import fnmatch
    import json

    packages = wheel_packages(monkeypatch)
    setting = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    assert setting["package-dir"]["studio_web"] == "web"
    patterns = setting["package-data"]["studio_web"]
    listed = json.loads((ROOT / "web" / "site-files.json").read_text(encoding="utf-8"))["files"]
    needed = ["package.json", "package-lock.json", "site-files.json"] + [
        entry["from"] for entry in listed if not entry["from"].startswith("node_modules/")]
    missing = [name for name in needed if not any(fnmatch.fnmatch(name, pattern) for pattern in patterns)
               or ("/" in name and "studio_web." + name.rsplit("/", 1)[0].replace("/", ".") not in packages)]
    assert not missing, f"not in the wheel: {missing}"


def test_the_wheel_carries_every_file_the_android_package_takes_from_the_library(monkeypatch):
    """The android export from a `pip install .`: the library sources it carries travel in `studio_mobile`."""
    import fnmatch

    from exporters.android import library_files

    packages = wheel_packages(monkeypatch)
    setting = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    assert setting["package-dir"]["studio_mobile"] == "mobile"
    patterns = [pattern.replace("**/", "") for pattern in setting["package-data"]["studio_mobile"]]
    carried = [path.relative_to(ROOT / "mobile").as_posix() for path in library_files().values()]
    missing = [name for name in carried if not any(fnmatch.fnmatch(name, pattern) for pattern in patterns)
               or "studio_mobile." + name.rsplit("/", 1)[0].replace("/", ".") not in packages]
    assert carried and not missing, f"not in the wheel: {missing}"


def test_the_wheel_carries_the_data_and_fixtures_the_ios_package_takes_from_the_library(monkeypatch):
    """The ios export from a `pip install .`: the Unicode table and the text and tokenizer fixtures travel in
    `studio_mobile`, though the library's other tests and fixtures do not."""
    import fnmatch

    from exporters.ios import library_sources

    packages = wheel_packages(monkeypatch)
    setting = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    patterns = [pattern.replace("**/", "") for pattern in setting["package-data"]["studio_mobile"]]
    taken = [path.relative_to(ROOT / "mobile").as_posix() for path in library_sources().values()]
    missing = [name for name in taken if not any(fnmatch.fnmatch(name, pattern) for pattern in patterns)
               or "studio_mobile." + name.rsplit("/", 1)[0].replace("/", ".") not in packages]
    assert len(taken) == 4 and not missing, f"not in the wheel: {missing}"
    assert not any(fnmatch.fnmatch("android/src/test/resources/decode/translator.json", p) for p in patterns)


def test_the_files_the_librarys_gradle_build_names_travel_in_the_android_package():
    """A file `build.gradle.kts` names (the R8 keep rules) and the package lacks fails the app's build, or worse, a
    shrunk release build that cannot find the LiteRT runtime."""
    import re

    from exporters.android import LIBRARY, library_files, library_folder

    gradle = (library_folder() / "build.gradle.kts").read_text(encoding="utf-8")
    code = "\n".join(line.split("//")[0] for line in gradle.splitlines())
    named = [name for files in re.findall(r"(?:consumerProguardFiles|proguardFiles)\(([^)]*)\)", code)
             for name in re.findall(r'"([^"]+)"', files)]
    assert "consumer-rules.pro" in named
    carried = set(library_files())
    assert [name for name in named if f"{LIBRARY}/{name}" not in carried] == []
