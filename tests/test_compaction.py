"""What the conversation holds after each client compacts or clears it, with the events in the order the real
clients fire them and their payloads shaped as they send them (recorded from Claude Code 2.1.197, Gemini CLI
0.61.0 and Codex CLI 0.171.0 against a loopback model server; tests/e2e drives the clients themselves)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from context_router.faces import hooks

from .test_hooks import hook

KESTREL = "━━━ [🔥 HOT] systems/kestrel.md (score: 1.00) ━━━"
TOPOLOGY = "## Topology"
ALREADY = "already in this conversation"
SID = "3dc1172c-2c86-4a6a-b4a6-e84f659c8865"


def claude(cwd: Path, event: str, **fields: str) -> bytes:
    data = {"session_id": SID, "transcript_path": f"/home/u/.claude/projects/-p/{SID}.jsonl", "cwd": str(cwd),
            "prompt_id": "7e61fa81-e038-45a7-8caf-30671f32f113", "hook_event_name": event, **fields}
    if event == "UserPromptSubmit":
        data["permission_mode"] = "default"
    return json.dumps(data).encode()


def gemini(cwd: Path, event: str, **fields: str) -> bytes:
    return json.dumps({"session_id": "75d4e806-fc3e-4a82-8463-8f4cd9414aed",
                       "transcript_path": "/home/u/.gemini/tmp/proj/chats/session-2026-12-01T23-51-75d4e806.jsonl",
                       "cwd": str(cwd), "hook_event_name": event, "timestamp": "2026-12-01T23:51:02.718Z",
                       **fields}).encode()


def codex(cwd: Path, event: str, **fields: str) -> bytes:
    return json.dumps({"session_id": "01a23405-1184-7b22-bd0a-f131b0450de0",
                       "turn_id": "01a23405-17c9-7ab3-b564-fdb06a1444d0",
                       "transcript_path": "/home/u/.codex/sessions/2026/12/01/rollout-01a23405.jsonl",
                       "cwd": str(cwd), "hook_event_name": event, "model": "fake-model",
                       "permission_mode": "bypassPermissions", **fields}).encode()


def answer(out: str) -> tuple[str | None, str]:
    if not out:
        return None, ""
    inner = json.loads(out)["hookSpecificOutput"]
    return inner["hookEventName"], inner["additionalContext"]


def block(text: str) -> str:
    return text.split(KESTREL)[1].split("━━━")[0] if KESTREL in text else ""


def test_claude_auto_compaction_puts_back_what_the_compacted_turn_named(sample):
    """Claude Code's auto-compaction: UserPromptSubmit, then compaction, then SessionStart `compact`, then the
    model request. What SessionStart answers reaches that request once: the doc the prompt's hook named."""
    hook("claude", claude(sample.parent, "UserPromptSubmit", prompt="is kestrel up?"))
    _, named = answer(hook("claude", claude(sample.parent, "UserPromptSubmit", prompt="kestrel again?"))[1])
    assert ALREADY in block(named) and TOPOLOGY not in block(named)
    code, out, err = hook("claude", claude(sample.parent, "SessionStart", source="compact", model="claude-opus-4-8"))
    event, restored = answer(out)
    assert (code, err, event) == (0, "", "SessionStart")
    assert TOPOLOGY in block(restored) and ALREADY not in block(restored)
    assert "[Turn 2]" in restored  # the compacted turn's view, not a new turn
    # Sent once: the next turn names it again, as the request history now holds it.
    _, after = answer(hook("claude", claude(sample.parent, "UserPromptSubmit", prompt="kestrel once more?"))[1])
    assert ALREADY in block(after) and TOPOLOGY not in block(after)


def test_claude_manual_compact_then_the_next_prompt_is_named_not_sent_twice(sample):
    """`/compact` fires SessionStart `compact` before the next prompt: its answer is in the history the next
    request sends, so the next prompt's hook names the doc."""
    hook("claude", claude(sample.parent, "UserPromptSubmit", prompt="is kestrel up?"))
    _, restored = answer(hook("claude", claude(sample.parent, "SessionStart", source="compact"))[1])
    assert TOPOLOGY in block(restored)
    _, after = answer(hook("claude", claude(sample.parent, "UserPromptSubmit", prompt="kestrel?"))[1])
    assert ALREADY in block(after)


