"""compat reads the OpenLineage provider's source with ``ast.parse`` one thread at a time: two parses at once can
fail on Python 3.11 and 3.12 ("AST constructor recursion depth mismatch"), and lineage is sent from threads."""

from __future__ import annotations

import ast
import threading
import time

import pytest

from sagemaker_fleet import compat


def test_parses_of_the_provider_source_never_overlap(monkeypatch) -> None:
    pytest.importorskip("airflow.providers.openlineage.utils.utils")
    real_parse = ast.parse
    inside, most = [0], [0]
    guard = threading.Lock()

    def slow_parse(*args, **kwargs):
        with guard:
            inside[0] += 1
            most[0] = max(most[0], inside[0])
        time.sleep(0.05)  # long enough for every thread to arrive while one parses
        try:
            return real_parse(*args, **kwargs)
        finally:
            with guard:
                inside[0] -= 1

    monkeypatch.setattr(ast, "parse", slow_parse)
    answers: list[bool] = []
    threads = [
        threading.Thread(target=lambda: answers.append(compat._parent_facet_takes_root.__wrapped__()))
        for _ in range(6)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(answers) == 6
    assert len(set(answers)) == 1
    assert most[0] == 1
