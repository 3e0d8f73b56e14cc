"""Known-vulnerability check of the installed dependency set, for machines where `pip-audit` cannot run.

`pip-audit` needs OSV (api.osv.dev) or PyPI's per-version JSON (`/pypi/<name>/<version>/json`). Where only
the per-project JSON (`/pypi/<name>/json`) is reachable, this script reports for every installed
distribution: the newest release on PyPI, the advisories PyPI lists for that newest release, and
whether the installed version is older (its advisories then cannot be checked here: run pip-audit
where OSV is reachable). Run it with the environment's Python:

    .venv/bin/python scripts/audit_dependencies.py [--out docs/audit.json]

Prefer `pip install pip-audit && pip-audit` wherever it works.
"""

from __future__ import annotations

import argparse
import json
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from importlib.metadata import distributions
from pathlib import Path


def project_info(name: str) -> dict | None:
    try:
        with urllib.request.urlopen(f"https://pypi.org/pypi/{name}/json", timeout=30) as response:
            return json.load(response)
    except (urllib.error.URLError, ValueError, TimeoutError):
        return None


def audit(name: str, installed: str) -> dict:
    info = project_info(name)
    if info is None:
        return {"name": name, "installed": installed, "status": "not reachable on PyPI"}
    latest = info["info"]["version"]
    advisories = [{"id": v.get("id"), "aliases": v.get("aliases", []), "fixed_in": v.get("fixed_in", []),
                   "summary": (v.get("summary") or v.get("details") or "")[:200]}
                  for v in info.get("vulnerabilities", [])]
    if installed == latest:
        status = "vulnerable" if advisories else "latest, no known advisories"
    else:
        status = "older than the latest release (advisories of this version not checkable here)"
    return {"name": name, "installed": installed, "latest": latest, "status": status,
            "advisories_for_latest": advisories}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    installed = sorted({(d.metadata["Name"].lower(), d.version) for d in distributions()
                        if d.metadata["Name"] and d.metadata["Name"].lower() != "transformer-studio"})
    with ThreadPoolExecutor(8) as pool:
        rows = list(pool.map(lambda item: audit(*item), installed))
    for row in rows:
        print(f"{row['name']:<28} {row['installed']:<14} {row.get('latest', '?'):<14} {row['status']}")
        for advisory in row.get("advisories_for_latest", []) if row["status"] == "vulnerable" else []:
            print(f"    {advisory['id']} {advisory['aliases']} fixed in {advisory['fixed_in']}: {advisory['summary']}")
    counts = {}
    for row in rows:
        counts[row["status"]] = counts.get(row["status"], 0) + 1
    print("; ".join(f"{count} {status}" for status, count in sorted(counts.items())))
    if args.out:
        args.out.write_text(json.dumps({"summary": counts, "packages": rows}, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
