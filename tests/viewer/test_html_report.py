"""``reliability-lab html``: one self-contained file, checked as written and in a real headless
browser (Debian's chromium; `.ci/run` installs it). Browser tests skip, saying why, only where
no chromium is installed."""

from __future__ import annotations

import json
import math
import re
import struct
import zlib
from pathlib import Path
from typing import Any

import pytest

from reliability_lab.cli import main
from reliability_lab.plots import FIGURES
from reliability_lab.report import robustness_by_intensity, robustness_intervals_by_intensity
from reliability_lab.results.read import load_results
from tests.experiment.helpers import result_lines
from tests.viewer._cdp import Browser, find_browser

BROWSER = find_browser()
needs_browser = pytest.mark.skipif(
    BROWSER is None, reason="no chromium on PATH (apt-get install chromium); .ci/run installs it"
)


@pytest.fixture(scope="module")
def html_file(results_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("html") / "report.html"
    assert main(["html", str(results_dir), "-o", str(out)]) == 0
    return out


def test_the_file_is_self_contained(html_file: Path) -> None:
    text = html_file.read_text(encoding="utf-8")
    # no stylesheet, script, image or font is fetched from anywhere
    assert not re.search(r"""(?:src|href)\s*=\s*["'](?!#|data:)""", text)
    assert "@import" not in text and "url(http" not in text
    assert "<!DOCTYPE svg" not in text  # matplotlib's DOCTYPE names an external DTD


def test_provenance_and_every_figure(html_file: Path, results_dir: Path) -> None:
    text = html_file.read_text(encoding="utf-8")
    header = json.loads((results_dir / "header.json").read_text(encoding="utf-8"))
    assert header["fingerprint"][:12] in text and "SIMULATED" in text
    assert f'<dd id="k">{header["config"]["runs"]}</dd>' in text
    for spec in FIGURES:  # drawn, or skipped with the reason
        assert f'id="fig-{spec.name}"' in text
    ids = re.findall(r'\sid="([^"]+)"', text)
    assert len(ids) == len(set(ids)), "element ids must be unique across inline SVGs"


def test_every_failed_run_links_to_its_transcript(html_file: Path, results_dir: Path) -> None:
    text = html_file.read_text(encoding="utf-8")
    failed = [r for r in result_lines(results_dir) if not r["success"]]
    links = re.findall(r'href="#(run-[^"]+)"', text)
    assert len(links) == len(failed) > 0
    for anchor in links:
        assert f'id="{anchor}"' in text


def test_robustness_intervals_bracket_the_point_estimate(results_dir: Path) -> None:
    runs = load_results(results_dir)
    table = robustness_intervals_by_intensity(runs, n_boot=50, seed=1)
    plain = robustness_by_intensity(runs)
    assert table["robustness"].tolist() == plain["robustness"].tolist()
    for rec in table.to_dict("records"):
        if not math.isnan(rec["robustness_lo"]):
            assert rec["robustness_lo"] <= rec["robustness"] + 1e-12 <= rec["robustness_hi"] + 2e-12


def _png_pixels_vary(path: Path) -> bool:
    """Whether a PNG has more than one distinct row of pixels (not blank)."""
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, chunks, width = 8, b"", 0
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos : pos + 8])
        body = data[pos + 8 : pos + 8 + length]
        if kind == b"IHDR":
            width, height, _depth, _colour = struct.unpack(">IIBB", body[:10])
            assert (width, height) == (1400, 900)
        elif kind == b"IDAT":
            chunks += body
        pos += 12 + length
    raw = zlib.decompress(chunks)
    stride = len(raw) // 900
    rows = {raw[i * stride + 1 : (i + 1) * stride] for i in range(900)}
    return len(rows) > 10


@needs_browser
def test_in_a_browser_offline(html_file: Path, results_dir: Path, tmp_path: Path) -> None:
    assert BROWSER is not None
    browser = Browser(BROWSER)
    try:
        browser.open(html_file.resolve().as_uri(), offline=True)
        assert browser.console_errors() == []
        schemes = {url.split(":", 1)[0] for url in browser.requested_urls()}
        assert schemes <= {"file", "data"}, browser.requested_urls()
        cells: list[dict[str, Any]] = browser.evaluate(
            "Array.from(document.querySelectorAll('#agent-table td[data-metric]'))"
            ".map(td => ({agent: td.dataset.agent, metric: td.dataset.metric,"
            " value: td.dataset.value, text: td.textContent}))"
        )
        summary = json.loads((results_dir / "summary.json").read_text(encoding="utf-8"))
        agents = summary["reliability"]["agents"]
        assert {c["agent"] for c in cells} == set(agents)
        for cell in cells:
            stored = agents[cell["agent"]].get(cell["metric"])
            if stored is None:
                assert cell["value"] == "" and cell["text"].startswith("n/a")
            else:
                assert float(cell["value"]) == stored
                assert cell["text"].startswith(f"{stored:.2f}")
        # the table sorts on a click, and the agent order before it is the config's
        order = browser.evaluate(
            "Array.from(document.querySelectorAll('#agent-table tbody th')).map(t => t.textContent)"
        )
        assert order == ["zeta", "alpha"]
        shot = browser.screenshot(tmp_path / "report.png")
        assert _png_pixels_vary(shot)
        browser.evaluate("document.querySelector('#agent-table thead th').click()")
        assert browser.console_errors() == []
        sorted_order = browser.evaluate(
            "Array.from(document.querySelectorAll('#agent-table tbody th')).map(t => t.textContent)"
        )
        assert sorted_order == ["alpha", "zeta"]
    finally:
        browser.close()
