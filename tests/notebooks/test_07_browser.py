"""The 30-turn comparison in a real browser: notebook 07 in JupyterLab, and the page `make app` serves.

Drives Debian's ``chromium`` with pip's ``playwright`` (never ``playwright
install``). Each test starts its own server on 127.0.0.1 with a fresh HOME
and Jupyter directories under ``tmp_path`` and moves the comparison's turn
slider; the caption, the table and the chart must then show that turn of the
replay: the table's text is what ``comparison_html`` says, and the chart's
bytes are the PNG ``ComparisonChart`` draws for that turn. The `make app`
page is checked as a projector shows it, at 1280×720: title, slider, chart and
the table's caption on the first screen, no horizontal scroll, text that wraps
and reads at 16 CSS pixels or more (the chart's text as shown, the caption, the
table, the extraction view), turn 1 first, or the turn the address asks for.
Screenshots go to ``test-artifacts/``.

With ``CI`` set (as ``.ci/run`` does) the test is required and fails when the
browser is missing; elsewhere it is skipped, and the skip reason (printed in the
closing summary: pyproject.toml adds pytest's ``-rs``) says what is missing and how
to enable it.
Every wait is bounded and every server is stopped, whatever happens.
"""
from __future__ import annotations

import contextlib
import functools
import hashlib
import html
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOK = ROOT / "notebooks" / "07_compare_strategies.ipynb"
APP_PAGE = ROOT / "notebooks" / "app" / "compare_live.ipynb"     # what `make app` serves
ARTIFACTS = ROOT / "test-artifacts"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]
REQUIRED = os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")
START, WAIT, RUN = 90, 30, 120   # seconds: a server to answer, a widget to update, the notebook to run
SLIDER_START, SLIDER_TARGET = 16, 29   # the comparison slider's value in notebook 07, and where we move it
SCREEN = {"width": 1280, "height": 720}   # a projector's first screen
JUPYTERLAB_ROOM = 560     # px of a 720-pixel screen left for a notebook once the browser's and JupyterLab's bars are drawn


def _chromium() -> str | None:
    return shutil.which("chromium") or (CHROMIUM if os.access(CHROMIUM, os.X_OK) else None)


def _missing() -> str | None:
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "pip's playwright is not installed (make test installs it from requirements-test.txt)"
    if _chromium() is None:
        return "no chromium browser found (to run it, on Debian or Ubuntu: sudo apt install chromium)"
    return None


@pytest.fixture(scope="module")
def browser():
    missing = _missing()
    if missing:
        if REQUIRED:
            pytest.fail(f"the browser test is required when CI is set, but {missing}")
        pytest.skip(f"the browser test of notebook 07 did not run: {missing}; "
                    "CI=true makes it required, as .ci/run does")
    from playwright.sync_api import sync_playwright
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=_chromium(), args=CHROMIUM_ARGS, timeout=START * 1000)
        try:
            yield browser
        finally:
            browser.close()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _fresh_env(tmp: Path) -> dict:
    """A fresh HOME and Jupyter directories; outbound HTTP from the servers goes nowhere."""
    home = tmp / "home"
    env = {**os.environ, "HOME": str(home), "JUPYTER_CONFIG_DIR": str(home / ".jupyter"),
           "JUPYTER_DATA_DIR": str(home / ".local" / "share" / "jupyter"),
           "JUPYTER_RUNTIME_DIR": str(tmp / "runtime"), "IPYTHONDIR": str(home / ".ipython"),
           "MPLCONFIGDIR": str(home / ".matplotlib"), "JUPYTER_PLATFORM_DIRS": "1",
           "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
           "http_proxy": "http://127.0.0.1:9", "https_proxy": "http://127.0.0.1:9",
           "no_proxy": "127.0.0.1,localhost"}
    # No "get notified about Jupyter news?" prompt over the page: it would only ask to go online.
    settings = home / ".jupyter" / "lab" / "user-settings" / "@jupyterlab" / "apputils-extension"
    settings.mkdir(parents=True, exist_ok=True)
    (settings / "notification.jupyterlab-settings").write_text('{"fetchNews": "false"}')
    return env


