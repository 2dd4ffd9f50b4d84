"""Docs are checked by tests: every setting, CLI command and agent tool is documented."""

from __future__ import annotations

from pathlib import Path

from assistant.cli import COMMANDS
from ingest import settings as settings_mod

ROOT = Path(__file__).resolve().parent.parent


def test_every_setting_is_documented():
    doc = (ROOT / "docs" / "settings.md").read_text()
    missing = [s.name for s in settings_mod.SETTINGS if f"`{s.name}`" not in doc or s.env not in doc]
    assert not missing, f"undocumented settings (run `resultsqa settings --markdown`): {missing}"


def test_settings_doc_is_current():
    doc = (ROOT / "docs" / "settings.md").read_text()
    assert settings_mod.markdown_table() in doc, "docs/settings.md is stale: regenerate its table"


def test_every_cli_command_is_in_the_readme():
    readme = (ROOT / "README.md").read_text()
    missing = [name for name in COMMANDS if f"resultsqa {name}" not in readme]
    assert not missing, f"commands missing from README.md: {missing}"


def test_readme_test_command_is_what_ci_runs():
    readme = (ROOT / "README.md").read_text()
    ci = (ROOT / ".ci" / "run").read_text()
    assert "make test" in ci and "make test" in readme
    assert "make run" in readme


def test_env_overrides_and_precedence(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "resultsqa.toml").write_text('max_rows = 7\nbackend = "ollama"\n')
    monkeypatch.setenv("RESULTSQA_BACKEND", "openai")
    resolved = settings_mod.load()
    assert resolved.max_rows == 7            # config file beats default
    assert resolved.backend == "openai"      # env beats config file
    assert settings_mod.load(backend="llamacpp").backend == "llamacpp"  # explicit beats env


def test_unknown_setting_in_config_file_is_a_clear_error(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "resultsqa.toml").write_text("max_rowz = 7\n")
    try:
        settings_mod.load()
    except ValueError as exc:
        assert "max_rowz" in str(exc)
    else:
        raise AssertionError("an unknown setting must be rejected")


def test_secrets_are_masked(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-very-secret")
    public = settings_mod.load().public()
    assert "sk-test-very-secret" not in repr(public)


def test_every_agent_tool_and_backend_is_documented():
    from assistant import backends
    from assistant.tools import TOOL_NAMES

    doc = (ROOT / "docs" / "agent.md").read_text()
    missing = [name for name in [*TOOL_NAMES, *backends.names()] if f"`{name}`" not in doc]
    assert not missing, f"undocumented in docs/agent.md: {missing}"
