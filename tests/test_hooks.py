"""The editor hook contract, the settings installer, and the hook path's imports."""

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from context_router.faces.hooks import run_hook
from context_router.faces.install import install_hook, uninstall_hook

from .conftest import CLAUDE_SETTINGS, REPO


def hook(host: str, payload: bytes, *args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = run_hook(host, list(args), stdin=io.BytesIO(payload), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def payload(prompt, cwd: Path, session="s-1", **extra) -> bytes:
    data = {"session_id": session, "transcript_path": "/tmp/t.jsonl", "cwd": str(cwd),
            "permission_mode": "default", "hook_event_name": "UserPromptSubmit", "prompt": prompt, **extra}
    return json.dumps(data).encode()


def test_claude_hook_valid_input(sample):
    code, out, err = hook("claude", payload("is lighthouse ok?", sample.parent, extra_field=[1, 2]))
    assert code == 0 and err == ""
    data = json.loads(out)
    assert data["hookSpecificOutput"]["hookEventName"] == "UserPromptSubmit"
    context = data["hookSpecificOutput"]["additionalContext"]
    assert "━━━ [🔥 HOT] systems/lighthouse.md (score: 1.00) ━━━" in context
    assert "/ 10,000 " in context


def test_claude_hook_prints_nothing_when_all_cold(sample):
    code, out, err = hook("claude", payload("hello there", sample.parent))
    assert code == 0 and err == ""
    assert "overview.md" in json.loads(out)["hookSpecificOutput"]["additionalContext"]  # pinned WARM
    (sample.parent / "config.yaml").write_text("docs: docs-sample\npinned: []\n")
    assert hook("claude", payload("hello there", sample.parent, session="s-2"))[1] == ""


@pytest.mark.parametrize("raw, message", [
    (b"{not json", "ctx: hook input is not valid JSON"),
    (b"\xff\xfe\x00binary", "ctx: hook input is not UTF-8 text"),
    (b"[1, 2]", "ctx: hook input is not a JSON object"),
    (b'{"session_id": "x"}', "ctx: hook input has no string 'prompt'"),
    (b'{"prompt": 42}', "ctx: hook input has no string 'prompt'"),
    (b'{"prompt": "hi", "cwd": "/nonexistent/dir"}', "ctx: hook cwd is not a folder: /nonexistent/dir"),
])
def test_claude_hook_bad_input_never_fails(raw, message):
    code, out, err = hook("claude", raw)
    assert (code, out) == (0, "")
    assert err.startswith(message) and err.count("\n") == 1


def test_claude_hook_missing_docs_or_broken_config(tmp_path):
    (tmp_path / "config.yaml").write_text("docs: nowhere\n")
    code, out, err = hook("claude", payload("x", tmp_path))
    assert (code, out) == (0, "") and err.startswith("ctx: docs folder not found")
    (tmp_path / "config.yaml").write_text("tiers: {hot: {threshold: 9}}\n")
    code, out, err = hook("claude", payload("x", tmp_path))
    assert (code, out) == (0, "") and "tiers.hot.threshold" in err and err.count("\n") == 1


def test_empty_prompt_does_not_advance(sample, ctx):
    assert hook("claude", payload("   ", sample.parent)) == (0, "", "")
    status = json.loads(ctx("status", "--json", "--config", str(sample), "--session", "s-1").out)
    assert status["turn"] == 0


def test_sessions_are_isolated(sample, ctx):
    hook("claude", payload("lighthouse", sample.parent, session="a"))
    hook("claude", payload("vault", sample.parent, session="b"))
    hook("claude", payload("kestrel", sample.parent, session="a"))
    a = json.loads(ctx("status", "--json", "--config", str(sample), "--session", "a").out)
    b = json.loads(ctx("status", "--json", "--config", str(sample), "--session", "b").out)
    assert (a["turn"], b["turn"]) == (2, 1)
    assert "systems/vault.md" not in {f["path"] for f in a["files"]}
    b_files = {f["path"]: f["score"] for f in b["files"]}
    assert b_files["systems/vault.md"] == 1.0 and "systems/kestrel.md" not in b_files


def test_hook_budget_is_capped_at_10000(tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    for i in range(6):
        (docs / f"big{i}.md").write_text(f"# Big{i}\n" + "lorem ipsum dolor\n" * 500)
    (tmp_path / "config.yaml").write_text("docs: docs\nrate_limit: {turns_per_minute: 0}\n")
    prompt = " ".join(f"big{i}" for i in range(6))
    context = json.loads(hook("claude", payload(prompt, tmp_path))[1])["hookSpecificOutput"]["additionalContext"]
    assert len(context) <= 10000
    (tmp_path / "config.yaml").write_text("docs: docs\nbudget_chars: 4000\nhosts: {claude: {budget_chars: 50000}}\n")
    context = json.loads(hook("claude", payload(prompt, tmp_path, session="z"))[1])
    assert len(context["hookSpecificOutput"]["additionalContext"]) <= 4000  # the smaller of the two


def test_plain_hook(sample):
    code, out, err = hook("plain", b"the kestrel dome", "--config", str(sample))
    assert code == 0 and out.startswith("╔══ ATTENTION STATE") and "HOT] systems/kestrel.md" in out
    assert hook("plain", b"\xff\xfe") == (0, "", "ctx: hook input is not UTF-8 text\n")
    assert hook("plain", b"x", "--bogus")[2] == "ctx: unknown hook option '--bogus'\n"


def test_install_merges_and_is_idempotent(tmp_path):
    settings = tmp_path / ".claude" / "settings.json"
    path = str(settings)
    settings.parent.mkdir()
    existing = {"model": "opus", "hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "other"}]}],
                                           "Stop": [{"hooks": [{"type": "command", "command": "x"}]}]}}
    settings.write_text(json.dumps(existing))
    assert install_hook("claude", path, "ctx hook claude") == ("added", [])
    assert install_hook("claude", path, "ctx hook claude") == ("unchanged", [])
    data = json.loads(settings.read_text())
    assert data["model"] == "opus" and data["hooks"]["Stop"] == existing["hooks"]["Stop"]
    commands = [h["command"] for g in data["hooks"]["UserPromptSubmit"] for h in g["hooks"]]
    assert commands == ["other", "ctx hook claude"]
    assert uninstall_hook("claude", path) is True and uninstall_hook("claude", path) is False
    assert json.loads(settings.read_text()) == existing
    assert not list(settings.parent.glob("*.tmp"))


def test_hook_command_names_a_ctx_off_path(tmp_path, monkeypatch):
    """The command runs whatever the PATH: `ctx` only for a ctx in a folder every shell has on PATH, else the
    ctx's full path (a virtual environment's)."""
    from context_router.faces.install import _is_ours, hook_command

    script = tmp_path / "venv dir" / "bin" / "ctx"
    script.parent.mkdir(parents=True)
    script.write_text("#!/bin/sh\n")
    script.chmod(0o755)
    monkeypatch.setenv("PATH", "/nonexistent")
    command = hook_command("claude", str(script))
    assert command == f"'{script}' hook claude" and _is_ours("claude")({"command": command})
    monkeypatch.setenv("PATH", str(script.parent))  # an active virtual environment: still the full path
    assert hook_command("claude", str(script)) == command
    user_bin = tmp_path / "home" / ".local" / "bin"
    user_bin.mkdir(parents=True)
    (user_bin / "ctx").write_text("#!/bin/sh\n")
    (user_bin / "ctx").chmod(0o755)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("PATH", f"{user_bin}:/usr/bin")
    assert hook_command("gemini", str(user_bin / "ctx")) == "ctx hook gemini"  # pipx's or pip --user's: shareable
    assert not _is_ours("claude")({"command": "other hook claude"})
    assert not _is_ours("claude")({"command": "ctx route x"}) and not _is_ours("claude")({"command": "ctx hook codex"})
    assert _is_ours("codex")({"command": "/usr/bin/python3 -m context_router hook codex"})


def test_install_cli_and_bad_settings(ctx, tmp_path):
    res = ctx("hook", "install", "claude")
    assert res.code == 0 and f"in {tmp_path}/{CLAUDE_SETTINGS}" in res.out and res.out.startswith("installed `")
    assert "already" in ctx("hook", "install", "claude").out
    (tmp_path / CLAUDE_SETTINGS).write_text("{broken")
    res = ctx("hook", "install", "claude")
    assert res.code == 2 and f"cannot read {tmp_path}/{CLAUDE_SETTINGS}" in res.err
    assert (tmp_path / CLAUDE_SETTINGS).read_text() == "{broken"  # nothing lost


def test_install_writes_to_the_project_root_and_replaces_another_router(ctx, tmp_path, monkeypatch):
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    (root / "src").mkdir()
    settings = root / ".claude" / "settings.json"
    settings.parent.mkdir()
    router = "python3 ~/.claude/scripts/context-router-v2.py"
    settings.write_text(json.dumps({"hooks": {"UserPromptSubmit": [
        {"hooks": [{"type": "command", "command": router}, {"type": "command", "command": "pool-auto-update"}]}]}}))
    monkeypatch.chdir(root / "src")
    res = ctx("hook", "install", "claude")
    assert res.code == 0 and str(root / CLAUDE_SETTINGS) in res.out
    assert f"another context router's hook is installed too: {router}" in res.err and "--replace" in res.err
    res = ctx("hook", "install", "claude", "--replace")
    assert res.code == 0 and f"removed another context router's hook: {router}" in res.out
    commands = [h["command"] for path in {settings, root / CLAUDE_SETTINGS}
                for g in json.loads(path.read_text())["hooks"]["UserPromptSubmit"] for h in g["hooks"]]
    assert "pool-auto-update" in commands and router not in commands and len(commands) == 2
    assert any(c.endswith(" hook claude") for c in commands)


def test_uninstall_removes_a_settings_file_it_left_empty(ctx, tmp_path):
    assert ctx("hook", "install", "claude").code == 0
    assert ctx("hook", "uninstall", "claude").code == 0
    assert not (tmp_path / CLAUDE_SETTINGS).exists()


HEAVY = ("rich", "typer", "tiktoken", "numpy", "yaml", "pathspec", "watchdog",
         # and the standard modules whose import alone would cost the hook turn its speed target
         "re", "json", "pathlib", "typing", "dataclasses", "inspect", "datetime", "sqlite3")


@pytest.mark.parametrize("ignore_file", [False, True])
def test_hook_path_imports_nothing_heavy(sample, ignore_file):
    """A warm hook turn (config cached, index built) has none of the heavy modules loaded; with a .gitignore,
    the ignore files are matched only against paths they have not answered yet."""
    if ignore_file:
        (sample.parent / "docs-sample" / ".gitignore").write_text("drafts/\n")
    probe = (
        "import io, sys\n"
        "before = set(sys.modules)  # what the interpreter and its site hooks loaded, not the turn\n"
        "from context_router.faces.hooks import run_hook\n"
        f"raw = {payload('lighthouse please', sample.parent)!r}\n"
        "out = io.StringIO()\n"
        "run_hook('claude', [], stdin=io.BytesIO(raw), stdout=out, stderr=sys.stderr)\n"
        "assert 'lighthouse' in out.getvalue()\n"
        f"print(repr([m for m in {HEAVY!r} if m in set(sys.modules) - before]))\n"
    )
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    first = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env, timeout=60)
    assert first.returncode == 0, first.stderr
    assert "yaml" in first.stdout  # the first turn parses config.yaml and the front matter
    res = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env, timeout=60)
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip() == "[]"


