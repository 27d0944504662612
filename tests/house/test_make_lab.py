"""``make lab`` prints an address that opens notebook 00, not the Launcher (issue 25).

The test runs the Makefile's own lab recipe, with the venv this test runs in and a free port, reads
the address JupyterLab prints, asks the server for that page, and stops the server.
"""
from __future__ import annotations

import os
import re
import selectors
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOK_00 = "/lab/tree/notebooks/00_start_here.ipynb"
ADDRESS = re.compile(r"(http://(?:localhost|127\.0\.0\.1):\d+/\S*)")
STARTUP_SECONDS = 90


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _printed_address(server: subprocess.Popen, deadline: float) -> str:
    """The first address the server prints, read from its output until ``deadline``."""
    assert server.stdout is not None
    watch = selectors.DefaultSelector()
    watch.register(server.stdout, selectors.EVENT_READ)
    seen = []
    while time.monotonic() < deadline and server.poll() is None:
        if not watch.select(timeout=1):
            continue
        line = server.stdout.readline()
        seen.append(line)
        found = ADDRESS.search(line)
        if found:
            return found.group(1)
    raise AssertionError("make lab printed no address in time:\n" + "".join(seen[-20:]))


def _status(address: str, deadline: float) -> int:
    """The HTTP status of ``address``, asked until the server answers or ``deadline`` passes."""
    while True:
        try:
            with urllib.request.urlopen(address, timeout=10) as page:
                return page.status
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.5)


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_make_lab_prints_an_address_that_opens_notebook_00():
    port = _free_port()
    venv_bin = Path(sys.executable).parent
    # -o .venv/.installed: treat the install stamp as made (this test runs in a venv already);
    # BROWSER=true: the browser JupyterLab opens is the shell's `true`, which does nothing.
    command = ["make", "--no-print-directory", "-o", ".venv/.installed", "lab", f"PORT={port}", f"BIN={venv_bin}"]
    server = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                              env={**os.environ, "BROWSER": "true"}, start_new_session=True)
    try:
        address = _printed_address(server, time.monotonic() + STARTUP_SECONDS)
        assert f":{port}{NOTEBOOK_00}?token=" in address, f"make lab prints {address}"
        assert _status(address, time.monotonic() + STARTUP_SECONDS) == 200
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait()
