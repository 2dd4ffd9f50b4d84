"""`resultsqa ask … | head -1`: a reader that goes away early ends the command quietly, as Unix tools do."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from ingest.pipeline import run_ingest
from tests.ingest.test_pipeline import mirror_settings

PROJECT = Path(__file__).resolve().parents[2]
QUESTION = "Which system had the best Llama 2 70B Offline result in v6.1?"


@pytest.fixture(scope="module")
def ask_command(tmp_path_factory) -> list[str]:
    """`resultsqa ask` (as the installed script runs it) against a small store built here."""
    settings = mirror_settings(tmp_path_factory.mktemp("pipe"))
    run_ingest(settings, progress=False)
    return [sys.executable, "-m", "assistant.cli", "ask", "--store", settings.store, "--data", settings.data,
            "--sources", settings.sources, "--embedder", "hash", QUESTION]


def _env() -> dict[str, str]:
    return dict(os.environ, HF_HUB_OFFLINE="1", PYTHONPATH=str(PROJECT))


def test_a_reader_that_is_already_gone_gives_no_traceback_and_the_sigpipe_status(ask_command):
    read_end, write_end = os.pipe()
    os.close(read_end)  # every write to stdout fails with EPIPE: the worst case of `| head -1`
    try:
        proc = subprocess.run(ask_command, stdout=write_end, stderr=subprocess.PIPE, text=True, cwd=PROJECT,
                              env=_env(), timeout=120)
    finally:
        os.close(write_end)
    assert proc.stderr == "", proc.stderr
    assert proc.returncode == 141  # 128 + SIGPIPE, what a shell reports for `yes | head -1`


def test_piping_into_head_prints_the_first_line_and_nothing_on_stderr(ask_command):
    script = " ".join(f"'{part}'" for part in ask_command) + " | head -1"
    proc = subprocess.run(["bash", "-c", "set -o pipefail; " + script], capture_output=True, text=True,
                          cwd=PROJECT, env=_env(), timeout=120)
    assert proc.stderr == "", proc.stderr
    assert proc.stdout.count("\n") == 1 and proc.stdout.strip()
    assert proc.returncode in (0, 141)  # 141 when head was gone before the answer was written
