"""Notebook 07 in a real browser: JupyterLab, and the Voilà page that `make app` serves.

Drives Debian's ``chromium`` with pip's ``playwright`` (never ``playwright
install``). Each test starts its own server on 127.0.0.1 with a fresh HOME
and Jupyter directories under ``tmp_path``, moves the turn slider of the
comparison to 29 and back, and checks that the text shown is what
``comparison_view`` says for that turn of the replay. Screenshots go to
``test-artifacts/``.

With ``CI`` set (as ``.ci/run`` does) the test is required and fails when the
browser is missing; elsewhere it is skipped, and the skip reason (printed in the
closing summary: pyproject.toml adds pytest's ``-rs``) says what is missing and how
to enable it.
Every wait is bounded and every server is stopped, whatever happens.
"""
from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOK = ROOT / "notebooks" / "07_compare_strategies.ipynb"
ARTIFACTS = ROOT / "test-artifacts"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]
REQUIRED = os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")
START, WAIT, RUN = 90, 30, 120   # seconds: a server to answer, a widget to update, the notebook to run
SLIDER_START, SLIDER_TARGET = 16, 29   # the comparison slider's value in notebook 07, and where we move it


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


def _expected(turn: int) -> str:
    from teachmem import load_scenario
    from teachmem.lab.replay import comparison_strategies, replay
    from teachmem.lessons.compare import comparison_view
    return comparison_view(replay(load_scenario("project_30"), comparison_strategies()), turn)


def _comparison(page):
    """The comparison widget: the box whose output shows what each strategy would send."""
    box = page.locator(".widget-vbox").filter(has=page.locator(".widget-slider")) \
              .filter(has_text=" would send ").first
    box.wait_for(timeout=RUN * 1000)
    box.scroll_into_view_if_needed()
    return box


def _shown(box) -> str:
    # text_content, not inner_text: JupyterLab skips laying out cells scrolled out of view,
    # and inner_text of an element that was never laid out is empty.
    return (box.locator(".widget-output").text_content() or "").strip()


def _set_slider(page, box, value: int) -> None:
    """Type ``value`` into the slider's readout, as a learner can, and wait for the text to follow."""
    readout = box.locator(".widget-readout").first
    readout.click()
    page.keyboard.press("Control+A")
    page.keyboard.type(str(value))
    page.keyboard.press("Enter")


def _wait_for_text(box, want: str) -> None:
    deadline = time.monotonic() + WAIT
    while _shown(box) != want.strip():
        if time.monotonic() > deadline:
            assert _shown(box) == want.strip()   # shows the difference
        time.sleep(0.2)


def _slide_and_check(page, name: str) -> None:
    box = _comparison(page)
    start, target = _expected(SLIDER_START), _expected(SLIDER_TARGET)
    assert start != target
    _wait_for_text(box, start)
    _set_slider(page, box, SLIDER_TARGET)
    _wait_for_text(box, target)
    ARTIFACTS.mkdir(exist_ok=True)
    box.screenshot(path=str(ARTIFACTS / f"{name}_turn{SLIDER_TARGET}.png"))
    # The marks changed as the replay says: before turn 17 nothing could answer; at 29 some can.
    assert "✓" not in start.split("\n\n")[1] and "✓" in target.split("\n\n")[1]
    _set_slider(page, box, SLIDER_START)
    _wait_for_text(box, start)
    page.screenshot(path=str(ARTIFACTS / f"{name}_page.png"), full_page=False)


def _site(tmp_path: Path) -> Path:
    """A copy of the notebook to serve: running it must not rewrite the stored one."""
    site = tmp_path / "site" / "notebooks"
    site.mkdir(parents=True)
    shutil.copy(NOTEBOOK, site / NOTEBOOK.name)
    return site.parent


@contextlib.contextmanager
def _page_on(browser, tmp_path: Path, name: str, command):
    """Serve a copy of notebook 07 with ``command(site, port)``; yield a fresh page, the server's
    base URL, and the list of requests the page tried to send beyond 127.0.0.1 (all aborted)."""
    site, port = _site(tmp_path), _free_port()
    with _server(command(site, port), port, _fresh_env(tmp_path), tmp_path / f"{name}.log"):
        page, blocked = browser.new_page(viewport={"width": 1400, "height": 1000}), []
        _local_only(page, blocked)
        page.set_default_timeout(RUN * 1000)
        try:
            yield page, f"http://127.0.0.1:{port}", blocked
        finally:
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
            f"--Voila.root_dir={site}", str(site / "notebooks" / NOTEBOOK.name)]


def test_jupyterlab_runs_notebook_07_and_the_slider_follows_the_replay(browser, tmp_path):
    with _page_on(browser, tmp_path, "jupyterlab", _jupyterlab) as (page, base, blocked):
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
        _slide_and_check(page, "jupyterlab")
        assert not blocked, f"the page tried to leave 127.0.0.1: {blocked}"


def test_voila_page_of_make_app_follows_the_replay(browser, tmp_path):
    with _page_on(browser, tmp_path, "voila", _voila) as (page, base, blocked):
        page.goto(f"{base}/")
        _slide_and_check(page, "voila")
        # Voilà's page template links Font Awesome from a CDN; the request is aborted above and the
        # page works without those icons. Anything else leaving 127.0.0.1 is a failure.
        assert not [u for u in blocked if "/@fortawesome/fontawesome-free@" not in u], blocked
