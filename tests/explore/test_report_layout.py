"""The HTML report as a browser lays it out (headless Chromium): each field's Pareto plot beside
its tables in a wide window and directly under them in a narrow one, the first plot on the first
screen, nothing wider than the window."""

import json
import shutil
import subprocess

import pytest

from modforge.explore import Store
from modforge.explore.report import write_report

from .test_store import fill

# the positions the page has once laid out, written into the DOM for --dump-dom to show
PROBE = """<script>
const box = e => { const r = e.getBoundingClientRect(); return {left: r.left, top: r.top, right: r.right,
                                                             bottom: r.bottom}; };
document.body.setAttribute('data-layout', JSON.stringify({
  width: document.documentElement.scrollWidth,
  images: [...document.querySelectorAll('img')].map(box),
  sections: [...document.querySelectorAll('section.result')].map(s => ({
    tables: box(s.querySelector('div.table')),
    plots: [...s.querySelectorAll('figure')].map(box)})),
}));
</script>"""


def chromium(tmp_path, *args: str) -> str:
    exe = shutil.which("chromium")
    if exe is None:   # CI installs it (.ci/run), so it never skips there
        pytest.skip("chromium not installed (Debian: apt-get install chromium)")
    proc = subprocess.run([exe, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                           f"--user-data-dir={tmp_path / 'profile'}", *args],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stdout


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    """The report of the hand-filled database (written once: matplotlib takes seconds)."""
    where = tmp_path_factory.mktemp("report")
    with Store(where / "results.sqlite", command="test") as store:
        fill(store)
    return write_report(where / "results.sqlite", "html", where / "report")


def layout(tmp_path, page, width: int, height: int) -> dict:
    probe = tmp_path / "probe.html"   # beside no plots: the page is self-contained
    probe.write_text(page.read_text().replace("</body>", PROBE + "</body>"))
    dom = chromium(tmp_path, f"--window-size={width},{height}", "--dump-dom", probe.as_uri())
    start = dom.index('data-layout="') + len('data-layout="')
    return json.loads(dom[start:dom.index('"', start)].replace("&quot;", '"').replace("&amp;", "&"))


def test_screenshot(tmp_path, page):
    shot = tmp_path / "report.png"
    chromium(tmp_path, f"--screenshot={shot}", "--window-size=1400,1000", page.as_uri())
    head = shot.read_bytes()[:24]
    assert head[:8] == b"\x89PNG\r\n\x1a\n"
    assert (int.from_bytes(head[16:20], "big"), int.from_bytes(head[20:24], "big")) == (1400, 1000)


def test_plots_beside_their_tables(tmp_path, page):
    wide = layout(tmp_path, page, 1400, 1000)
    assert wide["width"] <= 1400                       # no horizontal scrolling
    assert wide["images"] and wide["images"][0]["top"] < 1000   # the first plot on the first screen
    assert len(wide["sections"]) == 4                  # a field per section: 3 on ecp5, 1 on generic
    for s in wide["sections"]:
        (plot,) = s["plots"]
        assert plot["left"] >= s["tables"]["right"]    # beside the tables, right of them
        assert abs(plot["top"] - s["tables"]["top"]) < 40, s   # level with them


def test_plots_under_their_tables_in_a_narrow_window(tmp_path, page):
    narrow = layout(tmp_path, page, 760, 1000)
    assert len(narrow["sections"]) == 4
    for s in narrow["sections"]:
        (plot,) = s["plots"]
        assert 0 <= plot["top"] - s["tables"]["bottom"] < 60, s     # directly under
        assert plot["right"] <= 760