@contextlib.contextmanager
def _server(command: list[str], port: int, env: dict, log: Path):
    """Start ``command`` in its own process group, wait until ``port`` is open, stop it on exit."""
    with open(log, "wb") as out:
        proc = subprocess.Popen(command, env=env, stdout=out, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, start_new_session=True)
    try:
        deadline = time.monotonic() + START
        while True:   # ready once the port accepts connections
            if proc.poll() is not None:
                pytest.fail(f"{command[2]} exited with {proc.returncode}:\n{log.read_text(errors='replace')[-3000:]}")
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=2):
                break
            if time.monotonic() > deadline:
                pytest.fail(f"port {port} did not open within {START} s:\n{log.read_text(errors='replace')[-3000:]}")
            time.sleep(0.5)
        yield
    finally:
        # The server and the kernels it started share its process group.
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=15)


def _local_only(page, blocked: list[str]) -> None:
    """Abort (and record) any request that would leave 127.0.0.1."""
    def route(r):
        host = r.request.url.split("/")[2].split(":")[0] if "://" in r.request.url else ""
        if r.request.url.startswith(("data:", "blob:")) or host == "127.0.0.1":
            r.continue_()
        else:
            blocked.append(r.request.url)
            r.abort()
    page.route("**/*", route)


@functools.cache
def _replay():
    from teachmem import load_scenario
    from teachmem.lab.replay import lesson_strategies, replay
    return replay(load_scenario("project_30"), lesson_strategies())


@functools.cache
def _chart(costs: bool = False):
    """Notebook 07's chart; with ``costs``, the `make app` page's, with its panel of what each strategy spent."""
    from teachmem import load_scenario
    from teachmem.app.comparison import cache_costs
    from teachmem.app.projector import ComparisonChart
    from teachmem.lab.replay import lesson_strategies
    spent = cache_costs(load_scenario("project_30"), lesson_strategies()) if costs else None
    return ComparisonChart(_replay(), costs=spent)


@functools.cache
def _chart_digest(turn: int, costs: bool = False) -> str:
    """What the chart of ``turn`` must be: the SHA-256 of the PNG that ``ComparisonChart`` draws for it."""
    return hashlib.sha256(_chart(costs).png(turn)).hexdigest()


def _page_text(markup: str) -> str:
    """The text a browser shows for a piece of HTML from the views (they put no blanks between tags)."""
    return html.unescape(re.sub(r"<[^>]+>", "", markup))


def _expected_table(turn: int) -> str:
    from teachmem.app.projector import comparison_html
    return _page_text(comparison_html(_replay(), turn))


# The bytes of the chart the page shows, hashed in the page: the Image widget's src is a blob: address.
SHOWN_CHART = """async (img) => {
    if (!img.src) return null;
    const bytes = await (await fetch(img.src)).arrayBuffer();
    const hash = await crypto.subtle.digest('SHA-256', bytes);
    return Array.from(new Uint8Array(hash), b => b.toString(16).padStart(2, '0')).join('');
}"""


def _comparison(page):
    """The comparison widget: the box with a turn slider and the chart."""
    box = page.locator(".widget-vbox").filter(has=page.locator(".widget-slider")) \
              .filter(has=page.locator("img.widget-image")).first
    box.wait_for(timeout=RUN * 1000)
    return box


def _shown(box) -> tuple[str, str, str | None]:
    """(the caption, the table, the chart's digest) the comparison shows now."""
    # text_content, not inner_text: JupyterLab skips laying out cells scrolled out of view,
    # and inner_text of an element that was never laid out is empty.
    html_parts = box.locator(".widget-html-content")
    return ((html_parts.nth(0).text_content() or "").strip(), (html_parts.nth(1).text_content() or "").strip(),
            box.locator("img.widget-image").first.evaluate(SHOWN_CHART))


def _set_slider(page, box, value: int) -> None:
    """Type ``value`` into the slider's readout, as a learner can."""
    readout = box.locator(".widget-readout").first
    readout.click()
    page.keyboard.press("Control+A")
    page.keyboard.type(str(value))
    page.keyboard.press("Enter")


