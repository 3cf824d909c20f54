"""What the Chromium tests share: one headless browser a module (test_browser.py and test_browser_reviews.py)."""
from __future__ import annotations

import pytest

from tests.e2e.test_browser import ARGS, CHROMIUM


@pytest.fixture(scope="module")
def browser():
    if not CHROMIUM.exists():
        pytest.skip("/usr/bin/chromium is missing: scripts/system-deps.sh test installs it")
    sync_api = pytest.importorskip("playwright.sync_api", reason="the playwright package is a dev dependency")
    with sync_api.sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        yield chromium
        chromium.close()
