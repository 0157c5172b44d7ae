"""Report costs on the golden cassettes: reading a run, rendering its HTML, JUnit for all four.

Prints, per cassette, its size, the report's size, and the median of 20 timings of
``read_run`` and of ``render_html``; then the JUnit time for all runs and Chromium's time to
load one report (when chromium is installed).
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

from orav.report.html import render_html, write_html
from orav.report.junit import junit_xml
from orav.report.timeline import read_run

ROOT = Path(__file__).resolve().parent.parent
ROUNDS = 20
sys.path.insert(0, str(ROOT / "tests"))
from chromium import CHROMIUM, dump_dom


def median_ms(work) -> float:
    times = []
    for _ in range(ROUNDS):
        started = time.perf_counter()
        work()
        times.append(time.perf_counter() - started)
    return statistics.median(times) * 1000


def main() -> None:
    cassettes = sorted((ROOT / "recordings").glob("*.cassette"))
    print(f"{'cassette':<16} {'KB':>6} {'html KB':>8} {'read ms':>8} {'render ms':>10}")
    runs = []
    for path in cassettes:
        run = read_run(path)
        runs.append(run)
        html = render_html(run)
        read = median_ms(lambda path=path: read_run(path))
        render = median_ms(lambda run=run: render_html(run))
        size = path.stat().st_size / 1024
        print(
            f"{path.stem:<16} {size:6.0f} {len(html.encode()) / 1024:8.0f} {read:8.1f} {render:10.1f}"
        )
    print(f"junit for {len(runs)} runs: {median_ms(lambda: junit_xml(runs)):.2f} ms")
    if CHROMIUM is None:
        return
    with tempfile.TemporaryDirectory() as tmp:
        page = write_html(runs[-1], Path(tmp) / "report.html")
        times = []
        for _ in range(3):
            started = time.perf_counter()
            dump_dom(page, Path(tmp))
            times.append(time.perf_counter() - started)
    print(f"chromium --dump-dom of {runs[-1].header.scenario.name}: {min(times):.2f} s (best of 3)")


if __name__ == "__main__":
    main()
