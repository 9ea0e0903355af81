"""What a run on a Selenium Grid does when the Grid is wrong, full, or loses a browser."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Iterator

import pytest

from webwise.bench import read_results
from webwise.cli import main
from webwise.environment import MiniWoBEnv, html_root
from webwise.errors import ConfigError, WebwiseError
from webwise.grid import Grid, browsers, free_port
from webwise.pages import PageServer

pytestmark = [pytest.mark.grid, pytest.mark.skipif(shutil.which("java") is None, reason="needs Java 17")]

CLICK_TEST = "```python\nclick('button', 'Click Me!')\n```"
#: Six seconds in the program with the browser idle (the sandbox allows ten): time to pull the
#: session from under it.
SLOW_CLICK_TEST = "```python\nwait(3)\nwait(3)\nclick('button', 'Click Me!')\n```"


@pytest.fixture(scope="module")
def grid() -> Iterator[Grid]:
    """One Grid of one browser for the tests that need a live one (each start costs ~10 s)."""
    with Grid(max_sessions=1) as running:
        yield running


def _sessions(url: str) -> list[str]:
    with urllib.request.urlopen(f"{url}/status", timeout=5) as response:
        nodes = json.load(response)["value"]["nodes"]
    return [slot["session"]["sessionId"] for node in nodes for slot in node["slots"] if slot["session"]]


def _end_session_after(url: str, delay: float) -> threading.Thread:
    """End the first session the Grid starts, ``delay`` s after it starts, as the Grid's session
    timeout or a restarted node does: the client's next command finds no such session."""
    def end() -> None:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not _sessions(url):
            time.sleep(0.1)
        time.sleep(delay)  # the slot says "reserved" while the session starts: its id comes after
        while True:  # on a loaded machine the session may still be starting: a 404 until it has
            try:
                session = _sessions(url)[0]
                urllib.request.urlopen(urllib.request.Request(f"{url}/session/{session}", method="DELETE"),
                                       timeout=10)
                return
            except urllib.error.HTTPError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.2)

    thread = threading.Thread(target=end, daemon=True)
    thread.start()
    return thread


def test_a_grid_runs_as_many_browsers_as_it_was_given(grid: Grid) -> None:
    # The standalone added Edge, Firefox and plain Chrome slots and one session per CPU.
    assert browsers(grid.url) == 1
    assert browsers(grid.url + "/") == browsers(grid.url + "/wd/hub") == 1


@pytest.mark.parametrize("url", ["not a url", "ftp://grid:4444", "127.0.0.1:4444", "http://", "closed port",
                                 "a web server that is no Grid", "http://a b/", "http://127.0.0.1:9/\nx"])
def test_a_url_that_is_no_grid_is_one_line(url: str) -> None:
    pages = PageServer(html_root())
    try:
        url = {"closed port": f"http://127.0.0.1:{free_port()}", "a web server that is no Grid": pages.base_url}.get(url, url)
        with pytest.raises(ConfigError) as caught:
            browsers(url, timeout=5)
    finally:
        pages.close()
    assert "\n" not in str(caught.value) and (url in str(caught.value) or repr(url) in str(caught.value))


def test_a_grid_is_not_started_on_a_taken_port() -> None:
    # An old Grid on the port answered /status, and the new one (which could not bind) read as ready.
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        with pytest.raises(ConfigError, match="cannot start a Grid on port"):
            Grid(port=taken.getsockname()[1])


def test_sigterm_stops_the_grid_start_started() -> None:
    # The Grid runs in a session of its own: a kill of `start` alone left java on the port.
    port = free_port()
    start = subprocess.Popen([sys.executable, "-m", "webwise.grid", "start", "--port", str(port), "--max-sessions", "1"],
                             stderr=subprocess.PIPE, text=True)
    try:
        assert start.stderr is not None
        assert "Grid ready" in start.stderr.readline()
        start.send_signal(signal.SIGTERM)
        assert start.wait(timeout=30) == 0
        with socket.socket() as probe:
            assert probe.connect_ex(("127.0.0.1", port)) != 0, "the Grid still listens"
    finally:
        if start.poll() is None:
            os.killpg(os.getpgid(start.pid), signal.SIGKILL)


@pytest.mark.parametrize("host", ["0.0.0.0", "::1"])
def test_the_pages_url_is_one_a_node_can_load(host: str) -> None:
    if host == "::1" and not socket.has_ipv6:
        pytest.skip("no IPv6")
    pages = PageServer(html_root(), host=host)
    try:
        assert "0.0.0.0" not in pages.base_url  # a remote node would load it from itself
        with urllib.request.urlopen(pages.base_url + "/", timeout=5) as response:
            assert response.status == 200
    finally:
        pages.close()


def test_a_wrong_grid_url_creates_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    replay = tmp_path / "replies.json"
    replay.write_text(json.dumps({"click-test": [CLICK_TEST]}))
    out = tmp_path / "out"
    status = main(["bench", "--tasks", "click-test", "--seeds", "1", "--examples", "none", "--llm", f"replay:{replay}",
                   "--remote", f"http://127.0.0.1:{free_port()}", "--out", str(out)])
    err = capsys.readouterr().err
    assert status == 2 and "cannot reach the Grid" in err and len(err.strip().splitlines()) == 1
    assert not out.exists()


@pytest.mark.timeout(120)  # without the fix the worker hung for minutes in its next driver.get
def test_a_session_the_grid_ended_mid_episode_is_replaced(grid: Grid, tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    replay = tmp_path / "replies.json"
    replay.write_text(json.dumps({"click-test": [SLOW_CLICK_TEST]}))
    out = tmp_path / "out"
    ender = _end_session_after(grid.url, 2)
    status = main(["bench", "--tasks", "click-test", "--seeds", "2", "--examples", "none", "--llm", f"replay:{replay}",
                   "--remote", grid.url, "--out", str(out)])
    ender.join(timeout=30)
    records = read_results(out / "results.jsonl")
    # The episode whose browser went is run again on a new one; the next gets a live browser too.
    assert [(r["seed"], r["success"], r["error"]) for r in records] == [(0, True, None), (1, True, None)]
    assert status == 0, capsys.readouterr().err


def test_workers_beyond_the_grids_slots_are_not_started(grid: Grid, tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    """A worker waiting in the Grid's queue failed the whole run once the Grid's session-request
    timeout passed, every episode finished or not."""
    replay = tmp_path / "replies.json"
    replay.write_text(json.dumps({"click-test": [CLICK_TEST]}))
    status = main(["bench", "--tasks", "click-test", "--seeds", "2", "--examples", "none", "--llm", f"replay:{replay}",
                   "--remote", grid.url, "--workers", "2", "--out", str(tmp_path / "out")])
    err = capsys.readouterr().err
    assert status == 0, err
    assert f"on 1 worker(s) (the Grid at {grid.url} runs 1 at once)" in err.splitlines()[0]


def test_pages_a_node_cannot_load_are_named_with_where_to_look(grid: Grid) -> None:
    """The page server gone (as when the nodes cannot reach --page-host): the error says where the
    pages were looked for and what to check, not only that the page did not load."""
    pages = PageServer(html_root())
    base = pages.base_url
    pages.close()
    env = MiniWoBEnv(remote_url=grid.url, pages=pages)
    try:
        with pytest.raises(WebwiseError, match=rf"^page of task click-test did not load from {base} "
                                               r"\(can the Grid's nodes reach --page-host\?\): .*ERR_CONNECTION_REFUSED"):
            env.reset("click-test", 0)
    finally:
        env.close()
