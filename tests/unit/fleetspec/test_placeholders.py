"""``{city}``, ``{fleet}`` and ``{run_key}`` in template strings; ``{{`` and ``}}`` are literal braces."""

from __future__ import annotations

import pytest

from sagemaker_fleet.fleetspec.placeholders import PlaceholderError, names_in, render, render_value

VALUES = {"city": "seoul", "fleet": "demand", "run_key": "20261129"}


@pytest.mark.parametrize(
    ("text", "rendered"),
    [
        ("s3://b/{city}/{run_key}/", "s3://b/seoul/20261129/"),
        ("{fleet}-{city}", "demand-seoul"),
        ("rmse=([0-9]{{1,3}})", "rmse=([0-9]{1,3})"),
        ('{{"city": "{city}"}}', '{"city": "seoul"}'),
        ("plain", "plain"),
        ("", ""),
    ],
)
def test_render(text: str, rendered: str) -> None:
    assert render(text, VALUES) == rendered


@pytest.mark.parametrize(
    ("text", "quoted"),
    [
        ("s3://{town}/", "`{town}`"),
        ("{City}", "`{City}`"),
        ("{}", "`{}`"),
        ("a { b", "lone `{`"),
        ("a } b", "lone `}`"),
    ],
)
def test_unknown_placeholders_and_lone_braces_are_quoted(text: str, quoted: str) -> None:
    with pytest.raises(PlaceholderError, match=quoted.replace("{", r"\{").replace("}", r"\}")):
        names_in(text)


def test_keys_are_never_rendered_and_containers_are_fresh() -> None:
    value = {"{city}": ["{city}", 3, {"k": "{fleet}"}]}
    rendered = render_value(value, VALUES)
    assert rendered == {"{city}": ["seoul", 3, {"k": "demand"}]}
    assert rendered is not value
    assert names_in("{run_key}-{city}") == {"run_key", "city"}
