"""Installing into each host's project files: hooks and MCP servers merged, idempotent, file modes as the umask
says, and an installed command that runs whatever the PATH."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from context_router.store import index

from .conftest import CLAUDE_SETTINGS
from .test_hosts import PAYLOADS, context_of

HOOK_FILES = {"claude": ".claude/settings.json", "gemini": ".gemini/settings.json", "codex": ".codex/hooks.json",
              "cline": ".clinerules/hooks/UserPromptSubmit"}


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.fixture
def umask():
    """Set the process umask for a test, and put it back."""
    saved = os.umask(0o022)
    os.umask(saved)
    yield os.umask
    os.umask(saved)


def test_new_files_follow_the_umask_and_existing_ones_keep_their_mode(ctx, tmp_path, umask):
    umask(0o022)
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.md").write_text("# A\n")
    assert ctx("init", "docs").code == 0 and mode(tmp_path / "config.yaml") == 0o644
    for args, written in ((["hook", "install", "claude"], CLAUDE_SETTINGS),
                          (["hook", "install", "cline"], ".clinerules/hooks/UserPromptSubmit"),
                          (["mcp", "install", "claude"], ".mcp.json"),
                          (["mcp", "install", "codex"], ".codex/config.toml")):
        assert ctx(*args).code == 0, args
        assert mode(tmp_path / written) == (0o755 if "cline" in args else 0o644), written
    umask(0o077)
    assert ctx("mcp", "install", "cursor").code == 0 and mode(tmp_path / ".cursor" / "mcp.json") == 0o600
    settings = tmp_path / CLAUDE_SETTINGS
    settings.write_text(json.dumps({"hooks": {"UserPromptSubmit": [{"hooks": [{"command": "ctx hook claude"}]}]}}))
    os.chmod(settings, 0o640)
    assert ctx("hook", "install", "claude").out.startswith("updated the hook")
    assert mode(settings) == 0o640  # an existing file keeps its mode
    umask(0o022)
    assert ctx("hook", "install", "gemini").code == 0 and mode(tmp_path / ".gemini" / "settings.json") == 0o644


OTHERS = {
    "claude": {"model": "opus", "hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "lint"}]}],
                                          "Stop": [{"hooks": [{"type": "command", "command": "x"}]}]}},
    "gemini": {"general": {"vimMode": True}, "mcpServers": {"db": {"command": "db-mcp"}},
               "hooks": {"BeforeAgent": [{"hooks": [{"name": "git", "type": "command", "command": "git-ctx",
                                                     "timeout": 2000}]}],
                         "AfterTool": [{"matcher": "write_file", "hooks": [{"type": "command", "command": "fmt"}]}]}},
    "codex": {"hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "scan-secrets"}]}],
                        "SessionStart": [{"matcher": "startup", "hooks": [{"type": "command", "command": "hi"}]}]}},
}


@pytest.mark.parametrize("host", ["claude", "gemini", "codex"])
def test_hook_install_merges_is_idempotent_and_uninstall_leaves_the_rest(ctx, tmp_path, host):
    path = tmp_path / (CLAUDE_SETTINGS if host == "claude" else HOOK_FILES[host])
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(OTHERS[host], indent=4))
    res = ctx("hook", "install", host)
    assert res.code == 0 and res.out.startswith("installed `") and f" hook {host}` " in res.out
    first = path.read_bytes()
    res = ctx("hook", "install", host)
    assert (res.code, res.out) == (0, f"the hook is already in {path}\n") and path.read_bytes() == first
    data = json.loads(first)
    event = "BeforeAgent" if host == "gemini" else "UserPromptSubmit"
    ours = data["hooks"][event][-1]["hooks"][0]
    assert ours["type"] == "command" and ours["command"].endswith(f" hook {host}")
    assert ours["timeout"] == (5000 if host == "gemini" else 10)  # Gemini CLI counts milliseconds
    if host == "gemini":
        assert ours["name"] == "ctx"
    assert {k: v for k, v in data.items() if k != "hooks"} == {k: v for k, v in OTHERS[host].items() if k != "hooks"}
    assert ctx("hook", "uninstall", host).out == f"removed the hook from {path}\n"
    assert json.loads(path.read_text()) == OTHERS[host]
    again = ctx("hook", "uninstall", host).out
    assert again.startswith("no ctx hook in ") and str(path) in again
    assert not list(path.parent.glob("*.tmp"))


def test_an_old_command_is_updated_in_place(ctx, tmp_path):
    """A hook installed as bare `ctx` from a virtual environment fails in any other shell: installing again
    writes the full path, keeping what the user set on the entry."""
    path = tmp_path / ".codex" / "hooks.json"
    path.parent.mkdir()
    path.write_text(json.dumps({"hooks": {"UserPromptSubmit": [
        {"hooks": [{"type": "command", "command": "ctx hook codex", "timeout": 30, "statusMessage": "docs"}]}]}}))
    res = ctx("hook", "install", "codex")
    assert res.code == 0 and res.out.startswith(f"updated the hook in {path}: it runs `")
    hook = json.loads(path.read_text())["hooks"]["UserPromptSubmit"][0]["hooks"][0]
    assert os.path.isabs(hook["command"].split()[0]) and (hook["timeout"], hook["statusMessage"]) == (30, "docs")


def test_install_says_what_the_host_needs_first(ctx):
    res = ctx("hook", "install", "codex")
    assert res.code == 0 and "Codex CLI loads no hook of" in res.err and "the project is not trusted" in res.err
    assert "fix: trust the project: run `codex` in" in res.err
    res = ctx("hook", "install", "gemini")
    assert "the folder is not trusted" in res.err and "fix: ctx hook install gemini --trust" in res.err
    assert "Enable Hooks" in ctx("hook", "install", "cline").out


@pytest.mark.parametrize("host", ["gemini", "codex"])
def test_a_broken_settings_file_is_left_as_it_is(ctx, tmp_path, host):
    path = tmp_path / HOOK_FILES[host]
    path.parent.mkdir(parents=True)
    path.write_text("{broken")
    res = ctx("hook", "install", host)
    assert res.code == 2 and res.err.startswith(f"ctx: error: cannot read {path}: ")
    path.write_text('{"hooks": []}')
    res = ctx("hook", "install", host)
    assert (res.code, res.err) == (2, f"ctx: error: {path}: 'hooks' is not a JSON object\n")
    assert path.read_text() == '{"hooks": []}'


def test_cline_hook_file(ctx, tmp_path):
    path = tmp_path / ".clinerules" / "hooks" / "UserPromptSubmit"
    (tmp_path / ".clinerules").mkdir()
    (tmp_path / ".clinerules" / "style.md").write_text("use tabs\n")
    assert ctx("hook", "install", "cline").code == 0
    text = path.read_text()
    assert text.startswith("#!/bin/sh\n") and text.rstrip().endswith(' hook cline "$@"') and os.access(path, os.X_OK)
    assert ctx("hook", "install", "cline").out == f"the hook is already in {path}\n" and path.read_text() == text
    assert ctx("hook", "uninstall", "cline").code == 0 and not path.exists()
    assert (tmp_path / ".clinerules" / "style.md").exists() and not (tmp_path / ".clinerules" / "hooks").exists()
    path.parent.mkdir()
    path.write_text("#!/bin/bash\necho '{\"cancel\": false}'\n")
    res = ctx("hook", "install", "cline")
    assert res.code == 2 and res.err.startswith(f"ctx: error: {path} is another hook, left as it is")
    assert ctx("hook", "uninstall", "cline").out == f"no ctx hook in {path}\n" and path.exists()


def test_cline_rules_written_as_a_file(ctx, tmp_path):
    (tmp_path / ".clinerules").write_text("use tabs\n")
    res = ctx("hook", "install", "cline")
    assert res.code == 2 and res.err.startswith(f"ctx: error: {tmp_path / '.clinerules'} is a file (Cline's rules)")
    assert (tmp_path / ".clinerules").read_text() == "use tabs\n"


def test_installed_commands_run_where_ctx_is_not_on_path(ctx, sample, monkeypatch):
    """What the host runs, run as it would be from a shell with no virtual environment: PATH=/usr/bin:/bin."""
    monkeypatch.chdir(sample.parent)
    for host in ("claude", "gemini", "codex", "cline"):
        assert ctx("hook", "install", host).code == 0
    env = {"PATH": "/usr/bin:/bin", "HOME": os.environ.get("HOME", "/"), "CTX_SERVE": "0"}  # no server left behind
    assert subprocess.run(["sh", "-c", "command -v ctx"], env=env, capture_output=True).returncode != 0
    for host in ("claude", "gemini", "codex", "cline"):
        path = sample.parent / (CLAUDE_SETTINGS if host == "claude" else HOOK_FILES[host])
        if host == "cline":
            argv = [str(path)]
        else:
            hooks = json.loads(path.read_text())["hooks"]
            argv = ["/bin/sh", "-c", hooks["BeforeAgent" if host == "gemini" else "UserPromptSubmit"][0]["hooks"][0]
                    ["command"]]
        payload = PAYLOADS.get(host, PAYLOADS["codex"])("is the vault backed up?", sample.parent)
        res = subprocess.run(argv, input=payload, capture_output=True, cwd=sample.parent, env=env, timeout=60)
        assert res.returncode == 0, (host, res.stderr)
        shown = context_of(host, res.stdout.decode()) if host != "claude" else \
            json.loads(res.stdout)["hookSpecificOutput"]["additionalContext"]
        assert "HOT] systems/vault.md" in shown, host


# -- MCP -----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("host, path", [("gemini", ".gemini/settings.json"), ("cursor", ".cursor/mcp.json")])
def test_mcp_install_json_hosts(ctx, tmp_path, host, path):
    file = tmp_path / path
    file.parent.mkdir()
    file.write_text(json.dumps({"theme": "dark", "mcpServers": {"other": {"command": "x", "args": ["y"]}}}))
    res = ctx("mcp", "install", host)
    assert res.code == 0 and res.out.startswith(f"added the ctx MCP server to {file}\n")
    data = json.loads(file.read_text())
    assert data["theme"] == "dark" and data["mcpServers"]["other"] == {"command": "x", "args": ["y"]}
    assert set(data["mcpServers"]["ctx"]) == {"command", "args"} and data["mcpServers"]["ctx"]["args"] == ["mcp"]
    before = file.read_bytes()
    assert ctx("mcp", "install", host).out == f"the ctx MCP server is already in {file}\n"
    assert file.read_bytes() == before
    data["mcpServers"]["ctx"] = {"command": "ctx", "args": ["mcp"], "env": {"CTX_SESSION": "mine"}}
    file.write_text(json.dumps(data))
    assert ctx("mcp", "install", host).out.startswith(f"updated the ctx MCP server in {file}\n")
    entry = json.loads(file.read_text())["mcpServers"]["ctx"]
    assert os.path.isabs(entry["command"]) and entry["env"] == {"CTX_SESSION": "mine"}


CODEX_TOML = '''# my codex settings
model = "gpt-5-codex"

[mcp_servers.docs]
command = "docs-mcp"
args = ["--port", "0"]

[projects."/home/me/app"]
trust_level = "trusted"
'''


def test_mcp_install_codex_toml(ctx, tmp_path):
    file = tmp_path / ".codex" / "config.toml"
    file.parent.mkdir()
    file.write_text(CODEX_TOML)
    res = ctx("mcp", "install", "codex")
    assert res.code == 0 and res.out.startswith(f"added the ctx MCP server to {file}\n")
    text = file.read_text()
    assert text.startswith(CODEX_TOML) and "\n[mcp_servers.ctx]\ncommand = " in text and 'args = ["mcp"]' in text
    assert ctx("mcp", "install", "codex").out == f"the ctx MCP server is already in {file}\n"
    assert file.read_text() == text
    data = index.toml().loads(text)  # tomllib, or tomli on Python 3.10
    assert data["mcp_servers"]["docs"]["args"] == ["--port", "0"] and data["mcp_servers"]["ctx"]["args"] == ["mcp"]
    # An entry of ours with the user's settings: command and args change, the rest stays.
    file.write_text(CODEX_TOML + '\n[mcp_servers.ctx]\ncommand = "ctx"\nargs = [\n  "mcp",\n]\n'
                    'startup_timeout_sec = 20\n\n[mcp_servers.ctx.env]\nCTX_SESSION = "codex"\n')
    assert ctx("mcp", "install", "codex").out.startswith(f"updated the ctx MCP server in {file}\n")
    text = file.read_text()
    assert "startup_timeout_sec = 20" in text and '[mcp_servers.ctx.env]\nCTX_SESSION = "codex"' in text
    assert text.count("args =") == 2 and text.count("[mcp_servers.ctx]") == 1


@pytest.mark.parametrize("text, message", [
    ("model = [\n", "cannot read"),
    ('mcp_servers = { ctx = { command = "old" } }\n', "its mcp_servers are written in a form ctx does not edit"),
])
def test_mcp_install_codex_refuses_what_it_cannot_edit(ctx, tmp_path, text, message):
    file = tmp_path / ".codex" / "config.toml"
    file.parent.mkdir()
    file.write_text(text)
    res = ctx("mcp", "install", "codex")
    assert res.code == 2 and message in res.err and res.err.count("\n") == 1
    assert file.read_text() == text


def test_mcp_install_without_the_sdk_says_so_before_writing(ctx, tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "mcp", None)
    monkeypatch.setitem(sys.modules, "mcp.server", None)
    line = f"{sys.executable} -m pip install 'ctx-router[mcp]'"
    for host, path in (("claude", ".mcp.json"), ("cursor", ".cursor/mcp.json")):
        res = ctx("mcp", "install", host)
        name = {"claude": "Claude Code", "cursor": "Cursor"}[host]
        assert res.code == 0 and res.err == (f"ctx: warning: the MCP SDK is not installed beside this ctx, so {name} "
                                             f"cannot start `ctx mcp` until you run: {line}\n")
        assert (tmp_path / path).exists()
    from context_router.store import files

    def refuse(*args, **kwargs):
        raise OSError(30, "Read-only file system")

    monkeypatch.setattr(files, "write_atomic", refuse)
    res = ctx("mcp", "install", "gemini")  # said first, even when the write then fails
    assert res.code == 1 and res.err.splitlines()[0].startswith("ctx: warning: the MCP SDK is not installed")
    assert res.err.splitlines()[1] == f"ctx: error: cannot write {tmp_path / '.gemini' / 'settings.json'}: " \
                                      "Read-only file system"


def test_a_command_for_this_machine_goes_to_claudes_local_settings_a_portable_one_to_the_shared(
        ctx, tmp_path, monkeypatch):
    """The team commits .claude/settings.json: a ctx named by this machine's path goes to settings.local.json
    (Claude Code's file for one machine), and an old entry in the shared file moves there."""
    from context_router.faces import install

    shared, local = tmp_path / ".claude" / "settings.json", tmp_path / ".claude" / "settings.local.json"
    shared.parent.mkdir()
    shared.write_text(json.dumps({"model": "opus", "hooks": {"UserPromptSubmit": [{"hooks": [
        {"type": "command", "command": "/home/someone/venv/bin/ctx hook claude"}]}]}}))
    monkeypatch.setattr(install, "ctx_command", lambda running=None: ["/home/me/venv/bin/ctx"])
    res = ctx("hook", "install", "claude")
    assert res.code == 0 and f"in {local}" in res.out and f"removed the hook from {shared}" in res.out
    assert json.loads(shared.read_text()) == {"model": "opus"}
    assert "/home/me/venv/bin/ctx hook claude" in local.read_text()
    monkeypatch.setattr(install, "ctx_command", lambda running=None: ["ctx"])
    res = ctx("hook", "install", "claude")
    assert res.code == 0 and f"in {shared}" in res.out and f"removed the hook from {local}" in res.out
    assert json.loads(shared.read_text())["hooks"]["UserPromptSubmit"][0]["hooks"][0]["command"] == "ctx hook claude"
    assert not local.exists()
    assert "removed the hook from" in ctx("hook", "uninstall", "claude").out and shared.exists() is True


def test_a_machine_path_in_a_shared_file_of_another_host_is_said(ctx, tmp_path, monkeypatch):
    from context_router.faces import install

    monkeypatch.setattr(install, "ctx_command", lambda running=None: ["/home/me/venv/bin/ctx"])
    res = ctx("hook", "install", "codex")
    assert res.code == 0 and "now names this machine's ctx (/home/me/venv/bin/ctx): keep it out of the" in res.err
    monkeypatch.setattr(install, "ctx_command", lambda running=None: ["ctx"])
    assert "names this machine" not in ctx("hook", "install", "codex").err
