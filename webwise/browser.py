"""Launching headless Chromium through Selenium, locally or on a Selenium Grid.

Selenium Manager must never run (it would try the network), so the driver and browser
binaries are always given explicitly. A throwaway profile directory is removed on quit.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from dataclasses import dataclass, field

from selenium import webdriver
from selenium.common.exceptions import WebDriverException
from selenium.webdriver.chrome.service import Service

from webwise.errors import ConfigError

CHROMIUM = os.environ.get("WEBWISE_CHROMIUM", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("WEBWISE_CHROMEDRIVER", "/usr/bin/chromedriver")

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


def launch(remote_url: str | None = None) -> Browser:
    """Start headless Chromium here, or a session on the Grid at ``remote_url``."""
    if remote_url:
        try:
            driver = webdriver.Remote(command_executor=remote_url, options=chrome_options(None))
        except WebDriverException as exc:
            raise ConfigError(f"cannot start a browser on the Grid at {remote_url}: {exc.msg}") from None
        return Browser(driver)
    for path in (CHROMIUM, CHROMEDRIVER):
        if not os.path.exists(path):
            raise ConfigError(f"{path} not found: install Debian's chromium and chromium-driver (see README)")
    profile = tempfile.mkdtemp(prefix="webwise-chrome-")
    try:
        driver = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=chrome_options(profile))
    except WebDriverException as exc:
        shutil.rmtree(profile, ignore_errors=True)
        raise ConfigError(f"cannot start Chromium: {exc.msg}") from None
    return Browser(driver, profile_dir=profile)
