"""The `resultsqa` command: one registry of subcommands, each owned by the package it serves.

Subcommands are imported lazily so `resultsqa --help` and `resultsqa status` start fast
(chromadb and llama-index cost a second or more to import). Every setting in
`ingest.settings.SETTINGS` is also a flag on every subcommand (`--store`, `--backend`, ...),
so the one list drives config file, environment, flags and `--help`.

A subcommand module defines `configure_<name>(parser)` and `run_<name>(args, settings) -> int`.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from typing import Sequence

from ingest import settings as settings_mod

# name -> (module, one-line help). Order is the order shown in --help.
COMMANDS: dict[str, tuple[str, str]] = {
    "ingest": ("ingest.cli", "Read the sources in data/sources.toml and (re)build the index, atomically."),
    "status": ("ingest.cli", "Show what is indexed: rounds, rows, documents, chunks, embedder, store, last ingest."),
    "ask": ("assistant.ask_cli", "Answer one question (exact numbers with citations)."),
    "chat": ("assistant.ask_cli", "Chat in the terminal, with follow-ups."),
    "ui": ("ui.cli", "Start the Streamlit chat."),
    "serve": ("ui.cli", "Start the HTTP API (ask, SSE stream, OpenAI-compatible chat)."),
    "eval": ("eval.cli", "Run a question set with gold answers and report accuracy, speed and cost."),
    "bench": ("eval.bench_cli", "Benchmark ingest, answers, the agent and the API against the budgets."),
    "settings": ("assistant.cli", "List every setting with its env var, default and current value."),
}


def _settings_parent() -> argparse.ArgumentParser:
    parent = argparse.ArgumentParser(add_help=False)
    group = parent.add_argument_group("settings (also env RESULTSQA_<NAME> or resultsqa.toml)")
    for s in settings_mod.SETTINGS:
        flag = "--" + s.name.replace("_", "-")
        group.add_argument(flag, dest=f"setting_{s.name}", default=None, type=s.type, metavar=s.name.upper(),
                           help=s.help)
    return parent


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="resultsqa", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    parent = _settings_parent()
    for name, (module_name, help_text) in COMMANDS.items():
        p = sub.add_parser(name, help=help_text, description=help_text, parents=[parent])
        try:
            module = importlib.import_module(module_name)
            getattr(module, f"configure_{name}")(p)
        except (ImportError, AttributeError) as exc:  # a broken subcommand must not take the others down
            p.set_defaults(_broken=f"{name}: not available ({exc})")
        p.set_defaults(_module=module_name, _name=name)
    return parser


def settings_from_args(args: argparse.Namespace) -> settings_mod.Settings:
    overrides = {s.name: getattr(args, f"setting_{s.name}", None) for s in settings_mod.SETTINGS}
    return settings_mod.load(**overrides)


def main(argv: Sequence[str] | None = None) -> int:
    settings_mod.setup_offline_env()
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "command", None):
        parser.print_help()
        return 2
    if getattr(args, "_broken", None):
        print(f"resultsqa: {args._broken}", file=sys.stderr)
        return 2
    try:
        resolved = settings_from_args(args)
    except (ValueError, KeyError) as exc:
        print(f"resultsqa: {exc}", file=sys.stderr)
        return 2
    module = importlib.import_module(args._module)
    try:
        code = int(getattr(module, f"run_{args._name}")(args, resolved) or 0)
        sys.stdout.flush()  # a reader gone away shows here, not in the interpreter's last flush
        return code
    except KeyboardInterrupt:
        print("resultsqa: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return _stdout_closed()


EXIT_BROKEN_PIPE = 128 + 13  # what a shell reports for a Unix tool ended by SIGPIPE


def _stdout_closed() -> int:
    """Whoever read our stdout has gone (`resultsqa ask … | head -1`): stop quietly, as Unix tools do.

    Python ignores SIGPIPE, so the write raised BrokenPipeError; without this it would print a
    traceback and then fail again flushing stdout at exit. Pointing stdout at /dev/null makes that
    last flush harmless.
    """
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)
    return EXIT_BROKEN_PIPE


# --- `resultsqa settings` ---------------------------------------------------------------

def configure_settings(p: argparse.ArgumentParser) -> None:
    p.add_argument("--markdown", action="store_true", help="Print the settings table as Markdown (docs/settings.md).")


def run_settings(args: argparse.Namespace, resolved: settings_mod.Settings) -> int:
    if args.markdown:
        print(settings_mod.markdown_table(), end="")
        return 0
    for name, value in resolved.public().items():
        print(f"{name:20} {settings_mod.BY_NAME[name].env:32} {value}")
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
