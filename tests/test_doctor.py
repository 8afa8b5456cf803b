"""`ctx doctor`, and commands that only read leave no state behind."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from .conftest import write_docs


@pytest.fixture
def fresh(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project with a config and no state yet, with state beside the config (not under $CTX_STATE)."""
    monkeypatch.delenv("CTX_STATE")
    root = tmp_path / "project"
    (root / ".git").mkdir(parents=True)
    write_docs(root / "docs", {"systems/harbor.md": "# Harbor\n\nThe ingest host.\n"})
    (root / "config.yaml").write_text("docs: docs\n", encoding="utf-8")
    (root / "src").mkdir()
    monkeypatch.chdir(root / "src")
    return root


def test_doctor_in_a_configured_project(ctx, fresh):
    res = ctx("doctor")
    assert res.code == 0
    assert f"ok: config: {fresh / 'config.yaml'} (the nearest one from {fresh / 'src'})" in res.out
    assert "ok: index: not built yet; the first turn indexes 1 docs" in res.out
    assert "ok: test turn (dry run, hook budget 10,000)" in res.out
    assert "warning: hook: not installed for Claude Code\n  fix: ctx hook install claude" in res.out
    assert not (fresh / ".ctx").exists()  # it only read
    assert ctx("route", "harbor").code == 0 and "ok: index: 1 docs, current" in ctx("doctor").out
    (fresh / "docs" / "systems" / "harbor.md").write_text("# Harbor\n\nchanged\n")
    assert "warning: index: 1 of 1 docs changed since it was built" in ctx("doctor").out
    assert ctx("hook", "install", "claude").code == 0
    settings = fresh / ".claude" / "settings.json"
    data = json.loads(settings.read_text())
    other = {"type": "command", "command": "python3 context-router-v2.py"}
    data["hooks"]["UserPromptSubmit"].append({"hooks": [other]})
    settings.write_text(json.dumps(data))
    out = ctx("doctor").out
    assert "ok: hook: installed for Claude Code in project" in out
    assert "another context router's hook is installed" in out and "fix: ctx hook install claude --replace" in out


def test_doctor_without_a_config_says_why_the_hook_does_nothing(ctx, tmp_path, monkeypatch):
    monkeypatch.delenv("CTX_STATE")
    (tmp_path / "bare" / ".git").mkdir(parents=True)
    monkeypatch.chdir(tmp_path / "bare")
    out = ctx("doctor").out
    assert "warning: no ctx config.yaml from" in out and "the hook does nothing here" in out
    assert "fix: ctx init DOCS" in out and "problem(s) found" in out
    assert not (tmp_path / "bare" / ".ctx").exists()


def test_doctor_names_a_broken_config(ctx, fresh):
    (fresh / "config.yaml").write_text("tiers: {hot: {threshold: 9}}\n")
    out = ctx("doctor").out
    assert "error: " in out and "tiers.hot.threshold" in out


def test_commands_that_only_read_leave_no_state(ctx, fresh):
    for args in (["status"], ["status", "--json"], ["check"], ["sessions"], ["show", "systems/harbor.md"],
                 ["route", "--dry-run", "harbor"], ["explain", "systems/harbor.md"]):
        assert ctx(*args).code == 0, args
    assert not (fresh / ".ctx").exists()
    assert ctx("route", "harbor").code == 0 and (fresh / ".ctx" / "state.db").exists()
