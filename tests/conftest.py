"""Shared fixtures: one real headless Chromium for the browser tests of a module."""

from __future__ import annotations

from typing import Iterator

import pytest

from webwise.environment import MiniWoBEnv


@pytest.fixture(scope="module")
def env() -> Iterator[MiniWoBEnv]:
    environment = MiniWoBEnv()
    yield environment
    environment.close()
