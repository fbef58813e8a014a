"""report.html is one self-contained, parseable page with escaped text and every chart."""

from __future__ import annotations

import html
import re
from html.parser import HTMLParser

import pytest

from sagemaker_fleet.cost import build_cost_report, render_html
from sagemaker_fleet.fleetspec.price_table import load_price_table
from sagemaker_fleet.jobs.prices import PriceBook
from unit.cost.cost_describes import RUN_KEY, demo_report, demo_spec, describe_job


class PageScan(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.ids: set[str] = set()
        self.refs: list[str] = []
        self.scripts_with_src = 0
        self.stack: list[str] = []
        self.mismatched: list[str] = []

    VOID = frozenset({"meta", "input", "br", "rect", "circle", "line", "link", "img"})

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        values = dict(attrs)
        if values.get("id"):
            self.ids.add(str(values["id"]))
        for name in ("src", "href", "xlink:href", "action", "poster", "data"):
            if values.get(name):
                self.refs.append(str(values[name]))
        if tag == "script" and values.get("src"):
            self.scripts_with_src += 1
        if tag not in self.VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)
        if tag not in self.VOID:
            self.stack.pop()

    def handle_endtag(self, tag: str) -> None:
        if tag in self.VOID:
            return
        if not self.stack or self.stack[-1] != tag:
            self.mismatched.append(tag)
            return
        self.stack.pop()


@pytest.fixture
def page() -> str:
    report = demo_report()
    return render_html(report)


def scan(page: str) -> PageScan:
    parser = PageScan()
    parser.feed(page)
    parser.close()
    return parser


def test_page_parses_and_is_balanced(page: str) -> None:
    parsed = scan(page)
    assert parsed.mismatched == []
    assert parsed.stack == []
    assert page.startswith("<!DOCTYPE html>")


def test_page_loads_nothing_from_outside(page: str) -> None:
    parsed = scan(page)
    assert parsed.scripts_with_src == 0
    assert "link" not in parsed.tags
    assert "img" not in parsed.tags
    assert "iframe" not in parsed.tags
    assert all(not re.match(r"(?i)\s*(https?:)?//", ref) for ref in parsed.refs), parsed.refs
    assert not re.search(r"(?i)url\(\s*['\"]?(https?:)?//", page)
    assert not re.search(r"(?i)@import", page)
    assert "default-src 'none'" in html.unescape(page)  # the CSP forbids any fetch


def test_page_has_every_section(page: str) -> None:
    parsed = scan(page)
    assert {"gantt", "city-chart", "spend-chart", "starts-chart", "jobs", "groups", "cities"} <= parsed.ids
    assert page.count('class="job"') == 7
    assert 'class="idle"' in page  # retained idle time is drawn
    assert "start-warm" in page
    assert "start-cold" in page
    assert page.count("warm, image re-pulled (reused-pool)") == 1  # lagos, in the jobs table
    assert "1 warm with the image re-pulled" in page


def test_text_is_escaped(page: str) -> None:
    assert '<script>alert("x")</script>' not in page
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; exit 1" in page
    assert page.count("<script>") == 1  # only our own


def test_a_url_and_quotes_in_a_failure_reason_stay_text() -> None:
    # job and city names are validated ([a-z0-9-]); the container's failure reason is free text
    spec = demo_spec()
    hostile = describe_job(
        "demo-seoul-20261129", status="Failed", failure_reason='see https://evil.example/x" onload="alert(1)'
    )
    report = build_cost_report(spec, RUN_KEY, [hostile], PriceBook(spec.region, load_price_table()))
    page = render_html(report)
    parsed = scan(page)
    assert parsed.refs == []  # no link, image or script source came from the reason
    assert 'onload="alert(1)"' not in page
    assert "see https://evil.example/x&quot; onload=&quot;alert(1)" in page  # shown, as text


def test_empty_report_still_renders() -> None:
    spec = demo_spec()
    report = build_cost_report(spec, RUN_KEY, [], PriceBook(spec.region, load_price_table()))
    page = render_html(report)
    assert "No job has timing information yet." in page
    assert scan(page).mismatched == []
