"""The wheel's package list; everything else is in pyproject.toml.

`studio` and `exporters` are found automatically, so a new subpackage (a folder with an `__init__.py`) ships
without being listed. The shipped bundles in assets/ install as `studio_assets` and the web page's package in
web/ as `studio_web` (`package-dir` in pyproject.toml), renames that `[tool.setuptools.packages.find]` cannot
express, hence this file. Their folders are listed too, so setuptools does not warn that they are "absent from the
packages configuration"; a checkout's exports (assets/*/exports/, built on first use) and web/'s tests and
node_modules are left out.
"""
from setuptools import find_namespace_packages, find_packages, setup

BUNDLE_FOLDERS = find_namespace_packages(where="assets", exclude=["*exports*", "*__pycache__*"])
WEB_FOLDERS = ["site", "src", "src.generated"]  # what the wheel needs of web/ (not its tests or node_modules)
# the Android library's sources (the android package carries them) and the text fixtures the ios package carries:
# not its tests, other fixtures, scripts or builds
MOBILE_FOLDERS = [name for name in find_namespace_packages(where="mobile", exclude=["scripts*"])
                  if name.startswith(("android.src.main", "android.src.android", "android.src.litert",
                                      "android.sample"))
                  or name in ("android", "android.src", "android.src.test", "android.src.test.resources")]

setup(packages=find_packages(include=["studio", "studio.*", "exporters", "exporters.*"])
      + ["studio_assets"] + [f"studio_assets.{name}" for name in BUNDLE_FOLDERS]
      + ["studio_web"] + [f"studio_web.{name}" for name in WEB_FOLDERS]
      + ["studio_mobile"] + [f"studio_mobile.{name}" for name in MOBILE_FOLDERS])
