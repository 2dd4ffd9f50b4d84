"""Starting and stopping local helper processes (servers on loopback) for eval, bench and tests.

One place for what every server-starting caller needs: a free loopback port, waiting until a
URL answers (failing fast if the process died), and a stop that escalates to kill.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path


def free_port() -> int:
    """A port free on 127.0.0.1 right now (the OS picks it)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_for_http(process: subprocess.Popen, url: str, wait_s: float, interval: float = 0.3) -> bool:
    """True once `url` answers 200; False if the process exits or `wait_s` passes first."""
    deadline = time.monotonic() + wait_s
    while time.monotonic() < deadline:
        if process.poll() is not None:
            return False
        try:
            with urllib.request.urlopen(url, timeout=2) as response:
                if response.status == 200:
                    return True
        except OSError:
            pass
        time.sleep(interval)
    return False


def stop(process: subprocess.Popen, timeout: float = 10) -> None:
    """Terminate, then kill if it does not exit within `timeout` seconds."""
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def start_chroma(path: str | Path, wait_s: float = 60) -> tuple[subprocess.Popen, str]:
    """A real `chroma run` server on a free loopback port, persisting under `path`; (process, url).

    Raises FileNotFoundError when the chroma CLI is not installed next to this Python and
    RuntimeError when it does not answer its heartbeat in time (the process is stopped).
    """
    chroma = Path(sys.executable).with_name("chroma")
    if not chroma.exists():
        raise FileNotFoundError(f"the chroma CLI is missing: {chroma}")
    port = free_port()
    proc = subprocess.Popen([str(chroma), "run", "--path", str(path), "--host", "127.0.0.1", "--port", str(port)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            env=dict(os.environ, ANONYMIZED_TELEMETRY="False"))
    url = f"http://127.0.0.1:{port}"
    if not wait_for_http(proc, url + "/api/v2/heartbeat", wait_s):
        stop(proc)
        raise RuntimeError("chroma run did not start")
    return proc, url
