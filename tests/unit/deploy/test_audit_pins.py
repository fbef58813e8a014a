"""`make audit` (scripts/audit_pins.py): the pinned sets against the known advisories and the exceptions MWAA's pins
impose, and pip-audit's findings against the same exceptions — each check shown to fail where it must."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pytest

REPO = Path(__file__).resolve().parents[3]
_spec = importlib.util.spec_from_file_location("audit_pins", REPO / "scripts" / "audit_pins.py")
assert _spec is not None
assert _spec.loader is not None
audit = importlib.util.module_from_spec(_spec)
sys.modules["audit_pins"] = audit
_spec.loader.exec_module(audit)


def repo_sets() -> dict[str, dict[str, str]]:
    return {name: audit.read_pins(REPO / "requirements" / name) for name in audit.SETS}


def test_the_repositorys_sets_pass_the_known_advisories_with_their_exceptions() -> None:
    advisories, exceptions = audit.read_exceptions()
    assert audit.check_known(repo_sets(), advisories, exceptions) == []
    # every exception is for a set whose pins MWAA (or the Airflow release under test) imposes, with a reason
    for e in exceptions:
        assert e.set.startswith("airflow-3."), e
        assert e.reason.strip()
        assert e.imposed_by.startswith(("requirements/mwaa/", "apache-airflow-core=="))


def test_the_sets_we_control_pin_no_version_a_known_advisory_affects() -> None:
    advisories, _ = audit.read_exceptions()
    sets = repo_sets()
    for name in ("constraints-py3.11.txt", "constraints-py3.12.txt", "constraints-py3.13.txt"):
        for advisory in advisories:
            version = sets[name].get(advisory.package)
            assert version is None or version not in advisory.affected, (name, advisory.id)


def test_a_set_that_falls_back_to_an_affected_pin_fails_naming_the_pin_and_the_advisory() -> None:
    advisories, exceptions = audit.read_exceptions()
    sets = repo_sets()
    sets["constraints-py3.11.txt"] = {**sets["constraints-py3.11.txt"], "urllib3": "2.5.0"}
    problems = audit.check_known(sets, advisories, exceptions)
    assert problems
    assert all(
        p.startswith("constraints-py3.11.txt pins urllib3==2.5.0, affected by GHSA-") for p in problems
    )
    assert any("GHSA-gm62-xv2j-4w53 (CVE-2025-66418" in p for p in problems)


def test_an_exception_that_no_longer_applies_or_is_not_imposed_fails() -> None:
    advisories, exceptions = audit.read_exceptions()
    sets = repo_sets()
    moved = {**sets, "airflow-3.2-py3.12.txt": {**sets["airflow-3.2-py3.12.txt"], "urllib3": "2.7.0"}}
    problems = audit.check_known(moved, advisories, exceptions)
    assert any(p.startswith("stale exception: airflow-3.2-py3.12.txt pins urllib3==2.7.0") for p in problems)
    assert any(
        "requirements/mwaa/airflow-3.2.1-constraints.txt pins 2.6.3, the set 2.7.0" in p for p in problems
    )
    cap = {
        **sets,
        "airflow-3.1-py3.13.txt": {**sets["airflow-3.1-py3.13.txt"], "apache-airflow-core": "3.1.9"},
    }
    assert any(
        "no longer pins apache-airflow-core==3.1.8" in p
        for p in audit.check_known(cap, advisories, exceptions)
    )


def pip_audit_report(*deps: dict[str, Any]) -> dict[str, Any]:
    return {"dependencies": list(deps), "fixes": []}


def test_a_finding_of_the_index_fails_unless_an_exception_lists_it_or_an_alias() -> None:
    advisories, exceptions = audit.read_exceptions()
    sets = repo_sets()
    found, skipped = audit.findings_of(
        pip_audit_report(
            {
                "name": "urllib3",
                "version": "2.5.0",
                "vulns": [{"id": "PYSEC-2099-1", "aliases": ["CVE-2025-66418"], "fix_versions": ["2.6.0"]}],
            },
            {
                "name": "Jinja2",
                "version": sets["constraints-py3.11.txt"]["jinja2"],
                "vulns": [{"id": "GHSA-xxxx-yyyy-zzzz", "aliases": [], "fix_versions": ["9.9.9"]}],
            },
            {
                "name": "gone",
                "version": "1.0",
                "skip_reason": "Dependency not found on PyPI and could not be audited",
            },
        )
    )
    assert skipped == ["gone==1.0: Dependency not found on PyPI and could not be audited"]
    problems = audit.check_findings(sets, found, advisories, exceptions)
    # urllib3 2.5.0 is MWAA 3.0.6's, excepted by its CVE alias; jinja2 is pinned by sets nobody excepted
    assert not any("urllib3" in p for p in problems)
    assert any(
        p.startswith("constraints-py3.11.txt pins jinja2==") and "GHSA-xxxx-yyyy-zzzz" in p for p in problems
    )
    assert all("fixed in 9.9.9" in p for p in problems)


def test_the_pins_are_audited_once_each_in_files_that_name_a_package_once(tmp_path: Path) -> None:
    """pip-audit refuses a file naming one package twice; a fake pip-audit records what it was given."""
    record = tmp_path / "given.jsonl"
    fake = tmp_path / "pip-audit"
    fake.write_text(
        f"#!{sys.executable}\n"
        "import json, sys\n"
        "path = sys.argv[sys.argv.index('-r') + 1]\n"
        "pins = [line.strip().split('==') for line in open(path) if line.strip()]\n"
        f"open({str(record)!r}, 'a').write(json.dumps(pins) + '\\n')\n"
        "deps = [{'name': n, 'version': v, 'skip_reason': 'Dependency not found on PyPI and could not be audited'}"
        " for n, v in pins]\n"
        "print(json.dumps({'dependencies': deps, 'fixes': []}))\n"
    )
    fake.chmod(0o755)
    pins = [("a", "1"), ("a", "2"), ("b", "1"), ("a", "3")]
    assert audit.layers(pins) == [[("a", "1"), ("b", "1")], [("a", "2")], [("a", "3")]]
    report = audit.run_pip_audit(str(fake), pins, None)
    assert sorted((d["name"], d["version"]) for d in report["dependencies"]) == sorted(pins)  # type: ignore[union-attr]
    files = [json.loads(line) for line in record.read_text().splitlines()]
    assert len(files) == 3
    for given in files:
        names = [name for name, _ in given]
        assert len(names) == len(set(names))


def test_an_index_without_advisory_data_is_said_and_fails_only_when_data_is_required(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fake = tmp_path / "pip-audit"
    fake.write_text(
        f"#!{sys.executable}\n"
        "import json, sys\n"
        "path = sys.argv[sys.argv.index('-r') + 1]\n"
        "pins = [line.strip().split('==') for line in open(path) if line.strip()]\n"
        "print(json.dumps({'dependencies': [{'name': n, 'version': v, 'skip_reason':"
        " 'Dependency not found on PyPI and could not be audited'} for n, v in pins]}))\n"
    )
    fake.chmod(0o755)
    assert audit.main(["--pip-audit", str(fake)]) == 0
    assert "NOT AUDITED against the index" in capsys.readouterr().out
    assert audit.main(["--pip-audit", str(fake), "--require-data"]) == 3
