"""`resultsqa ui` (the Streamlit chat) and `resultsqa serve` (the HTTP API).

Streamlit runs the app script in its own process and knows nothing of our flags, so `ui`
hands every resolved setting to it as `RESULTSQA_<NAME>` environment variables, which
`ingest.settings.load()` reads back inside the app: one settings list, whatever the path.
Only the standard library is imported at top level (see assistant/cli.py).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

APP = Path(__file__).resolve().parent / "app.py"


def settings_env(settings: Any) -> dict[str, str]:
    """The resolved settings as RESULTSQA_* variables (unset ones left out, so defaults apply)."""
    from ingest.settings import BY_NAME

    env: dict[str, str] = {}
    for name, value in settings.items():
        if value is None or name not in BY_NAME:
            continue
        env[BY_NAME[name].env] = ("true" if value else "false") if isinstance(value, bool) else str(value)
    return env


def streamlit_command(settings: Any, address: str = "127.0.0.1") -> list[str]:
    """The `streamlit run` command line: headless, loopback, no usage statistics."""
    return [
        sys.executable, "-m", "streamlit", "run", str(APP),
        "--server.headless", "true",
        "--server.address", address,
        "--server.port", str(settings.ui_port),
        "--browser.gatherUsageStats", "false",
        "--client.toolbarMode", "minimal",
        "--client.showErrorDetails", "none",
        "--theme.base", "light",
    ]


# --- `resultsqa ui` -----------------------------------------------------------------------

def configure_ui(p: argparse.ArgumentParser) -> None:
    p.add_argument("--address", default="127.0.0.1",
                   help="Address Streamlit binds to (default loopback; the port is the ui_port setting).")


def run_ui(args: argparse.Namespace, settings: Any) -> int:
    env = dict(os.environ)
    env.update(settings_env(settings))
    env.setdefault("HF_HUB_OFFLINE", "1")
    env.setdefault("ANONYMIZED_TELEMETRY", "False")
    cmd = streamlit_command(settings, address=args.address)
    print(f"resultsqa: chat at http://{args.address}:{settings.ui_port}  (Ctrl-C stops it)", file=sys.stderr)
    sys.stderr.flush()
    # Streamlit replaces this process (same pid), so SIGTERM or SIGINT from a service manager,
    # `kill PID` or Ctrl-C reaches the server itself; a child process was left running, still
    # serving the port, when only this parent was signalled.
    os.chdir(APP.parent.parent)
    os.execve(cmd[0], cmd, env)


# --- `resultsqa serve` --------------------------------------------------------------------

def configure_serve(p: argparse.ArgumentParser) -> None:
    """The API engineer's module owns the server; this is only the command's entry point."""
    p.add_argument("--workers", type=int, default=1,
                   help="uvicorn worker processes (>1 shares one index: use a Chroma server via --chroma-url).")


def run_serve(args: argparse.Namespace, settings: Any) -> int:
    from ui.api import main

    return int(main(args, settings) or 0)
