"""SIGTERM (or SIGINT) to `resultsqa ui` stops the Streamlit server it runs: the port is freed and no
process of it is left behind. A real process on a free loopback port; every wait is bounded."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

from eval.procs import free_port, wait_for_http

PROJECT = Path(__file__).resolve().parents[2]
START_S = 90
STOP_S = 20


def _port_free(port: int) -> bool:
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) != 0


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_a_signal_to_the_ui_command_stops_streamlit_and_frees_the_port(tmp_path, sig):
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("RESULTSQA_")}
    env.update(HOME=str(tmp_path / "home"), HF_HUB_OFFLINE="1", RESULTSQA_STORE=str(tmp_path / "store"))
    log = tmp_path / "ui.log"
    with log.open("w") as out:
        proc = subprocess.Popen([sys.executable, "-m", "assistant.cli", "ui", "--ui-port", str(port)], cwd=PROJECT,
                                env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    processes: list[psutil.Process] = []
    try:
        assert wait_for_http(proc, f"http://127.0.0.1:{port}/_stcore/health", START_S), log.read_text()[-3000:]
        processes = [psutil.Process(proc.pid), *psutil.Process(proc.pid).children(recursive=True)]
        os.kill(proc.pid, sig)  # the command only, as a service manager or `kill PID` does
        proc.wait(timeout=STOP_S)
        gone, alive = psutil.wait_procs(processes, timeout=STOP_S)
        assert not alive, f"left running after {sig.name}: {[p.pid for p in alive]}"
        deadline = time.monotonic() + STOP_S
        while not _port_free(port) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert _port_free(port), f"port {port} still served after {sig.name}"
    finally:
        for p in processes:  # whatever the outcome, none of ours keeps running
            try:
                p.kill()
            except psutil.NoSuchProcess:
                pass
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=STOP_S)
