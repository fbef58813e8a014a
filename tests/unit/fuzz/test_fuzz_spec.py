"""Fuzz: any YAML document, given to ``validate`` and (when it validates) to ``plan`` and ``simulate``, ends in
exit 0 or 2 with a message, never a traceback, within a bounded time (:data:`BOUND_SECONDS`, generous on purpose:
the only timed assertion of the suite)."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import HealthCheck, event, given, note, settings

from unit.fuzz.fuzz_inputs import DOCUMENTS, EXAMPLES, assert_handled, run_cli


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(DOCUMENTS)
def test_any_document_is_validated_or_refused_with_a_message(text: str) -> None:
    note(repr(text))
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "fleet.yaml"
        path.write_text(text, encoding="utf-8")
        outcome = run_cli(["validate", str(path)])
        assert_handled(outcome, f"validate of {text!r}")
        event(f"validate exit {outcome.code}")
        if outcome.code == 0:
            assert_handled(run_cli(["plan", str(path), "--run-key", "20261129"]), f"plan of {text!r}")
            assert_handled(run_cli(["simulate", str(path), "--json"]), f"simulate of {text!r}")
