"""Claude Code (`claude -p`): what of ctx's context reaches the model, turn by turn, across compaction."""

from __future__ import annotations

import json

from .conftest import ALREADY, BOX, HOOK_MS, MARK, PROMPT, World, count, record_version
from .model_server import BACKGROUND, READ

BASE = ["claude", "-p", "--output-format", "json"]
AUTO = {"CLAUDE_CODE_AUTO_COMPACT_WINDOW": "200000"}


def installed(world: World) -> World:
    record_version(world, "claude")
    res = world.ctx("hook", "install", "claude")
    assert res.returncode == 0 and "settings" in res.stdout, res.stderr
    return world


def session(turn) -> str:
    return str(json.loads(turn.out)["session_id"])


def test_first_turn_resume_and_manual_compact(world):
    installed(world)
    t1 = world.run("claude", [*BASE, PROMPT])
    assert t1.code == 0, t1.err
    assert count(t1.last, MARK) == 1
    messages = [json.dumps(m) for m in t1.last["messages"]]
    at = next(i for i, m in enumerate(messages) if BOX in m)
    assert at > next(i for i, m in enumerate(messages) if "lighthouse throttling" in m)  # after the prompt
    sid = session(t1)
    t2 = world.run("claude", [*BASE, "--resume", sid, "and what temperature does the lighthouse gpu throttle at?"])
    assert count(t2.last, ALREADY) >= 1 and count(t2.last, BOX) == 2  # named; the first turn's block still held
    assert count(t2.last, MARK) == 1
    world.run("claude", [*BASE, "--resume", sid, "/compact"])
    t4 = world.run("claude", [*BASE, "--resume", sid, "is the lighthouse gpu still throttling after the fan change?"])
    assert count(t4.last, MARK) == 1  # back after the compaction, once


def test_auto_compaction_turn_holds_the_doc(world, server):
    """The order is UserPromptSubmit, compaction, SessionStart compact, the request: what ctx named in the
    prompt's hook is put back by SessionStart, once."""
    installed(world)
    sid = session(world.run("claude", [*BASE, PROMPT]))
    server.usage = 190_000
    world.run("claude", [*BASE, "--resume", sid, "anything new on the kestrel dome?"], **AUTO)
    server.usage = 50
    t3 = world.run("claude", [*BASE, "--resume", sid, "what temperature does the lighthouse gpu throttle at?"], **AUTO)
    assert len(t3.model) >= 2  # the compaction's request, then the prompt's
    assert count(t3.last, MARK) == 1
    t4 = world.run("claude", [*BASE, "--resume", sid, "is the lighthouse gpu still throttling?"], **AUTO)
    assert count(t4.last, MARK) == 1


def test_a_background_commands_notice_moves_nothing(world):
    """The model runs a command in the background; when it ends, Claude Code sends its `<task-notification>`
    as a prompt of its own: ctx serves it read-only, so the turn does not advance past the user's one."""
    installed(world)
    t1 = world.run("claude", [*BASE, "--allowedTools", "Bash", "--", f"{PROMPT} {BACKGROUND}"])
    assert t1.code == 0, t1.err
    assert count(t1.last.get("messages"), "<task-id>") == 1, "no request for the command's notice"
    assert count(t1.last, "[Turn 1]") == 2 and count(t1.last, "[Turn 2]") == 0
    assert count(t1.last, MARK) == 1


def test_a_doc_the_model_read_is_named_not_sent_again(world, server):
    """The model reads a doc with the Read tool; ctx's PostToolUse hook notes it, so the next turn that wants
    that doc names it as already in the conversation instead of sending it a second time."""
    installed(world)
    server.read = str(world.project / "docs-sample" / "systems" / "vault.md")
    t1 = world.run("claude", [*BASE, "--allowedTools", "Read", "--", f"{PROMPT} {READ}"])
    assert t1.code == 0, t1.err
    held = "A ZFS scrub runs every first Sunday"  # below vault.md's header, which the first turn shows
    assert count(t1.last, held) == 1  # the Read tool's result
    t2 = world.run("claude", [*BASE, "--resume", session(t1), "how full is the zfs pool on the vault nas?"])
    assert count(t2.last, held) == 1 and count(t2.last, ALREADY) >= 1


def test_hook_time_inside_the_client(world):
    installed(world).timed("claude")
    sid = session(world.run("claude", [*BASE, PROMPT]))
    for prompt in ("and its fan curve?", "what about kestrel?", "and the pipe to orin?", "lighthouse again?"):
        world.run("claude", [*BASE, "--resume", sid, prompt])
    HOOK_MS["claude"] = world.hook_times()
    assert len(HOOK_MS["claude"]) >= 5
