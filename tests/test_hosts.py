"""The prompt hooks of Gemini CLI, Codex CLI and Cline: each host's payload as its schema has it, its answer,
its budget unit, its session id, its compaction and clear signals, and every error path."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from context_router.faces.hooks import run_hook

from .conftest import REPO


def gemini(prompt, cwd: Path, session="g-1", event="BeforeAgent", **extra) -> bytes:
    """Gemini CLI's BeforeAgent input (packages/core/src/hooks/types.ts)."""
    data = {"session_id": session, "transcript_path": "/tmp/chats/session.json", "cwd": str(cwd),
            "hook_event_name": event, "timestamp": "2026-03-01T10:00:00.000Z", **extra}
    if event == "BeforeAgent":
        data["prompt"] = prompt
    return json.dumps(data).encode()


def codex(prompt, cwd: Path, session="0199a8f2-codex", event="UserPromptSubmit", **extra) -> bytes:
    """Codex CLI's UserPromptSubmit input (user-prompt-submit.command.input.schema.json: every field required)."""
    data = {"session_id": session, "turn_id": "turn-1", "transcript_path": None, "cwd": str(cwd),
            "hook_event_name": event, "model": "gpt-5-codex", "permission_mode": "default", **extra}
    if event == "UserPromptSubmit":
        data["prompt"] = prompt
    return json.dumps(data).encode()


def cline(prompt, cwd: Path, task="1767225600000", hook="UserPromptSubmit") -> bytes:
    """Cline's UserPromptSubmit input (.clinerules/hooks/README.md)."""
    data = {"clineVersion": "3.36.0", "hookName": hook, "timestamp": "1767225600000", "taskId": task,
            "workspaceRoots": [str(cwd)], "userId": "user-1"}
    if hook == "UserPromptSubmit":
        data["userPromptSubmit"] = {"prompt": prompt, "attachments": []}
    return json.dumps(data).encode()


PAYLOADS = {"gemini": gemini, "codex": codex, "cline": cline}


