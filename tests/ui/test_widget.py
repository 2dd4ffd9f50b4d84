"""The JS widget in a real browser: the example page from a local static server (another
origin, so CORS is exercised for real) talks to the API over loopback and shows a cited answer.

Debian's Chromium via Playwright (`make chromium`; never `playwright install`).
"""

from __future__ import annotations

import functools
import http.server
import threading
from pathlib import Path

import pytest

from ingest import settings as settings_mod
from tests.ui.test_api import LiveServer, free_port
from ui.api import WIDGET_DIR, create_app

pytestmark = pytest.mark.slow

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
QUESTION = "Which system had the best Llama 2 70B Offline result in v6.1?"
TIMEOUT_MS = 120_000


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):  # keep pytest output clean
        pass


@pytest.fixture(scope="module")
def static_origin():
    port = free_port()
    handler = functools.partial(_Quiet, directory=str(WIDGET_DIR))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", port), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{port}"
    server.shutdown()


@pytest.fixture(scope="module")
def api(store_settings, static_origin):
    settings = settings_mod.Settings({**store_settings, "cors_origins": static_origin, "rate_limit_per_min": 0})
    with LiveServer(create_app(settings)) as live:
        yield live


@pytest.fixture(scope="module")
def browser():
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: run `make chromium`")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:  # launch() uses a fresh temporary profile
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


def _ask(page, question: str, n: int):
    page.locator("[data-resultsqa] input").fill(question)
    page.locator("[data-resultsqa] button").click()
    answer = page.locator("[data-resultsqa] .a").nth(n)
    answer.and_(page.locator("[data-resultsqa] .a[data-status]")).wait_for(timeout=TIMEOUT_MS)
    return answer


def test_widget_on_another_origin_gets_a_cited_answer(browser, api, static_origin, store_settings):
    from assistant.service import ask

    page = browser.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(f"{static_origin}/example.html?api={api.url}")
    answer = _ask(page, QUESTION, 0)
    direct = ask(QUESTION, settings=store_settings)
    assert answer.get_attribute("data-status") == "answered"
    assert answer.inner_text().strip() == direct.answer.strip()
    links = page.locator("[data-resultsqa] .sources a")
    assert links.count() > 0
    cited = {links.nth(i).get_attribute("data-citation") for i in range(links.count())}
    assert cited <= {c.id for c in direct.citations}
    assert all(links.nth(i).get_attribute("href").startswith("http") for i in range(links.count()))
    # a follow-up in the same widget reuses the conversation
    follow = _ask(page, "and in v6.0?", 1)
    assert follow.get_attribute("data-status") in {"answered", "no_data"}
    assert errors == []
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "widget.png"), full_page=True)  # for a human to look at
    page.close()


def test_widget_shows_markup_in_questions_as_text(browser, api, static_origin):
    page = browser.new_page()
    page.goto(f"{static_origin}/example.html?api={api.url}")
    hostile = '<img src=x onerror="document.title=\'pwned\'"> best ResNet-50 Offline in v6.1?'
    _ask(page, hostile, 0)
    assert page.locator("[data-resultsqa] .q").first.inner_text() == hostile
    assert page.locator("[data-resultsqa] img").count() == 0
    assert page.title() != "pwned"
    page.close()


def test_widget_served_by_the_api_itself_needs_no_cors(browser, store_settings):
    with LiveServer(create_app(settings_mod.Settings({**store_settings, "rate_limit_per_min": 0}))) as live:
        page = browser.new_page()
        page.goto(f"{live.url}/widget/example.html")
        answer = _ask(page, QUESTION, 0)
        assert answer.get_attribute("data-status") == "answered"
        page.close()
