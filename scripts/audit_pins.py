"""Audit the pinned sets CI installs from for known vulnerabilities (`make audit`, part of `make test`).

Two checks, each over every set in :data:`SETS`:

1. **Known advisories** (offline): requirements/audit-exceptions.toml lists advisories this repository knows of
   with the versions they affect. A set that pins an affected version fails unless an ``[[exception]]`` covers it;
   an exception must name who imposes the pin (an MWAA constraints file pinning the same version, or the set's own
   requirement that caps it) and must still apply (an exception for a pin no longer affected is stale: it fails).
2. **The index's advisory data** (pip-audit, ``-s pypi``): every distinct pin once, against PyPI's JSON API. A
   finding fails unless an exception for that set and package lists its id or an alias. Where the index serves no
   advisory data at all (every pin answered "not found", as a mirror of the simple index does), the audit says so
   and, with ``--require-data``, fails; without it check 1 still stands.

Exit 0: clean; 1: a finding, an uncovered known advisory or a stale exception; 3: ``--require-data`` and no data.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from packaging.specifiers import SpecifierSet
from packaging.utils import canonicalize_name

REPO = Path(__file__).resolve().parents[1]
EXCEPTIONS = REPO / "requirements" / "audit-exceptions.toml"
#: The sets the installs read: the suites' (Makefile, scripts/pythons.sh), the Docker image's, uv's and the audit's.
SETS = (
    "constraints-py3.11.txt",
    "constraints-py3.12.txt",
    "constraints-py3.13.txt",
    "airflow-3.0-py3.12.txt",
    "airflow-3.1-py3.13.txt",
    "airflow-3.2-py3.12.txt",
    "image-py3.11.txt",
    "uv.txt",
    "audit-py3.11.txt",
)
NOT_FOUND = "Dependency not found on PyPI"


@dataclass(frozen=True)
class Advisory:
    id: str
    aliases: tuple[str, ...]
    package: str
    affected: SpecifierSet


@dataclass(frozen=True)
class Exception_:
    set: str
    package: str
    advisories: tuple[str, ...]
    imposed_by: str
    reason: str


@dataclass(frozen=True)
class Finding:
    package: str
    version: str
    id: str
    aliases: tuple[str, ...]
    fix_versions: tuple[str, ...]


def read_pins(path: Path) -> dict[str, str]:
    """``name → version`` of a pinned set (``name==version``, hashes and comments on the lines that follow)."""
    pins: dict[str, str] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line or line[0] in " #-" or "==" not in line:
            continue
        name, rest = line.split("==", 1)
        pins[canonicalize_name(name.split("[", 1)[0])] = rest.split()[0].split(";")[0]
    return pins


def read_exceptions(path: Path = EXCEPTIONS) -> tuple[list[Advisory], list[Exception_]]:
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    advisories = [
        Advisory(
            a["id"], tuple(a.get("aliases", ())), canonicalize_name(a["package"]), SpecifierSet(a["affected"])
        )
        for a in data.get("advisory", ())
    ]
    exceptions = [
        Exception_(
            e["set"], canonicalize_name(e["package"]), tuple(e["advisories"]), e["imposed_by"], e["reason"]
        )
        for e in data.get("exception", ())
    ]
    return advisories, exceptions


def _covered(exceptions: Iterable[Exception_], set_name: str, package: str, ids: Iterable[str]) -> bool:
    wanted = set(ids)
    return any(e.set == set_name and e.package == package and wanted & set(e.advisories) for e in exceptions)


def check_known(
    sets: Mapping[str, Mapping[str, str]],
    advisories: list[Advisory],
    exceptions: list[Exception_],
    repo: Path = REPO,
) -> list[str]:
    """Check 1 (see the module docstring): problems, each a sentence naming the set, the pin and the fix."""
    problems = []
    by_id = {a.id: a for a in advisories}
    for set_name, pins in sets.items():
        for advisory in advisories:
            version = pins.get(advisory.package)
            if version is None or version not in advisory.affected:
                continue
            if not _covered(exceptions, set_name, advisory.package, [advisory.id]):
                problems.append(
                    f"{set_name} pins {advisory.package}=={version}, affected by {advisory.id} "
                    f"({', '.join(advisory.aliases)}; affected {advisory.affected}): raise the pin, or add an "
                    "[[exception]] naming who imposes it"
                )
    for e in exceptions:
        pins = sets.get(e.set)
        if pins is None:
            problems.append(f"exception for {e.package} names set {e.set}, which is not audited")
            continue
        version = pins.get(e.package)
        for advisory_id in e.advisories:
            advisory = by_id.get(advisory_id)
            if advisory is None:
                problems.append(
                    f"exception {e.set}/{e.package} names {advisory_id}: no [[advisory]] of that id"
                )
            elif version is None or version not in advisory.affected:
                problems.append(
                    f"stale exception: {e.set} pins {e.package}=={version}, not affected by {advisory_id} "
                    f"({advisory.affected}): remove it from the exception"
                )
        problems += _imposed(e, version, pins, repo)
    return problems


def _imposed(e: Exception_, version: str | None, pins: Mapping[str, str], repo: Path) -> list[str]:
    """The exception's ``imposed_by`` still imposes the pin: the file pins the same version, or the set pins the
    named requirement."""
    if "==" in e.imposed_by and "/" not in e.imposed_by:
        name, wanted = e.imposed_by.split("==", 1)
        if pins.get(canonicalize_name(name)) != wanted:
            return [
                f"exception {e.set}/{e.package}: the set no longer pins {e.imposed_by}: re-examine the pin"
            ]
        return []
    theirs = read_pins(repo / e.imposed_by).get(e.package)
    if theirs != version:
        return [
            f"exception {e.set}/{e.package}: {e.imposed_by} pins {theirs}, the set {version}: not imposed, "
            "raise the pin"
        ]
    return []


def layers(pins: Iterable[tuple[str, str]]) -> list[list[tuple[str, str]]]:
    """The distinct pins in as few requirement files as can hold them: pip-audit refuses a file that names one
    package twice, and the sets pin some packages at several versions."""
    out: list[list[tuple[str, str]]] = []
    seen: dict[str, int] = {}
    for name, version in sorted(set(pins)):
        index = seen[name] = seen.get(name, -1) + 1
        if index == len(out):
            out.append([])
        out[index].append((name, version))
    return out


def run_pip_audit(
    pip_audit: str, pins: Iterable[tuple[str, str]], cache_dir: str | None
) -> dict[str, object]:
    """pip-audit's JSON report for ``pins`` (each ``(name, version)`` once), against the index's advisory data:
    one run per layer (:func:`layers`), side by side (they wait on the index), their dependencies merged."""
    from concurrent.futures import ThreadPoolExecutor

    def audit(layer: list[tuple[str, str]]) -> dict[str, object]:
        with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as handle:
            handle.write("".join(f"{name}=={version}\n" for name, version in layer))
        command = [pip_audit, "-r", handle.name, "--no-deps", "--disable-pip", "-s", "pypi", "-f", "json"]
        command += ["--progress-spinner", "off"] + (["--cache-dir", cache_dir] if cache_dir else [])
        try:
            done = subprocess.run(command, capture_output=True, text=True, check=False)
        finally:
            os.unlink(handle.name)
        if not done.stdout.strip():
            raise SystemExit(f"pip-audit printed no report (exit {done.returncode}):\n{done.stderr}")
        report: dict[str, object] = json.loads(done.stdout)
        return report

    with ThreadPoolExecutor(max_workers=4) as pool:
        reports = list(pool.map(audit, layers(pins)))
    return {"dependencies": [dep for report in reports for dep in report.get("dependencies", [])]}  # type: ignore[attr-defined]


def findings_of(report: Mapping[str, object]) -> tuple[list[Finding], list[str]]:
    """The vulnerabilities pip-audit found, and the pins it could not audit (``name==version: why``)."""
    found, skipped = [], []
    for dep in report.get("dependencies", []):  # type: ignore[attr-defined]
        if dep.get("skip_reason"):
            skipped.append(f"{dep['name']}=={dep.get('version', '?')}: {dep['skip_reason']}")
            continue
        for vuln in dep.get("vulns", ()):
            found.append(
                Finding(
                    canonicalize_name(dep["name"]),
                    dep["version"],
                    vuln["id"],
                    tuple(vuln.get("aliases", ())),
                    tuple(vuln.get("fix_versions", ())),
                )
            )
    return found, skipped


def check_findings(
    sets: Mapping[str, Mapping[str, str]],
    findings: Iterable[Finding],
    advisories: list[Advisory],
    exceptions: list[Exception_],
) -> list[str]:
    """Check 2: each finding, in each set that pins that version, is covered by an exception (by the advisory's
    id or by any alias the index or the [[advisory]] gives it: the index may name a GHSA by its PYSEC or CVE id)."""
    aliases = {alias: a.id for a in advisories for alias in a.aliases}
    problems = []
    for finding in findings:
        ids = {finding.id, *finding.aliases}
        ids |= {aliases[i] for i in ids if i in aliases}
        for set_name, pins in sets.items():
            if pins.get(finding.package) != finding.version:
                continue
            if not _covered(exceptions, set_name, finding.package, ids):
                fix = ", ".join(finding.fix_versions) or "none published"
                problems.append(
                    f"{set_name} pins {finding.package}=={finding.version}: {finding.id} "
                    f"({', '.join(finding.aliases)}), fixed in {fix}: raise the pin, or add an [[exception]]"
                )
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pip-audit", help="the pip-audit to run (omit: the known advisories only)")
    parser.add_argument("--cache-dir", help="pip-audit's cache of the index's answers")
    parser.add_argument(
        "--require-data", action="store_true", help="fail (exit 3) when the index has no data"
    )
    args = parser.parse_args(argv)
    started = time.monotonic()
    sets = {name: read_pins(REPO / "requirements" / name) for name in SETS}
    advisories, exceptions = read_exceptions()
    problems = check_known(sets, advisories, exceptions)
    print(
        f"known advisories: {len(advisories)}, exceptions: {len(exceptions)} (requirements/audit-exceptions.toml)"
    )
    for e in exceptions:
        print(f"  excepted  {e.set}: {e.package}=={sets[e.set].get(e.package)} {', '.join(e.advisories)}")
    no_data = False
    if args.pip_audit:
        distinct = {(name, version) for pins in sets.values() for name, version in pins.items()}
        findings, skipped = findings_of(run_pip_audit(args.pip_audit, distinct, args.cache_dir))
        problems += check_findings(sets, findings, advisories, exceptions)
        no_data = len(skipped) == len(distinct)
        print(f"index: {len(distinct)} distinct pins of {len(sets)} sets, {len(findings)} finding(s)")
        if no_data:
            print(
                f"  NOT AUDITED against the index: it answered '{NOT_FOUND}' for every pin — it serves no "
                "per-version JSON (a mirror of the simple index?). Only the known advisories were checked."
            )
        else:
            for line in skipped:
                print(f"  skipped   {line}")
    for problem in problems:
        print(f"  FAIL      {problem}")
    print(f"audit: {'FAILED' if problems else 'passed'} in {time.monotonic() - started:.1f} s")
    if problems:
        return 1
    return 3 if no_data and args.require_data else 0


if __name__ == "__main__":
    sys.exit(main())