def test_claude_compact_on_a_session_that_never_ran_says_nothing(sample, isolated_state):
    assert hook("claude", claude(sample.parent, "SessionStart", source="compact")) == (0, "", "")


def test_claude_clear_forgets(sample):
    hook("claude", claude(sample.parent, "UserPromptSubmit", prompt="is kestrel up?"))
    assert hook("claude", claude(sample.parent, "SessionStart", source="clear")) == (0, "", "")
    _, after = answer(hook("claude", claude(sample.parent, "UserPromptSubmit", prompt="kestrel?"))[1])
    assert TOPOLOGY in block(after)


def test_gemini_precompress_auto_fires_every_turn_and_forgets_nothing(sample):
    hook("gemini", gemini(sample.parent, "BeforeAgent", prompt="is kestrel up?"))
    assert hook("gemini", gemini(sample.parent, "PreCompress", trigger="auto")) == (0, "", "")
    _, second = answer(hook("gemini", gemini(sample.parent, "BeforeAgent", prompt="kestrel again?"))[1])
    assert ALREADY in block(second) and TOPOLOGY not in block(second)


def test_gemini_compress_forgets_and_runs_no_turn_on_the_command(sample):
    """`gemini -p /compress` fires PreCompress `manual`, then hands `/compress` to BeforeAgent as a prompt."""
    hook("gemini", gemini(sample.parent, "BeforeAgent", prompt="is kestrel up?"))
    assert hook("gemini", gemini(sample.parent, "PreCompress", trigger="manual")) == (0, "", "")
    for command in ("/compress", " /compact ", "/summarize"):
        assert hook("gemini", gemini(sample.parent, "BeforeAgent", prompt=command)) == (0, "", "")
    _, after = answer(hook("gemini", gemini(sample.parent, "BeforeAgent", prompt="kestrel?"))[1])
    assert TOPOLOGY in block(after) and ALREADY not in block(after)
    assert "[Turn 2]" in after  # `/compress` was no turn


@pytest.mark.parametrize("event", [dict(event="PostCompact", trigger="auto"),
                                   dict(event="SessionStart", source="compact"),
                                   dict(event="SessionStart", source="clear")])
def test_codex_compaction_events_come_before_the_prompt_and_forget(sample, event):
    """Codex CLI's auto-compaction fires PostCompact, then SessionStart `compact`, then UserPromptSubmit."""
    hook("codex", codex(sample.parent, "UserPromptSubmit", prompt="is kestrel up?"))
    fields = {k: v for k, v in event.items() if k != "event"}
    assert hook("codex", codex(sample.parent, event["event"], **fields)) == (0, "", "")
    _, after = answer(hook("codex", codex(sample.parent, "UserPromptSubmit", prompt="kestrel?"))[1])
    assert TOPOLOGY in block(after)


@pytest.mark.parametrize("host, data, kind", [
    ("claude", {"hook_event_name": "SessionStart", "source": "compact"}, hooks.RESTORE),
    ("claude", {"hook_event_name": "SessionStart", "source": "resume"}, hooks.IGNORE),
    ("claude", {"hook_event_name": "SessionStart", "source": "startup"}, hooks.IGNORE),
    ("gemini", {"hook_event_name": "SessionStart", "source": "compact"}, hooks.IGNORE),
    ("gemini", {"hook_event_name": "PreCompress", "trigger": "auto"}, hooks.IGNORE),
    ("gemini", {"hook_event_name": "PreCompress", "trigger": "manual"}, hooks.FORGET),
    ("codex", {"hook_event_name": "SessionStart", "source": "compact"}, hooks.FORGET),
    ("codex", {"hook_event_name": "PreCompact", "trigger": "auto"}, hooks.IGNORE),
])
def test_each_hosts_events(host, data, kind):
    assert hooks.parse_payload(host, json.dumps({"session_id": "s", **data}).encode())[0] == kind


