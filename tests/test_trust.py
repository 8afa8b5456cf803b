"""A hook the host would skip is seen: Codex CLI's untrusted project or hook, Gemini CLI's untrusted folder;
`ctx doctor` fails on it and names the one step, and `ctx hook install HOST --trust` takes it."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from context_router.faces import trust
from context_router.store import index

from .conftest import REPO

tomllib = index.toml()  # tomllib, or tomli on Python 3.10: what checks the edited config.toml


@pytest.fixture
def codex_on_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A `codex` whose app server is tests/fake_codex.py; returns $CODEX_HOME's config.toml."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    script = bin_dir / "codex"
    script.write_text(f'#!/bin/sh\nexec {sys.executable} {REPO / "tests" / "fake_codex.py"} "$@"\n')
    script.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    home = tmp_path / "codex-home"
    home.mkdir()
    monkeypatch.setenv("CODEX_HOME", str(home))
    return home / "config.toml"


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "project"
    (root / ".git").mkdir(parents=True)
    (root / "docs").mkdir()
    (root / "docs" / "harbor.md").write_text("# Harbor\n\nThe ingest host.\n")
    (root / "config.yaml").write_text("docs: docs\n")
    monkeypatch.chdir(root)
    return root


def test_codex_untrusted_project_then_untrusted_hooks_then_trusted(ctx, project, codex_on_path):
    res = ctx("hook", "install", "codex")
    assert res.code == 0 and "the project is not trusted" in res.err
    out = ctx("doctor")
    assert out.code == 1 and "error: hook: Codex CLI loads no hook of" in out.out
    codex_on_path.write_text(f'model = "m"\n\n[projects."{project}"]\ntrust_level = "trusted"\n')
    res = ctx("hook", "install", "codex")
    assert "Codex CLI skips 4 of ctx's 4 hooks" in res.err and "fix: ctx hook install codex --trust" in res.err
    out = ctx("doctor")
    assert out.code == 1 and "fix: ctx hook install codex --trust (or /hooks in Codex" in out.out
    res = ctx("hook", "install", "codex", "--trust")
    assert res.code == 0 and f"trusted 4 hook(s) of {project / '.codex' / 'hooks.json'}" in res.out
    data = tomllib.loads(codex_on_path.read_text())
    assert data["model"] == "m" and len(data["hooks"]["state"]) == 4  # what was there is kept
    assert "ok: hook: Codex CLI trusts it" in ctx("doctor").out
    assert "already trusts" in ctx("hook", "install", "codex", "--trust").out


def test_codex_without_the_command_reads_its_config(ctx, project, tmp_path, monkeypatch):
    home = tmp_path / "codex-home"
    home.mkdir()
    monkeypatch.setenv("CODEX_HOME", str(home))
    monkeypatch.setenv("PATH", "/nonexistent")
    ctx("hook", "install", "codex")
    (home / "config.toml").write_text(f'[projects."{project}"]\ntrust_level = "trusted"\n')
    out = ctx("doctor").out
    assert "Codex CLI skips 4 of ctx's 4 hooks" in out and "trusts no hash of them" in out
    res = ctx("hook", "install", "codex", "--trust")
    assert res.code == 2 and "--trust needs the `codex` command on PATH" in res.err


def test_trusted_hashes_keep_every_other_line():
    text = ('model = "m"\n[hooks.state."/p/.codex/hooks.json:user_prompt_submit:0:0"]\nenabled = true\n'
            'trusted_hash = "sha256:old"\n[other]\nx = 1\n')
    out = trust.with_trusted_hashes(text, {"/p/.codex/hooks.json:user_prompt_submit:0:0": "sha256:new",
                                           "/p/.codex/hooks.json:post_compact:0:0": "sha256:pc"})
    data = tomllib.loads(out)
    assert data["other"] == {"x": 1} and data["model"] == "m"
    assert data["hooks"]["state"]["/p/.codex/hooks.json:user_prompt_submit:0:0"] == {
        "enabled": True, "trusted_hash": "sha256:new"}
    assert data["hooks"]["state"]["/p/.codex/hooks.json:post_compact:0:0"] == {"trusted_hash": "sha256:pc"}


@pytest.mark.parametrize("rules, env, trusted", [
    ({}, None, False),
    ({"{p}": "TRUST_FOLDER"}, None, True),
    ({"{parent}": "TRUST_FOLDER"}, None, True),
    ({"{p}/x": "TRUST_PARENT"}, None, True),
    ({"{parent}": "TRUST_FOLDER", "{p}": "DO_NOT_TRUST"}, None, False),
    ({"{parent}": "DO_NOT_TRUST", "{p}": "TRUST_FOLDER"}, None, True),
    ({"{p}": "TRUST_FOLDER"}, "false", False),
    ({}, "true", True),
])
def test_gemini_trusted_folders_as_gemini_reads_them(project, monkeypatch, rules, env, trusted):
    path = Path(os.path.expanduser("~")) / ".gemini" / "trustedFolders.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({k.format(p=project, parent=project.parent): v for k, v in rules.items()}))
    if env is not None:
        monkeypatch.setenv("GEMINI_CLI_TRUST_WORKSPACE", env)
    assert trust.gemini_verdict(str(project)).runs is trusted


def test_gemini_with_folder_trust_off_runs_everywhere(project):
    settings = Path(os.path.expanduser("~")) / ".gemini" / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text(json.dumps({"security": {"folderTrust": {"enabled": False}}}))
    assert trust.gemini_verdict(str(project)).runs is True


def test_gemini_untrusted_folder_fails_doctor_and_trust_fixes_it(ctx, project):
    assert "the folder is not trusted" in ctx("hook", "install", "gemini").err
    out = ctx("doctor")
    assert out.code == 1 and "error: hook: Gemini CLI does not read" in out.out and "exits 55" in out.out
    res = ctx("hook", "install", "gemini", "--trust")
    assert res.code == 0 and "trusted" in res.out
    assert json.loads((Path(os.path.expanduser("~")) / ".gemini" / "trustedFolders.json").read_text()) == {
        os.path.realpath(project): "TRUST_FOLDER"}
    assert "ok: hook: Gemini CLI trusts it" in ctx("doctor").out


def test_trust_is_for_codex_and_gemini(ctx, project):
    res = ctx("hook", "install", "claude", "--trust")
    assert res.code == 2 and "No such option: --trust" in res.err