@pytest.mark.parametrize("raw", [b"{bad", b"[1,", b'{"prompt": "x"} trailing', b"", b"\x00\x01"])
def test_bad_json_in_a_fresh_process(raw, tmp_path):
    """In a process that never imported json, the C scanner's error path must still end in one clean line."""
    res = subprocess.run([sys.executable, "-m", "context_router", "hook", "claude"], input=raw, cwd=tmp_path,
                         capture_output=True, timeout=60, env={**os.environ, "PYTHONPATH": str(REPO)})
    assert (res.returncode, res.stdout) == (0, b"")
    err = res.stderr.decode()
    assert err.startswith("ctx: hook input is not ") and err.count("\n") == 1, err


def test_console_script_hook_subprocess(sample):
    """The real entry point, as the editor runs it."""
    res = subprocess.run([sys.executable, "-m", "context_router", "hook", "claude"],
                         input=payload("vault", sample.parent), capture_output=True, timeout=60,
                         env={**os.environ, "PYTHONPATH": str(REPO)})
    assert res.returncode == 0
    assert "systems/vault.md" in json.loads(res.stdout)["hookSpecificOutput"]["additionalContext"]


def test_hook_through_the_typer_app(sample, monkeypatch, capsys):
    from context_router.faces.cli import run

    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"the kestrel dome")))
    assert run(["hook", "plain", "--config", str(sample), "--session", "t"]) == 0
    assert "HOT] systems/kestrel.md" in capsys.readouterr().out
