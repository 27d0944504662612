"""How long one step of the projector's turn slider takes, measured in a real browser.

Starts the Voilà page that `make app` serves (notebooks/app/compare_live.ipynb) on a free port, opens
it in Debian's chromium (driven by pip's playwright, never `playwright install`) at 1280×720, and
presses → on the turn slider STEPS times (turns 1 → 21 by default), then ← as many times. Each step is
timed inside the page, from the key press to the new chart decoded and ready to paint. Twice: on the
page as served (every turn's chart drawn in the background as soon as the page shows), and on a copy
of it that draws each chart only when its turn is first shown (so → measures the drawing, ← the
charts kept). Prints the median and the 95th percentile of each; the target is under 200 ms a step.
For comparison it also times the chart alone in this process. Not a test: a busy machine gives
slower figures (the load average is printed with them).

    .venv/bin/python benchmarks/bench_projector.py [STEPS]

Without playwright (requirements-test.txt) or chromium it says so and exits without measuring.
"""
from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "notebooks" / "app" / "compare_live.ipynb"
STEPS = int(sys.argv[1]) if len(sys.argv) > 1 else 20
TARGET_MS = 200

# Set up once: every key press records its time; ``arm`` waits for the chart's next picture.
SETUP = """() => { document.addEventListener('keydown', () => { window.pressedAt = performance.now(); }, true); }"""
ARM = """(img) => {
    const before = img.src;
    window.stepDone = new Promise(resolve => {
        const seen = new MutationObserver(() => {
            if (img.src === before) return;
            seen.disconnect();
            img.decode().then(() => resolve(performance.now() - window.pressedAt));
        });
        seen.observe(img, {attributes: true, attributeFilter: ['src']});
    });
}"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def voila(port: int, prerender: bool):
    """`make app`'s page (or its copy that draws on demand) on ``port``, with a fresh HOME and Jupyter
    directories; stopped on exit."""
    with tempfile.TemporaryDirectory() as tmp:
        page = Path(tmp) / PAGE.name
        text = PAGE.read_text()
        assert "prerender=True" in text
        page.write_text(text if prerender else text.replace("prerender=True", "prerender=False"))
        env = {**os.environ, "HOME": tmp, "JUPYTER_CONFIG_DIR": f"{tmp}/config", "JUPYTER_DATA_DIR": f"{tmp}/data",
               "JUPYTER_RUNTIME_DIR": f"{tmp}/runtime", "MPLCONFIGDIR": f"{tmp}/mpl", "JUPYTER_PLATFORM_DIRS": "1",
               "PYTHONPATH": f"{ROOT}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
        server = subprocess.Popen(
            [sys.executable, "-m", "voila", "--no-browser", "--Voila.ip=127.0.0.1", f"--port={port}", "--token=",
             "--Voila.port_retries=0", str(page)],
            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        try:
            deadline = time.monotonic() + 120
            while time.monotonic() < deadline:
                with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=1):
                    break
                time.sleep(0.5)
            yield f"http://127.0.0.1:{port}/"
        finally:
            os.killpg(server.pid, signal.SIGTERM)
            server.wait(timeout=30)


def steps(page, key: str, count: int) -> list[float]:
    image = page.locator("img.widget-image").first.element_handle()
    times = []
    for _ in range(count):
        page.evaluate(ARM, image)
        page.keyboard.press(key)
        times.append(page.evaluate("() => window.stepDone"))
    return times


def summary(name: str, times: list[float]) -> str:
    p95 = statistics.quantiles(times, n=20, method="inclusive")[-1]
    verdict = "under" if p95 < TARGET_MS else "OVER"
    return (f"{name:<34} median {statistics.median(times):6.1f} ms   p95 {p95:6.1f} ms   "
            f"({len(times)} steps; p95 {verdict} the {TARGET_MS} ms target)")


def chart_alone() -> list[float]:
    """Milliseconds to draw each turn's chart once, in this process: the kernel's share of a step."""
    sys.path.insert(0, str(ROOT))
    from teachmem import load_scenario
    from teachmem.lab.replay import lesson_strategies, replay
    from teachmem.app.projector import ComparisonChart
    chart = ComparisonChart(replay(load_scenario("project_30"), lesson_strategies()))
    times = []
    for turn in range(1, 31):
        start = time.perf_counter()
        chart.png(turn)
        times.append(1000 * (time.perf_counter() - start))
    return times


def main() -> None:
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        sys.exit(print("bench_projector: skipped, pip's playwright is not installed (requirements-test.txt)"))
    chromium = shutil.which("chromium") or "/usr/bin/chromium"
    if not os.access(chromium, os.X_OK):
        sys.exit(print("bench_projector: skipped, no chromium (on Debian or Ubuntu: sudo apt install chromium)"))
    print(f"The make app page in chromium at 1280×720, one step of the turn slider, key press to new chart "
          f"decoded ({os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at the start):")
    for prerender, name in ((True, "as served"), (False, "drawn on demand")):
        forward, back = measure(chromium, prerender)
        print(summary(f"{name}: → turns 1..{STEPS + 1}", forward))
        print(summary(f"{name}: ← back to turn 1", back))
    print(summary("the chart alone, in Python (30 turns)", chart_alone()))
    print(f"load average at the end: {os.getloadavg()[0]:.1f}")


def measure(chromium: str, prerender: bool) -> tuple[list[float], list[float]]:
    """(→ steps, ← steps) in milliseconds, on a fresh server and page."""
    from playwright.sync_api import sync_playwright
    with voila(free_port(), prerender) as url, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=["--headless", "--no-sandbox", "--disable-gpu"])
        page = browser.new_page(viewport={"width": 1280, "height": 720})
        page.route("**/*", lambda r: r.continue_() if r.request.url.startswith(("data:", "blob:", url))
                   else r.abort())
        page.set_default_timeout(180_000)
        page.goto(url)
        page.locator("img.widget-image").first.wait_for()
        if prerender:
            time.sleep(10)      # as a class would look at the first turn for a moment
        page.evaluate(SETUP)
        page.locator(".widget-slider .noUi-handle").first.focus()
        forward = steps(page, "ArrowRight", STEPS)
        back = steps(page, "ArrowLeft", STEPS)
        # The caption follows the chart (it is sent just after): every step must have landed on turn 1.
        page.wait_for_function("() => document.querySelector('.widget-html-content').textContent"
                               ".startsWith('Turn 1 of 30')", timeout=30_000)
        browser.close()
    return forward, back


if __name__ == "__main__":
    main()