def _wait_for_turn(box, turn: int, costs: bool = False) -> tuple[str, str, str | None]:
    """Wait until the caption, the table and the chart (``costs``: the page's, with its cost panel) all
    show ``turn`` as the replay says; return them."""
    want = (f"Turn {turn} of 30", _expected_table(turn), _chart_digest(turn, costs))
    deadline = time.monotonic() + WAIT
    while True:
        caption, table, digest = shown = _shown(box)
        if caption.startswith(want[0]) and table == want[1] and digest == want[2]:
            return shown
        if time.monotonic() > deadline:
            assert caption.startswith(want[0]), caption
            assert table == want[1]
            assert digest == want[2], f"the chart shown is not the chart of turn {turn}"
        time.sleep(0.2)


def _slide_and_check(page, box, name: str, start: int, target: int, costs: bool = False) -> None:
    """From ``start`` to ``target`` and back: the chart is redrawn, the table follows the replay."""
    _, table_before, chart_before = _wait_for_turn(box, start, costs)
    _set_slider(page, box, target)
    _, table_after, chart_after = _wait_for_turn(box, target, costs)
    assert chart_after != chart_before
    ARTIFACTS.mkdir(exist_ok=True)
    box.screenshot(path=str(ARTIFACTS / f"{name}_turn{target}.png"))
    if (start, target) == (16, 29):
        # The marks changed as the replay says: before turn 17 nothing could answer; at 29 some can.
        assert "✓" not in table_before and "✓" in table_after
    _set_slider(page, box, start)
    _wait_for_turn(box, start, costs)


def _site(tmp_path: Path) -> Path:
    """Copies of the notebooks to serve: running them must not rewrite the stored ones."""
    site = tmp_path / "site"
    for notebook in (NOTEBOOK, APP_PAGE):
        copy = site / notebook.relative_to(ROOT)
        copy.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(notebook, copy)
    return site


@contextlib.contextmanager
def _server_on(browser, tmp_path: Path, name: str, command):
    """Serve copies of the notebooks with ``command(site, port)``; yield ``new_page(viewport)``, the server's
    base URL, and the list of requests the pages tried to send beyond 127.0.0.1 (all aborted)."""
    site, port, blocked, pages = _site(tmp_path), _free_port(), [], []

    def new_page(viewport: dict):
        page = browser.new_page(viewport=viewport)
        pages.append(page)
        _local_only(page, blocked)
        page.set_default_timeout(RUN * 1000)
        return page

    with _server(command(site, port), port, _fresh_env(tmp_path), tmp_path / f"{name}.log"):
        try:
            yield new_page, f"http://127.0.0.1:{port}", blocked
        finally:
            for page in pages:
                page.close()


def _jupyterlab(site: Path, port: int) -> list[str]:
    return [sys.executable, "-m", "jupyterlab", "--no-browser", "--ServerApp.ip=127.0.0.1",
            f"--ServerApp.port={port}", "--ServerApp.port_retries=0", "--IdentityProvider.token=",
            "--ServerApp.password=", "--ServerApp.allow_root=True", f"--ServerApp.root_dir={site}",
            "--LabApp.expose_app_in_browser=True", "--LabApp.news_url=None",
            "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate", "--LabApp.extension_manager=readonly"]


def _voila(site: Path, port: int) -> list[str]:
    """What `make app` runs, on a free port, without opening a browser."""
    return [sys.executable, "-m", "voila", "--no-browser", "--Voila.ip=127.0.0.1", f"--port={port}", "--token=",
            "--show_tracebacks=True", f"--Voila.root_dir={site}", str(site / APP_PAGE.relative_to(ROOT))]


