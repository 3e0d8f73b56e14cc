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
