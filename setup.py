"""The wheel's package list; everything else is in pyproject.toml.

`studio` and `exporters` are found automatically, so a new subpackage (a folder with an `__init__.py`) ships
without being listed. The shipped bundles in assets/ install as `studio_assets` (`package-dir` in
pyproject.toml), a rename that `[tool.setuptools.packages.find]` cannot express, hence this file. The bundles'
folders are listed too, so setuptools does not warn that they are "absent from the packages configuration";
a checkout's exports (assets/*/exports/, built on first use) are left out.
"""
from setuptools import find_namespace_packages, find_packages, setup

BUNDLE_FOLDERS = find_namespace_packages(where="assets", exclude=["*exports*", "*__pycache__*"])

setup(packages=find_packages(include=["studio", "studio.*", "exporters", "exporters.*"])
      + ["studio_assets"] + [f"studio_assets.{name}" for name in BUNDLE_FOLDERS])