@pytest.mark.parametrize("host, wanted", [
    ("claude", {"UserPromptSubmit": None, "SessionStart": "compact|clear",
                "PostToolUse": "Read|Edit|MultiEdit|Write|NotebookEdit"}),
    ("gemini", {"BeforeAgent": None, "SessionStart": "clear", "PreCompress": "manual",
                "AfterTool": "read_file|read_many_files|write_file|replace"}),
    ("codex", {"UserPromptSubmit": None, "SessionStart": "compact|clear", "PostCompact": None,
               "PostToolUse": "apply_patch|Bash"}),
])
def test_install_registers_what_each_clients_compaction_needs_and_uninstall_removes_it(tmp_path, host, wanted):
    """Each host's prompt event, its compaction and clear events, and its after-tool event for file tools."""
    from context_router.faces.install import HOOK_FILES, install_hook, uninstall_hook

    path = tmp_path / HOOK_FILES[host]
    assert install_hook(host, str(path), "ctx hook " + host)[0] == "added"
    groups = json.loads(path.read_text())["hooks"]
    assert {event: g[0].get("matcher") for event, g in groups.items()} == wanted
    assert all(len(g) == 1 and g[0]["hooks"][0]["command"] == "ctx hook " + host for g in groups.values())
    assert install_hook(host, str(path), "ctx hook " + host)[0] == "unchanged"
    assert uninstall_hook(host, str(path)) and not path.exists()


def transcript(folder: Path, *inputs: int) -> Path:
    """Gemini CLI's session file as it writes it: JSON lines, each reply with its token counts."""
    path = folder / "session-2026-12-01T23-51-75d4e806.jsonl"
    lines = [{"sessionId": "75d4e806", "projectHash": "744c", "startTime": "2026-12-01T23:51:02.713Z",
              "kind": "main"}]
    for n in inputs:
        lines += [{"id": "u", "type": "user", "content": [{"text": "q"}], "displayContent": [{"text": "q"}]},
                  {"id": "g", "type": "gemini", "content": "a", "thoughts": [],
                   "tokens": {"input": n, "output": 10, "cached": 0, "thoughts": 0, "tool": 0, "total": n + 10},
                   "model": "gemini-3.8-flash"},
                  {"$set": {"lastUpdated": "2026-12-01T23:51:02.823Z"}}]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


def test_gemini_turn_that_will_compress_sends_in_full(sample, tmp_path):
    """No hook hears Gemini CLI's auto-compression: it runs after BeforeAgent when the last request's prompt
    tokens reached half the window. The transcript says so beforehand."""
    chats = tmp_path / "chats"
    chats.mkdir()
    hook("gemini", gemini(sample.parent, "BeforeAgent", prompt="is kestrel up?"))
    small = transcript(chats, 50, 4_000)
    _, named = answer(hook("gemini", json.dumps({**json.loads(gemini(sample.parent, "BeforeAgent", prompt="kestrel?")),
                                                 "transcript_path": str(small)}).encode())[1])
    assert ALREADY in block(named)
    big = transcript(chats, 50, 600_000)
    _, sent = answer(hook("gemini", json.dumps({**json.loads(gemini(sample.parent, "BeforeAgent", prompt="kestrel?")),
                                                "transcript_path": str(big)}).encode())[1])
    assert TOPOLOGY in block(sent) and ALREADY not in block(sent)


@pytest.mark.parametrize("tokens, threshold, compresses", [
    (None, None, False), (524_287, None, False), (524_288, None, True), (300_000, 0.25, True),
    (200_000, 0.25, False), (300_000, "high", False),
])
def test_gemini_compression_threshold(tmp_path, monkeypatch, tokens, threshold, compresses):
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    if threshold is not None:
        (tmp_path / ".gemini").mkdir()
        (tmp_path / ".gemini" / "settings.json").write_text(json.dumps({"model": {"compressionThreshold": threshold}}))
    path = transcript(tmp_path, *([tokens] if tokens is not None else []))
    assert hooks.gemini_will_compress(str(path), str(tmp_path)) is compresses
    assert hooks.gemini_will_compress(str(tmp_path / "missing.jsonl"), str(tmp_path)) is False
    assert hooks.gemini_will_compress(None, str(tmp_path)) is False