def hook(host: str, payload: bytes, *args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = run_hook(host, list(args), stdin=io.BytesIO(payload), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def context_of(host: str, out: str) -> str:
    data = json.loads(out)
    if host == "cline":
        assert set(data) == {"cancel", "contextModification", "errorMessage"} and data["cancel"] is False
        assert data["errorMessage"] == ""
        return str(data["contextModification"])
    assert set(data) == {"hookSpecificOutput"}
    assert data["hookSpecificOutput"]["hookEventName"] == ("BeforeAgent" if host == "gemini" else "UserPromptSubmit")
    return str(data["hookSpecificOutput"]["additionalContext"])


@pytest.mark.parametrize("host", ["gemini", "codex", "cline"])
def test_each_host_answers_with_its_json_and_the_named_doc(sample, host):
    code, out, err = hook(host, PAYLOADS[host]("is lighthouse ok?", sample.parent))
    assert (code, err) == (0, "")
    context = context_of(host, out)  # nothing but the host's JSON on stdout
    assert "━━━ [🔥 HOT] systems/lighthouse.md (score: 1.00) ━━━" in context and "/ 10,000 " in context


@pytest.mark.parametrize("host", ["gemini", "codex", "cline"])
def test_the_host_session_id_names_the_session(sample, ctx, host):
    hook(host, PAYLOADS[host]("lighthouse", sample.parent, "s-a"))
    hook(host, PAYLOADS[host]("vault", sample.parent, "s-b"))
    hook(host, PAYLOADS[host]("kestrel", sample.parent, "s-a"))
    a = json.loads(ctx("status", "--json", "--config", str(sample), "--session", "s-a").out)
    b = json.loads(ctx("status", "--json", "--config", str(sample), "--session", "s-b").out)
    assert (a["turn"], b["turn"]) == (2, 1)
    assert "systems/vault.md" not in {f["path"] for f in a["files"]}


def test_codex_context_fits_10000_utf8_bytes(tmp_path):
    """Codex estimates tokens as bytes / 4 and spills text over 2,500 of them to a file: three docs of 2,500
    chars (3,700 bytes: emoji count four) fit whole in Gemini CLI's 10,000 characters, not in Codex's bytes."""
    docs = tmp_path / "docs"
    docs.mkdir()
    for i in range(3):
        (docs / f"big{i}.md").write_text(f"# Big{i}\n\n" + "".join(f"line {j} 🚀🚀 été\n" for j in range(160)),
                                         encoding="utf-8")
    (tmp_path / "config.yaml").write_text("docs: docs\nrate_limit: {turns_per_minute: 0}\n")
    prompt = "big0 big1 big2"
    wide = context_of("gemini", hook("gemini", gemini(prompt, tmp_path))[1])
    assert wide.count("line 159 ") == 3 and len(wide) <= 10000 < len(wide.encode("utf-8"))
    narrow = context_of("codex", hook("codex", codex(prompt, tmp_path))[1])
    assert "HOT] big0.md" in narrow and len(narrow.encode("utf-8")) <= 10000


@pytest.mark.parametrize("host", ["gemini", "codex", "cline"])
@pytest.mark.parametrize("raw, message", [
    (b"", "ctx: hook input is not valid JSON"),
    (b"{not json", "ctx: hook input is not valid JSON"),
    (b"\xff\xfe\x00binary", "ctx: hook input is not UTF-8 text"),
    (b"[1, 2]", "ctx: hook input is not a JSON object"),
])
def test_bad_input_never_fails(host, raw, message):
    code, out, err = hook(host, raw)
    assert code == 0 and err.startswith(message) and err.count("\n") == 1
    # Cline's hooks are expected to answer: a plain "go on"; the others print nothing at all.
    assert out == ('{"cancel": false, "contextModification": "", "errorMessage": ""}' if host == "cline" else "")


@pytest.mark.parametrize("host, payload, message", [
    ("gemini", b'{"session_id": "x", "hook_event_name": "BeforeAgent"}', "ctx: hook input has no string 'prompt'"),
    ("codex", b'{"session_id": "x", "prompt": 42}', "ctx: hook input has no string 'prompt'"),
    ("cline", b'{"taskId": "x", "hookName": "UserPromptSubmit", "userPromptSubmit": "hi"}',
     "ctx: hook input has no string 'prompt'"),
    ("gemini", b'{"prompt": "hi", "cwd": "/nonexistent/dir"}', "ctx: hook cwd is not a folder: /nonexistent/dir"),
    ("cline", b'{"userPromptSubmit": {"prompt": "hi"}, "workspaceRoots": ["/nonexistent/dir"]}',
     "ctx: hook cwd is not a folder: /nonexistent/dir"),
])
def test_payloads_missing_their_fields(host, payload, message):
    code, out, err = hook(host, payload)
    assert code == 0 and err == message + "\n"
    assert out == ("" if host != "cline" else '{"cancel": false, "contextModification": "", "errorMessage": ""}')


@pytest.mark.parametrize("host", ["gemini", "codex", "cline"])
def test_a_huge_prompt_is_matched_on_its_start(sample, host):
    prompt = "lighthouse " + "word " * 400_000  # 2 MB
    code, out, err = hook(host, PAYLOADS[host](prompt, sample.parent))
    assert code == 0 and "systems/lighthouse.md" in context_of(host, out)
    assert err == "ctx: note: prompt is 2,000,011 characters; matched on its first 20,000\n"


@pytest.mark.parametrize("host", ["gemini", "codex", "cline"])
def test_closed_streams(sample, monkeypatch, host):
    payload = PAYLOADS[host]("lighthouse", sample.parent)

    class Gone(io.StringIO):
        def write(self, text: str) -> int:
            raise BrokenPipeError(32, "Broken pipe")

    out = io.StringIO()
    monkeypatch.setattr(sys, "stdin", None)  # started with stdin closed: nothing asked, nothing answered
    assert run_hook(host, [], stdout=out, stderr=io.StringIO()) == 0 and out.getvalue() == ""
    err = io.StringIO()  # the host stopped reading: no traceback, nothing to complain about
    assert run_hook(host, [], stdin=io.BytesIO(payload), stdout=Gone(), stderr=err) == 0 and err.getvalue() == ""
    out = io.StringIO()  # nowhere to say what went wrong: still exit 0
    assert run_hook(host, [], stdin=io.BytesIO(b"{bad"), stdout=out, stderr=Gone()) == 0
    assert out.getvalue() in ("", '{"cancel": false, "contextModification": "", "errorMessage": ""}')


def test_empty_and_closed_streams_in_a_fresh_process(sample):
    """As the host may start it: stdin empty, stdin closed, stdout closed."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    for host in ("gemini", "codex", "cline"):
        argv = [sys.executable, "-m", "context_router", "hook", host]
        res = subprocess.run(argv, stdin=subprocess.DEVNULL, cwd=sample.parent, capture_output=True, timeout=60,
                             env=env)
        assert res.returncode == 0 and res.stderr.decode().startswith("ctx: hook input is not valid JSON"), host
    # Cline's hook always answers; with nothing to read, or nowhere to write, it still ends quietly.
    res = subprocess.run(argv, cwd=sample.parent, capture_output=True, timeout=60, env=env,
                         preexec_fn=lambda: os.close(0))
    assert (res.returncode, res.stdout, res.stderr) == (0, b"", b"")
    res = subprocess.run(argv, input=cline("vault", sample.parent), stderr=subprocess.PIPE, cwd=sample.parent,
                         timeout=60, env=env, preexec_fn=lambda: os.close(1))
    assert (res.returncode, res.stderr) == (0, b"")


@pytest.mark.parametrize("host, payload", [
    ("gemini", lambda cwd: gemini("", cwd, event="SessionStart", source="clear")),
    ("codex", lambda cwd: codex("", cwd, event="SessionStart", source="clear")),
    ("codex", lambda cwd: codex("", cwd, event="PostCompact", trigger="auto")),
    ("codex", lambda cwd: codex("", cwd, event="SessionStart", source="compact")),
    ("cline", lambda cwd: cline("", cwd, hook="PreCompact")),
])
def test_compaction_and_clear_reach_forget_session(sample, monkeypatch, host, payload):
    from context_router import router

    forgotten: list[tuple] = []
    monkeypatch.setattr(router, "forget_session", lambda *args: forgotten.append(args))
    code, out, err = hook(host, payload(sample.parent))
    assert (code, err) == (0, "")
    assert out == ("" if host != "cline" else '{"cancel": false, "contextModification": "", "errorMessage": ""}')
    assert len(forgotten) == 1 and forgotten[0][1] == str(sample) and forgotten[0][3] == str(sample.parent)


@pytest.mark.parametrize("host, payload", [
    ("gemini", lambda cwd: gemini("", cwd, event="SessionStart", source="startup")),
    ("gemini", lambda cwd: gemini("", cwd, event="AfterAgent", prompt_response="y")),
    ("gemini", lambda cwd: gemini("", cwd, event="PreCompress", trigger="auto")),
    ("gemini", lambda cwd: gemini("", cwd, event="PreCompress", trigger="manual")),
    ("gemini", lambda cwd: gemini("/compress", cwd)),
    ("codex", lambda cwd: codex("", cwd, event="SessionStart", source="resume")),
    ("codex", lambda cwd: codex("", cwd, event="Stop")),
    ("cline", lambda cwd: cline("", cwd, hook="TaskStart")),
])
def test_other_events_are_left_alone(sample, monkeypatch, isolated_state, host, payload):
    from context_router import router

    monkeypatch.setattr(router, "forget_session", lambda *args: pytest.fail("nothing to forget"))
    code, out, err = hook(host, payload(sample.parent))
    assert (code, err) == (0, "")
    assert out == ("" if host != "cline" else '{"cancel": false, "contextModification": "", "errorMessage": ""}')
    assert not isolated_state.exists()  # no turn ran


def test_a_project_without_ctx_is_left_untouched(tmp_path):
    (tmp_path / ".git").mkdir()
    for host in ("gemini", "codex"):
        assert hook(host, PAYLOADS[host]("hello", tmp_path)) == (0, "", "")
    assert hook("cline", cline("hello", tmp_path))[1:] == (
        '{"cancel": false, "contextModification": "", "errorMessage": ""}', "")
    assert not (tmp_path / ".ctx").exists()


def test_gemini_finds_the_project_it_names(sample, tmp_path, monkeypatch):
    """Gemini CLI runs hooks from the session's cwd and names the project in $GEMINI_PROJECT_DIR."""
    elsewhere = tmp_path / "elsewhere"
    (elsewhere / ".git").mkdir(parents=True)
    monkeypatch.setenv("GEMINI_PROJECT_DIR", str(sample.parent))
    assert "systems/vault.md" in context_of("gemini", hook("gemini", gemini("vault", elsewhere))[1])


def test_hook_dry_run_saves_nothing(sample, ctx):
    """How `ctx doctor` tries an installed hook."""
    code, out, err = hook("codex", codex("vault", sample.parent), "--dry-run")
    assert code == 0 and "systems/vault.md" in context_of("codex", out)
    status = json.loads(ctx("status", "--json", "--config", str(sample), "--session", "0199a8f2-codex").out)
    assert status["turn"] == 0


def test_new_hosts_take_the_fast_path(sample):
    """A warm turn for each host loads none of the heavy modules (typer, rich, json, re...)."""
    from .test_hooks import HEAVY

    probe = (
        "import io, sys\n"
        "before = set(sys.modules)\n"
        "from context_router.entry import main\n"
        f"payloads = {{'gemini': {gemini('lighthouse', sample.parent)!r}, 'codex': {codex('vault', sample.parent)!r},"
        f" 'cline': {cline('kestrel', sample.parent)!r}}}\n"
        "for host, raw in payloads.items():\n"
        "    sys.stdin = io.TextIOWrapper(io.BytesIO(raw))\n"
        "    out = io.StringIO(); real = sys.stdout; sys.stdout = out\n"
        "    main(['hook', host]); sys.stdout = real\n"
        "    assert out.getvalue().startswith('{'), (host, out.getvalue())\n"
        f"print(repr([m for m in {HEAVY!r} if m in set(sys.modules) - before]))\n"
    )
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    for _ in range(2):  # the first run parses config.yaml and the docs; the second is a warm turn
        res = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env, timeout=60)
        assert res.returncode == 0, res.stderr
    assert res.stdout.strip() == "[]"
