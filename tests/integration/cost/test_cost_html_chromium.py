"""report.html opens in headless Chromium (Debian's ``chromium``) with no console message, runs its script to the
end, draws its SVG charts, and its screenshot shows them.

The test never installs Chromium: without ``/usr/bin/chromium`` it skips and says how to get it.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from sagemaker_fleet.cost import render_html
from sagemaker_fleet.cost.svg import COLORS
from unit.cost.cost_describes import demo_report

pytestmark = pytest.mark.integration

CHROMIUM = Path("/usr/bin/chromium")
CONSOLE = re.compile(r":CONSOLE[:(]|Uncaught")

#: Without the browser these tests skip on a laptop; under SAGEMAKER_FLEET_REQUIRE_SERVICES=1 (CI) they fail.
needs_chromium = pytest.mark.chromium


def chromium(page: Path, profile: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    """Headless Chromium with no network side-traffic, console messages logged to stderr."""
    args = [
        str(CHROMIUM),
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        f"--user-data-dir={profile}",
        "--enable-logging=stderr",
        "--v=0",
        *extra,
        page.as_uri(),
    ]
    return subprocess.run(args, capture_output=True, text=True, timeout=120, check=False)


def console_lines(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if CONSOLE.search(line)]


@pytest.fixture
def report_page(tmp_path: Path) -> Path:
    report = demo_report()
    page = tmp_path / "report.html"
    page.write_text(render_html(report), encoding="utf-8")
    return page


@needs_chromium
def test_console_check_is_not_vacuous(tmp_path: Path) -> None:
    """A page with a script error is caught by the same check, so silence below means something."""
    bad = tmp_path / "bad.html"
    bad.write_text("<!DOCTYPE html><html><body><script>notDefinedAnywhere();</script></body></html>")
    result = chromium(bad, tmp_path / "profile", "--dump-dom")
    assert any("Uncaught" in line for line in console_lines(result.stderr))


@needs_chromium
def test_page_renders_without_console_messages_and_runs_its_script(report_page: Path, tmp_path: Path) -> None:
    result = chromium(report_page, tmp_path / "profile", "--dump-dom")
    assert result.returncode == 0, result.stderr[-2000:]
    assert console_lines(result.stderr) == []
    dom = result.stdout
    assert 'data-ready="1"' in dom  # the script ran to its last line
    for chart in ("gantt", "spend-chart", "starts-chart", "city-chart"):
        assert f'<svg id="{chart}"' in dom
    assert "<h2>Warm pools across runs</h2>" in dom  # issue #28: the section is drawn (here with no crossing)


@needs_chromium
def test_screenshot_shows_the_charts(report_page: Path, tmp_path: Path) -> None:
    image_module = pytest.importorskip("PIL.Image", reason="Pillow is needed to read the screenshot")
    shot = tmp_path / "report.png"
    result = chromium(
        report_page,
        tmp_path / "profile",
        f"--screenshot={shot}",
        "--window-size=1400,2000",
        "--hide-scrollbars",
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert console_lines(result.stderr) == []
    with image_module.open(shot) as image:
        assert image.size == (1400, 2000)
        pixels = image.convert("RGB").getcolors(maxcolors=1 << 20) or []
    counts = {color: n for n, color in pixels}

    def share(hex_color: str) -> int:
        target = tuple(int(hex_color[i : i + 2], 16) for i in (1, 3, 5))
        return counts.get(target, 0)  # type: ignore[call-overload]

    # bars of the timeline, the spend and city charts (blue), start-up phases (orange, green), spot (purple)
    for name in ("training", "cold", "warm", "spot", "interrupted"):
        assert share(COLORS[name]) > 200, f"{name} ({COLORS[name]}) is not on the screenshot"
