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


class GeminiSession:
    """Gemini CLI's session file, written as the client writes it (recorded from 0.61.0): each process's header
    and the history it resumes set anew, a record per message (the prompt with ctx's block as a part of it,
    `<` and `>` escaped, recorded after BeforeAgent), and a compression's history set anew."""

    def __init__(self, folder: Path, cwd: Path) -> None:
        self.path = folder / "session-2026-12-01T23-51-75d4e806.jsonl"
        self.cwd = cwd
        self.messages: list[dict] = []
        self.n = 0
        self.start()

    def write(self, record: dict) -> None:
        with self.path.open("a", encoding="utf-8") as fh:
            fh.write(json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n")

    def start(self) -> None:
        """A process starts: its header, then the history it resumes (the session context first)."""
        self.write({"sessionId": "75d4e806", "projectHash": "744c", "startTime": "2026-12-01T23:51:02.713Z",
                    "lastUpdated": "2026-12-01T23:51:02.713Z", "kind": "main"})
        context = {"id": "ctx0", "type": "user", "content": [{"text": "<session_context>\nThis is the Gemini CLI."}]}
        kept = [m for m in self.messages if not m["content"][0]["text"].startswith(("/", "<session_context>"))]
        self.messages = [context, *kept]
        self.write({"$set": {"messages": self.messages, "lastUpdated": "2026-12-01T23:51:02.714Z"}})

    def add(self, kind: str, content: list[dict], **fields: object) -> None:
        self.n += 1
        message = {"id": f"m{self.n}", "timestamp": "2026-12-01T23:51:03.000Z", "type": kind, "content": content,
                   **fields}
        self.messages.append(message)
        self.write(message)
        self.write({"$set": {"lastUpdated": "2026-12-01T23:51:03.001Z"}})

    def prompt(self, text: str, tokens: int = 50, event: str = "BeforeAgent") -> str:
        """One prompt: BeforeAgent, then the prompt with ctx's block recorded, then the reply and its tokens."""
        data = {**json.loads(gemini(self.cwd, event, prompt=text)), "transcript_path": str(self.path)}
        code, out, err = hook("gemini", json.dumps(data).encode())
        assert (code, err) == (0, "")
        _, context = answer(out)
        escaped = context.replace("<", "&lt;").replace(">", "&gt;")
        self.add("user", [{"text": text}, *([{"text": f"<hook_context>{escaped}</hook_context>"}] if context else [])])
        self.add("gemini", [{"text": "ok"}], thoughts=[], model="gemini-3.8-flash",
                 tokens={"input": tokens, "output": 10, "cached": 0, "thoughts": 0, "tool": 0, "total": tokens + 10})
        return context

    def compress(self, keep: int) -> None:
        """The client's compression: a summary in place of the history but its last `keep` messages."""
        tail = self.messages[len(self.messages) - keep:] if keep else []
        self.messages = [self.messages[0], {"id": "sum", "type": "user", "content": [{"text": "<state_snapshot>"}]},
                         {"id": "got", "type": "gemini", "content": [{"text": "Got it."}]}, *tail]
        self.write({"$set": {"sessionId": "75d4e806"}})
        self.write({"$set": {"messages": self.messages, "lastUpdated": "2026-12-01T23:51:04.000Z"}})


VAULT = "━━━ [🔥 HOT] systems/vault.md (score: 1.00) ━━━"


def block_of(text: str, title: str) -> str:
    return text.split(title)[1].split("━━━")[0] if title in text else ""


@pytest.fixture
def session(sample, tmp_path):
    return GeminiSession(tmp_path, sample.parent)


def test_gemini_precompress_fires_whether_or_not_it_compresses_and_forgets_nothing(session):
    session.prompt("is kestrel up?")
    for trigger in ("auto", "manual"):
        assert hook("gemini", gemini(session.cwd, "PreCompress", trigger=trigger,
                                     transcript_path=str(session.path))) == (0, "", "")
    second = session.prompt("kestrel again?")
    assert ALREADY in block(second) and TOPOLOGY not in block(second)


def test_gemini_p_compress_compresses_nothing_so_the_doc_is_named(session):
    """`gemini -p /compress`: PreCompress `manual`, `/compress` to BeforeAgent and to the model as a prompt,
    and the process ends before the compression does. The next `--resume` has the whole history (less the
    command): the doc is there once, so it is named, not sent again."""
    session.prompt("is kestrel up?")
    assert hook("gemini", gemini(session.cwd, "PreCompress", trigger="manual")) == (0, "", "")
    for command in ("/compress", " /compact ", "/summarize"):
        assert session.prompt(command) == ""
    session.start()
    after = session.prompt("kestrel?")
    assert ALREADY in block(after) and TOPOLOGY not in block(after)
    assert "[Turn 2]" in after  # `/compress` was no turn


def test_gemini_compression_read_from_the_session_file_sends_the_doc_once(session):
    """A compression the session file records (`/compress` in the interactive client, or an automatic one in
    an earlier request): the summarised turns' docs are sent again, once."""
    session.prompt("is kestrel up?")
    assert ALREADY in block(session.prompt("kestrel again?"))
    session.compress(keep=0)
    sent = session.prompt("kestrel?")
    assert TOPOLOGY in block(sent) and ALREADY not in block(sent)
    assert ALREADY in block(session.prompt("kestrel once more?"))
    session.start()  # a resumed session reads the compressed history back
    assert ALREADY in block(session.prompt("and kestrel now?"))


def test_gemini_compression_keeps_its_recent_turns_and_their_docs(session):
    session.prompt("is the vault sealed?")
    first = session.prompt("is kestrel up?")
    assert TOPOLOGY in block(first)
    session.compress(keep=2)  # the kestrel prompt and its reply are kept
    kept = session.prompt("kestrel again?")
    assert ALREADY in block(kept) and TOPOLOGY not in block(kept)
    vault = session.prompt("the vault again?")
    assert VAULT in vault and ALREADY not in block_of(vault, VAULT)


def test_gemini_rewind_drops_what_it_rewinds(session):
    session.prompt("is kestrel up?")
    session.write({"$rewindTo": "m1"})
    assert TOPOLOGY in block(session.prompt("kestrel?"))


@pytest.mark.parametrize("transcript", [None, "missing.jsonl", "garbled.jsonl"])
def test_gemini_history_it_cannot_read_is_sent_to_in_full(session, transcript):
    """A client whose history ctx cannot read falls back to sending, not naming."""
    session.prompt("is kestrel up?")
    (session.path.parent / "garbled.jsonl").write_text('{"$set":{"messages":[{"id": "m1", "ty')
    data = json.loads(gemini(session.cwd, "BeforeAgent", prompt="kestrel?"))
    if transcript is None:
        del data["transcript_path"]
    else:
        data["transcript_path"] = str(session.path.parent / transcript)
    _, after = answer(hook("gemini", json.dumps(data).encode())[1])
    assert TOPOLOGY in block(after) and ALREADY not in block(after)


def test_gemini_turn_that_will_compress_sends_what_it_summarises(session):
    """No hook hears Gemini CLI's automatic compression: it runs after BeforeAgent, when the last reply's
    prompt tokens reached half the window, and summarises all but the turns past 70% of the history."""
    session.prompt("is kestrel up?")
    session.prompt("kestrel again?", tokens=524_287)
    named = session.prompt("kestrel?", tokens=524_288)  # the last count was under half: no compression
    assert ALREADY in block(named)
    sent = session.prompt("kestrel?")  # over half: all of this short history is summarised
    assert TOPOLOGY in block(sent) and ALREADY not in block(sent)


def test_gemini_automatic_compression_keeps_a_recent_doc(session):
    for prompt in ("is the vault sealed?", "and gatekeeper?", "what does the scheduler run?", "and vision?"):
        session.prompt(prompt)
    session.prompt("is kestrel up?", tokens=600_000)  # the last turn: its block is in the 30% kept
    kept = session.prompt("kestrel again?")
    assert ALREADY in block(kept) and TOPOLOGY not in block(kept)


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
    ("gemini", {"hook_event_name": "PreCompress", "trigger": "manual"}, hooks.IGNORE),
    ("gemini", {"hook_event_name": "SessionStart", "source": "clear"}, hooks.FORGET),
    ("codex", {"hook_event_name": "SessionStart", "source": "compact"}, hooks.FORGET),
    ("codex", {"hook_event_name": "PreCompact", "trigger": "auto"}, hooks.IGNORE),
])
def test_each_hosts_events(host, data, kind):
    assert hooks.parse_payload(host, json.dumps({"session_id": "s", **data}).encode())[0] == kind


