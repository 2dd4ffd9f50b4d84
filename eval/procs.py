"""Starting and stopping local helper processes (servers on loopback) for eval, bench and tests.

One place for what every server-starting caller needs: a free loopback port, waiting until a
URL answers (failing fast if the process died), and a stop that escalates to kill.
"""

from __future__ import annotations

import socket
import subprocess
import time
import urllib.request


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
