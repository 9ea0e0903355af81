"""Launching headless Chromium through Selenium, locally or on a Selenium Grid.

Selenium Manager must never run (it would try the network), so the driver and browser
binaries are always given explicitly. A throwaway profile directory is removed on quit.

A process killed with -9 quits nothing: its chromedriver and Chromium (about 1 GB a
browser) would run on forever, its profile folder stay. So each profile folder is named
after the process that owns it (pid and start time, as pids are reused) and holds the
driver's pid; the first launch of every later webwise process sweeps the folders whose
owner is gone, killing what runs in them. A parent-death signal would act at once, but
Linux sends it when the *thread* that started the driver ends, and a library user's
thread may end long before its session does.
"""

from __future__ import annotations

import itertools
import os
import re
import shutil
import signal
import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path

import urllib3
from selenium import webdriver
from selenium.common.exceptions import WebDriverException
from selenium.webdriver.chrome.service import Service

from webwise.errors import ConfigError

CHROMIUM = os.environ.get("WEBWISE_CHROMIUM") or "/usr/bin/chromium"  # empty is unset, as for WEBWISE_LLM_*
CHROMEDRIVER = os.environ.get("WEBWISE_CHROMEDRIVER") or "/usr/bin/chromedriver"

_FLAGS = (
    "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--no-first-run", "--disable-extensions", "--window-size=800,600", "--force-device-scale-factor=1",
)


def chrome_options(profile_dir: str | None) -> webdriver.ChromeOptions:
    """The flags measured to work headless as root on these machines."""
    options = webdriver.ChromeOptions()
    for flag in _FLAGS:
        options.add_argument(flag)
    if profile_dir:
        options.add_argument(f"--user-data-dir={profile_dir}")
    options.binary_location = CHROMIUM
    return options


@dataclass
class Browser:
    """A WebDriver session plus what must be cleaned up with it."""

    driver: webdriver.Remote
    profile_dir: str | None = None
    closed: bool = field(default=False, init=False)

    def quit(self) -> None:
        """End the session and remove the profile; safe to call twice or on a dead browser."""
        if self.closed:
            return
        self.closed = True
        try:
            self.driver.quit()
        except Exception:  # a dead driver cannot be asked politely: stop its process instead
            service = getattr(self.driver, "service", None)
            if service is not None:
                service.stop()
        if self.profile_dir:
            shutil.rmtree(self.profile_dir, ignore_errors=True)


PROFILE_PREFIX = "webwise-chrome-"
#: In a profile folder: the pid of the chromedriver that drives the browser using it.
DRIVER_PID = "webwise-driver.pid"
_PROFILE = re.compile(re.escape(PROFILE_PREFIX) + r"(\d+)\.(\d+)-")
_swept = threading.Lock()
_swept_once: list[bool] = []


def _start_time(pid: int) -> str | None:
    """When ``pid`` started (clock ticks since boot), None if there is no such process."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return stat.rsplit(")", 1)[1].split()[19]


def _owner() -> str:
    return f"{os.getpid()}.{_start_time(os.getpid())}"


def _processes() -> dict[int, tuple[int, bytes]]:
    """Every process: pid -> (parent pid, command line)."""
    table = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
                table[int(entry.name)] = (ppid, (entry / "cmdline").read_bytes())
            except (OSError, ValueError, IndexError):
                continue
    return table


def _tree(roots: set[int], table: dict[int, tuple[int, bytes]]) -> set[int]:
    """``roots`` and all their descendants."""
    found, frontier = set(roots), set(roots)
    while frontier:
        frontier = {pid for pid, (ppid, _) in table.items() if ppid in frontier} - found
        found |= frontier
    return found


def sweep_orphans() -> int:
    """Kill the drivers and browsers of webwise processes that died without quitting them, and
    remove their profile folders; returns how many folders went. Runs once per process."""
    with _swept:
        if _swept_once:
            return 0
        _swept_once.append(True)
        orphans = []
        for folder in Path(tempfile.gettempdir()).glob(PROFILE_PREFIX + "*"):
            match = _PROFILE.match(folder.name)
            if match and _start_time(int(match[1])) != match[2] and folder.is_dir():
                orphans.append(folder)
        if not orphans:
            return 0
        table = _processes()
        for folder in orphans:
            roots = {pid for pid, (_, cmd) in table.items() if f"--user-data-dir={folder}".encode() in cmd}
            try:
                driver = int((folder / DRIVER_PID).read_text())
                if b"chromedriver" in table.get(driver, (0, b""))[1]:
                    roots.add(driver)
            except (OSError, ValueError):
                pass
            for pid in _tree(roots, table):
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
            shutil.rmtree(folder, ignore_errors=True)
        return len(orphans)


def driver_said(exc: WebDriverException) -> str:
    """What the driver (or a Grid) said, on one line: the first line and the ``from ...`` lines
    chromedriver chains the cause with (``session not created`` / ``from unknown error: no
    chrome binary at ...``). The rest is a stack trace or the Grid's build and host info, which
    a one-line error, a step's error or an episode record must not carry."""
    first, *rest = (exc.msg or "").strip().split("\n")
    said = " ".join([first, *itertools.takewhile(lambda line: line.startswith("from "), rest)]).strip()
    return said or type(exc).__name__


def check_installed() -> None:
    """A one-line :class:`ConfigError` when the browser or its driver is not where webwise runs them."""
    for path in (CHROMIUM, CHROMEDRIVER):
        if not os.path.exists(path):
            raise ConfigError(f"{path} not found: install Debian's chromium and chromium-driver (see README)")


def launch(remote_url: str | None = None) -> Browser:
    """Start headless Chromium here, or a session on the Grid at ``remote_url``."""
    if remote_url:
        try:
            driver = webdriver.Remote(command_executor=remote_url, options=chrome_options(None))
        except WebDriverException as exc:
            raise ConfigError(f"cannot start a browser on the Grid at {remote_url}: {driver_said(exc)}") from None
        except (urllib3.exceptions.HTTPError, ValueError) as exc:  # nothing there, or no URL
            raise ConfigError(f"cannot reach the Grid at {remote_url}: {type(exc).__name__}") from None
        return Browser(driver)
    check_installed()
    sweep_orphans()
    profile = tempfile.mkdtemp(prefix=f"{PROFILE_PREFIX}{_owner()}-")
    try:
        driver = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=chrome_options(profile))
    except WebDriverException as exc:
        shutil.rmtree(profile, ignore_errors=True)
        raise ConfigError(f"cannot start Chromium: {driver_said(exc)}") from None
    process = getattr(driver.service, "process", None)
    if process is not None:
        Path(profile, DRIVER_PID).write_text(str(process.pid))
    return Browser(driver, profile_dir=profile)
