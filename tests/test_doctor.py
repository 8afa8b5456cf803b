"""`ctx doctor`, and commands that only read leave no state behind."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from .conftest import CLAUDE_SETTINGS, write_docs


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
    # A hook not installed is worth knowing, and no problem: `ctx route` piped into a prompt needs none.
    assert res.code == 0 and res.out.endswith("all good\n")
    assert f"ok: config: {fresh / 'config.yaml'} (the nearest one from {fresh / 'src'})" in res.out
    assert "ok: index: not built yet; the first turn indexes 1 files" in res.out
    assert 'ok: test turn (dry run, hook budget 10,000): "what does this project do?" in ' in res.out
    assert ("note: hook: not installed for Claude Code, Gemini CLI, Codex CLI or Cline\n"
            "  fix: ctx hook install claude (or gemini, codex, cline)") in res.out
    assert not (fresh / ".ctx").exists()  # it only read
    assert ctx("route", "harbor").code == 0 and "ok: index: 1 docs, current" in ctx("doctor").out
    (fresh / "docs" / "systems" / "harbor.md").write_text("# Harbor\n\nchanged\n")
    assert "warning: index: 1 of 1 files changed since it was built" in ctx("doctor").out
    assert ctx("hook", "install", "claude").code == 0
    settings = fresh / CLAUDE_SETTINGS
    data = json.loads(settings.read_text())
    other = {"type": "command", "command": "python3 context-router-v2.py"}
    data["hooks"]["UserPromptSubmit"].append({"hooks": [other]})
    settings.write_text(json.dumps(data))
    out = ctx("doctor").out
    assert f"ok: hook: installed for Claude Code in {settings}; run outside this shell it answered in " in out
    assert "another context router's hook is installed" in out and "fix: ctx hook install claude --replace" in out


def test_doctor_mentions_a_watcher_for_a_big_folder_as_a_note_not_a_problem(ctx, fresh, monkeypatch):
    """Tried as a new user would on a load tester's docs (1,032): `ctx doctor` found "1 problem", no watcher,
    where the hook's resident server observes the folder and a turn that stats the docs is as fast."""
    from context_router.faces import doctor
    assert "ok: watcher: none (not needed under 1,000 docs)" in ctx("doctor").out
    monkeypatch.setattr(doctor, "WATCH_FROM", 1)
    res = ctx("doctor")
    assert res.code == 0 and res.out.endswith("all good\n"), res.out
    assert ("note: watcher: none; a hook turn's resident server observes the docs between turns, other turns stat "
            "all 1 docs to notice edits\n  fix: ctx watch (beside the editor)") in res.out


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


def trust_codex_by_config(project: Path) -> None:
    """What Codex's /hooks review writes, without the `codex` command: the project and each hook trusted."""
    from context_router.faces import trust

    lines = [f'[projects."{project}"]', 'trust_level = "trusted"']
    for key in trust.codex_keys(str(project / ".codex" / "hooks.json")):
        lines += [f"[hooks.state.{json.dumps(key)}]", 'trusted_hash = "sha256:0"']
    path = Path(trust.codex_config())
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n")


