"""A real browser against the real app: `resultsqa ui` on loopback, Debian's Chromium via Playwright.

Streamlit renders over a websocket, so only a browser shows what a user sees: the streamed
answer, the Altair chart drawn, the expander opening. Screenshots go to test-artifacts/
(gitignored) for a human to look at. Gold values are from ../shared/data/mlperf/README.md
("Five facts recomputed from the verified table"), not from our code.

Playwright never downloads a browser here (`make chromium` installs Debian's).
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from pathlib import Path

import pytest
from eval.procs import free_port

pytestmark = pytest.mark.slow

PROJECT = Path(__file__).resolve().parents[2]
ARTIFACTS = PROJECT / "test-artifacts"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
ANSWER_TIMEOUT_MS = 180_000  # first question loads the engine (table, catalog, embedder) in the app process



def _wait_healthy(url: str, proc: subprocess.Popen, log: Path, seconds: float = 90) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise AssertionError(f"`resultsqa ui` exited with {proc.returncode}:\n{log.read_text()[-3000:]}")
        try:
            with urllib.request.urlopen(url + "/_stcore/health", timeout=2) as r:
                if r.status == 200:
                    return
        except OSError:
            time.sleep(0.5)
    raise AssertionError(f"the app did not become healthy in {seconds} s:\n{log.read_text()[-3000:]}")


@pytest.fixture(scope="module")
def ui_url(store_settings, tmp_path_factory):
    """`resultsqa ui` against the store built from the default data, on a free loopback port."""
    from ui.cli import settings_env

    if not Path(CHROMIUM).is_file():
        pytest.fail(f"{CHROMIUM} is missing: run `make chromium` (apt-get install -y chromium)")
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("RESULTSQA_")}
    env.update(settings_env(store_settings))
    env["HOME"] = str(tmp_path_factory.mktemp("ui-home"))  # no developer config, no Streamlit credentials prompt
    log = tmp_path_factory.mktemp("ui-log") / "streamlit.log"
    with log.open("w") as out:
        proc = subprocess.Popen([sys.executable, "-m", "assistant.cli", "ui", "--ui-port", str(port)],
                                cwd=PROJECT, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    try:
        _wait_healthy(url, proc, log)
        yield url
    finally:
        os.killpg(proc.pid, signal.SIGTERM)  # the ui command and the streamlit process it started
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


@pytest.fixture
def page(tmp_path):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        context = p.chromium.launch_persistent_context(
            str(tmp_path / "chromium-profile"), executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS,
            viewport={"width": 1280, "height": 2400})  # tall: Streamlit scrolls inside the page, not the page
        try:
            yield context.new_page()
        finally:
            context.close()


def _assistant_message(page):
    return page.locator('[data-testid="stChatMessage"]').filter(
        has=page.locator('[data-testid="stChatMessageAvatarAssistant"]')).last


def test_ranking_question_streams_an_answer_with_chart_and_details(ui_url, page):
    ARTIFACTS.mkdir(exist_ok=True)
    page.goto(ui_url)
    box = page.locator('[data-testid="stChatInputTextArea"]')
    box.wait_for(timeout=60_000)
    page.get_by_text("Try one of these").wait_for(timeout=30_000)
    box.fill("Which system had the best Llama 2 70B Offline result in v6.1?")
    box.press("Enter")

    answer = _assistant_message(page)
    chart = answer.locator('[data-testid="stVegaLiteChart"]')
    chart.wait_for(state="visible", timeout=ANSWER_TIMEOUT_MS)  # drawn after the stream ends
    text = answer.inner_text()
    assert "1,136,100" in text and "CoreWeave" in text  # README fact 3
    assert "v6.1-csvrow-0104" in text  # the cited row
    assert chart.locator("canvas, svg").first.is_visible()

    answer.get_by_text("How this was computed").click()
    code = answer.locator('[data-testid="stCode"]').last
    code.wait_for(state="visible", timeout=10_000)
    assert "df" in code.inner_text()
    answer.locator('[data-testid="stDataFrame"]').wait_for(state="visible", timeout=10_000)
    page.wait_for_timeout(800)  # let the chart's transition finish before the picture
    page.screenshot(path=str(ARTIFACTS / "ui-ranking.png"), full_page=True)


def test_embed_permalink_answers_without_sidebar(ui_url, page):
    ARTIFACTS.mkdir(exist_ok=True)
    question = "How many submitters were there in v6.1?"
    page.goto(f"{ui_url}/?embed=true&{urllib.parse.urlencode({'q': question})}")
    answer = _assistant_message(page)
    answer.get_by_text("How this was computed").wait_for(timeout=ANSWER_TIMEOUT_MS)  # drawn once answered
    assert re.search(r"\b33\b", answer.inner_text())  # README fact 2: 33 distinct submitters
    assert page.locator('[data-testid="stSidebar"]').count() == 0 or \
        not page.locator('[data-testid="stSidebar"]').is_visible()
    page.locator('[data-testid="stChatInputTextArea"]').wait_for(state="visible", timeout=10_000)
    page.screenshot(path=str(ARTIFACTS / "ui-embed.png"), full_page=True)