def test_jupyterlab_runs_notebook_07_and_the_chart_follows_the_slider(browser, tmp_path):
    with _server_on(browser, tmp_path, "jupyterlab", _jupyterlab) as (new_page, base, blocked):
        page = new_page({"width": 1400, "height": 1000})
        page.goto(f"{base}/lab/tree/notebooks/{NOTEBOOK.name}")
        page.wait_for_function("() => window.jupyterapp && window.jupyterapp.shell.currentWidget"
                               " && window.jupyterapp.shell.currentWidget.sessionContext")
        page.evaluate("""async () => {
            const app = window.jupyterapp, panel = app.shell.currentWidget;
            await panel.context.ready;
            await panel.sessionContext.ready;
            await app.commands.execute('notebook:clear-all-cell-outputs');
            await app.commands.execute('notebook:run-all-cells');
        }""")
        page.wait_for_function("""() => {
            const panel = window.jupyterapp.shell.currentWidget;
            const cells = panel.content.widgets.filter(c => c.model.type === 'code');
            return panel.sessionContext.session.kernel.status === 'idle'
                && cells.every(c => c.model.executionCount !== null);
        }""", polling=500)
        errors = page.locator(".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stderr']")
        assert not [e for e in errors.all_text_contents() if "Error" in e or "Traceback" in e]
        box = _comparison(page)
        box.scroll_into_view_if_needed()
        _slide_and_check(page, box, "jupyterlab", SLIDER_START, SLIDER_TARGET)
        page.screenshot(path=str(ARTIFACTS / "jupyterlab_page.png"), full_page=False)
        # On a 1280×720 projector, JupyterLab's bars around it, each widget fits under its own slider.
        page.set_viewport_size(SCREEN)
        extraction = page.locator(".widget-vbox").filter(has_text="The message of turn ").first
        for widget, what in ((box, "comparison"), (extraction, "extraction visualiser")):
            widget.scroll_into_view_if_needed()
            height = widget.evaluate("e => e.getBoundingClientRect().height")
            assert height <= JUPYTERLAB_ROOM, f"notebook 07's {what} is {height:.0f} px tall at 1280×720"
        page.screenshot(path=str(ARTIFACTS / "jupyterlab_1280x720.png"), full_page=False)
        assert not blocked, f"the page tried to leave 127.0.0.1: {blocked}"


# Every element of the page that scrolls sideways, or whose content is wider than it (and so is cut).
TOO_WIDE = """() => {
    const wide = [...document.querySelectorAll('body *')].filter(e => {
        const x = getComputedStyle(e).overflowX;
        return e.scrollWidth > e.clientWidth + 1 && e.clientWidth > 0
            && (x === 'auto' || x === 'scroll' || e.matches('.widget-html-content, .widget-html-content *'));
    });
    return [document.documentElement.scrollWidth > window.innerWidth ? ['the page'] : [],
            wide.map(e => e.tagName + '.' + e.className)].flat();
}"""


def _on_first_screen(page, locator, what: str) -> None:
    box = locator.bounding_box()
    assert box is not None, f"the {what} is not shown"
    assert box["x"] >= 0 and box["y"] >= 0, f"the {what} starts off the first screen: {box}"
    assert box["x"] + box["width"] <= SCREEN["width"] and box["y"] + box["height"] <= SCREEN["height"], \
        f"the {what} does not fit on the first {SCREEN['width']}×{SCREEN['height']} screen: {box}"


# The computed font size, in CSS pixels, of the smallest text an element shows (in it or in any element inside it).
SMALLEST_FONT = """e => Math.min(...[e, ...e.querySelectorAll('*')]
    .filter(x => [...x.childNodes].some(n => n.nodeType === Node.TEXT_NODE && n.textContent.trim()))
    .map(x => parseFloat(getComputedStyle(x).fontSize)))"""
READABLE_PX = 16      # 12 pt: what a projected screen needs


def _readable_on_a_projector(page, box) -> None:
    """The chart's smallest text, as shown, and every text of the caption and the table are at least 16 CSS px."""
    image = box.locator("img.widget-image").first
    scale = image.evaluate("i => i.getBoundingClientRect().width / i.naturalWidth")
    assert _chart(costs=True).smallest_text_px() * scale >= READABLE_PX, f"the chart is shown at {scale:.2f} of its size"
    for i, what in enumerate(("caption", "table")):
        size = box.locator(".widget-html-content").nth(i).evaluate(SMALLEST_FONT)
        assert size >= READABLE_PX, f"the {what}'s smallest text is {size} px"