def test_doctor_runs_each_installed_hook_as_its_host_would(ctx, fresh, monkeypatch, tmp_path):
    """Each host's hook is run once, from a shell whose PATH has no virtual environment in it, with a sample
    prompt shaped as the host sends it; a command that is not found there is an error with its fix."""
    import shutil

    if shutil.which("ctx", path="/usr/local/bin:/opt/homebrew/bin:/usr/bin:/bin"):
        pytest.skip("a ctx on the system PATH answers for the bare command")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))  # no ~/.local/bin/ctx either
    for host in ("claude", "gemini", "codex", "cline"):
        assert ctx("hook", "install", host, *(["--trust"] if host == "gemini" else [])).code == 0
    trust_codex_by_config(fresh)
    out = ctx("doctor").out
    for name, file in (("Claude Code", CLAUDE_SETTINGS), ("Gemini CLI", ".gemini/settings.json"),
                       ("Codex CLI", ".codex/hooks.json"), ("Cline", ".clinerules/hooks/UserPromptSubmit")):
        assert f"ok: hook: installed for {name} in {fresh / file}; run outside this shell it answered in " in out
    assert out.endswith("all good\n") and not (fresh / ".ctx").exists()  # the tries were dry runs
    settings = fresh / ".gemini" / "settings.json"
    settings.write_text(settings.read_text().replace(json.loads(settings.read_text())["hooks"]["BeforeAgent"][0]
                                                     ["hooks"][0]["command"], "ctx hook gemini"))
    os.chmod(fresh / ".clinerules" / "hooks" / "UserPromptSubmit", 0o644)
    out = ctx("doctor").out
    assert (f"error: hook: installed for Gemini CLI in {settings}; run outside this shell it fails (exit 127: "
            in out and "ctx: not found)\n  fix: ctx hook install gemini (writes a command that runs whatever "
            "the PATH)\n" in out)
    assert (f"error: hook for Cline in {fresh / '.clinerules/hooks/UserPromptSubmit'} is not executable: Cline "
            "passes it over\n  fix: chmod +x ") in out
    assert ctx("hook", "install", "gemini").code == 0 and "error: hook: installed for Gemini" not in ctx("doctor").out


def test_doctor_starts_each_mcp_server_once(ctx, fresh):
    pytest.importorskip("mcp")
    assert ctx("mcp", "install", "cursor").code == 0 and ctx("mcp", "install", "codex").code == 0
    (fresh / ".mcp.json").write_text(json.dumps({"mcpServers": {"ctx": {
        "command": sys.executable, "args": ["-c", "import sys; sys.exit('ctx: error: no MCP SDK here')"]}}}))
    (fresh / ".gemini").mkdir()
    (fresh / ".gemini" / "settings.json").write_text(json.dumps({"mcpServers": {"ctx": {"command": "ctx",
                                                                                           "args": ["mcp"]}}}))
    out = ctx("doctor").out
    assert f"ok: MCP server: in {fresh / '.cursor/mcp.json'} for Cursor; `" in out
    assert "` started and answered in " in out
    assert f"ok: MCP server: in {fresh / '.codex/config.toml'} for Codex CLI; " in out
    assert (f"error: MCP server: in {fresh / '.mcp.json'} for Claude Code; `{sys.executable} -c 'import sys; "
            "sys.exit('\"'\"'ctx: error: no MCP SDK here'\"'\"')'` did not start: ctx: error: no MCP SDK here\n"
            "  fix: ctx mcp install claude (writes a command that runs whatever the PATH)") in out
    assert (f"error: MCP server: in {fresh / '.gemini/settings.json'} for Gemini CLI; `ctx mcp` cannot start outside "
            "this shell: No such file or directory (PATH=") in out
    assert not (fresh / ".ctx").exists()


def test_doctor_names_a_missing_docs_folder_once_and_fails(ctx, fresh):
    (fresh / "config.yaml").write_text("docs: nosuchdir\n", encoding="utf-8")
    res = ctx("doctor")
    assert res.code == 1 and "nosuchdir" in res.out
    assert "ok: docs folder" not in res.out  # not "ok" and then "not found" about the same folder
    assert [line for line in res.out.splitlines() if "nosuchdir" in line][0].startswith("error: ")
    assert res.out.rstrip().endswith("problem(s) found")


def test_doctor_counts_the_docs_status_counts(ctx, fresh):
    """A binary file named .md is skipped by the index: it is no doc for `ctx doctor` either."""
    for name in ("a.md", "b.md"):
        (fresh / "docs" / name).write_bytes(b"\x89PNG\r\n\x1a\n\0\0\0binary")
    assert ctx("route", "harbor").code == 0
    out = ctx("doctor").out
    assert "ok: index: 1 docs, current (2 .md files skipped: binary or unreadable)" in out
    assert ", 1 docs" in ctx("status").out


def test_doctor_exits_zero_only_when_all_is_good(ctx, fresh):
    assert ctx("hook", "install", "claude").code == 0
    res = ctx("doctor")
    if "all good" in res.out:
        assert res.code == 0
    else:  # a ctx on this machine's PATH may answer for the bare command: still a problem named, exit 1
        assert res.code == 1 and "problem(s) found" in res.out