@pytest.mark.parametrize("host, wanted", [
    ("claude", {"UserPromptSubmit": None, "SessionStart": "compact|clear",
                "PostToolUse": "Read|Edit|MultiEdit|Write|NotebookEdit"}),
    ("gemini", {"BeforeAgent": None, "SessionStart": "clear",
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


def test_gemini_resumed_session_is_measured_by_the_clients_estimate(session):
    """A new process (`gemini -p --resume`) compares its estimate of the history it resumed, not the last
    reply's count: a big count recorded before it does not compress a short history."""
    session.prompt("is kestrel up?", tokens=900_000)
    session.start()
    resumed = session.prompt("kestrel again?")
    assert ALREADY in block(resumed) and TOPOLOGY not in block(resumed)


def test_gemini_install_takes_out_an_earlier_precompress_entry_and_keeps_others(tmp_path):
    from context_router.faces.install import HOOK_FILES, install_hook, uninstall_hook

    path = tmp_path / HOOK_FILES["gemini"]
    path.parent.mkdir()
    other = {"name": "notify", "type": "command", "command": "notify-send compress"}
    ours = {"name": "ctx", "type": "command", "command": "ctx hook gemini", "timeout": 5000}
    path.write_text(json.dumps({"hooks": {"PreCompress": [{"matcher": "manual", "hooks": [ours]},
                                                          {"hooks": [other]}]}}))
    assert install_hook("gemini", str(path), "ctx hook gemini")[0] == "added"
    assert json.loads(path.read_text())["hooks"]["PreCompress"] == [{"hooks": [other]}]
    path.write_text(json.dumps({"hooks": {"PreCompress": [{"matcher": "manual", "hooks": [ours]}]}}))
    assert uninstall_hook("gemini", str(path)) and not path.exists()