def _extraction_marks(page, turn: int) -> None:
    """The extraction visualiser at ``turn`` shows what ``extraction_html`` says, its highlights included."""
    from teachmem import load_scenario
    from teachmem.lab.replay import extractions
    from teachmem.app.projector import extraction_html
    scenario = load_scenario("project_30")
    want = extraction_html(extractions(scenario), turn, scenario)
    view = page.locator(".widget-html-content").filter(has_text=f"The message of turn {turn} ").first
    view.wait_for(timeout=WAIT * 1000)
    assert (view.text_content() or "").strip() == _page_text(want)
    marks = [re.sub(r"\d+$", "", m) for m in view.locator("mark").all_text_contents()]
    assert marks == [_page_text(re.sub(r"<sup[^>]*>\d+</sup>", "", m)) for m in re.findall(r"<mark[^>]*>(.*?)</mark>", want)]
    assert "MySQL" in marks or turn != 17
    assert view.evaluate(SMALLEST_FONT) >= READABLE_PX


def test_make_app_page_projects_the_comparison_at_1280x720(browser, tmp_path):
    with _server_on(browser, tmp_path, "voila", _voila) as (new_page, base, blocked):
        page = new_page(SCREEN)
        page.goto(f"{base}/")
        box = _comparison(page)
        _wait_for_turn(box, 1, costs=True)
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "voila_first_screen.png"))
        _on_first_screen(page, page.locator("h1").first, "title")
        _on_first_screen(page, box.locator(".widget-slider").first, "turn slider")
        _on_first_screen(page, box.locator("img.widget-image").first, "chart")
        _on_first_screen(page, box.locator(".widget-html-content").nth(1).locator("p").first, "table's caption")
        _readable_on_a_projector(page, box)
        assert page.evaluate(TOO_WIDE) == [], "something is wider than the 1280-pixel screen"
        caption = box.locator(".widget-html-content").first
        assert caption.evaluate("e => getComputedStyle(e.firstElementChild).whiteSpace") == "normal"
        assert "monospace" not in caption.evaluate("e => getComputedStyle(e.firstElementChild).fontFamily")
        text = page.locator("body").inner_text()
        assert "NotImplementedError" not in text and "Exercise" not in text and "check_" not in text
        _slide_and_check(page, box, "voila", 1, 17, costs=True)
        _set_slider(page, box, 17)
        _wait_for_turn(box, 17, costs=True)
        _extraction_marks(page, 17)            # the message below followed the turn, untouched
        extraction = page.locator(".widget-vbox").filter(has_text="The message of turn ").first
        # Turn 29: the ids the learner sees are explained, and a write that took no words says so as information.
        _set_slider(page, extraction, 29)
        _extraction_marks(page, 29)
        _wait_for_turn(box, 29, costs=True)    # and the turn above followed the message
        said = page.locator(".widget-html-content").filter(has_text="The message of turn 29 ").first
        assert "m29 is message 29 of the conversation" in said.text_content()
        assert "s28 is the semantic store's memory number 28: it counts from s0" in said.text_content()
        info = said.locator("div", has_text="This write kept nothing new from this message").last
        assert info.evaluate("e => getComputedStyle(e).backgroundColor") == "rgb(232, 241, 248)"
        assert page.evaluate(TOO_WIDE) == []
        # Voilà's page template links Font Awesome from a CDN; the request is aborted above and the
        # page works without those icons. Anything else leaving 127.0.0.1 is a failure.
        assert not [u for u in blocked if "/@fortawesome/fontawesome-free@" not in u], blocked


def test_make_app_page_opens_at_the_turn_its_address_asks_for(browser, tmp_path):
    with _server_on(browser, tmp_path, "voila_turn", _voila) as (new_page, base, blocked):
        page = new_page(SCREEN)
        page.goto(f"{base}/?turn=17")
        _wait_for_turn(_comparison(page), 17, costs=True)
        _extraction_marks(page, 17)
        page.screenshot(path=str(ARTIFACTS / "voila_turn17_first_screen.png"))
