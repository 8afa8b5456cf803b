"""Codex CLI (`codex exec`): trust, what of ctx's context reaches the model, and auto-compaction."""

from __future__ import annotations

import re

from .conftest import ALREADY, BOX, HOOK_MS, MARK, PROMPT, World, count, record_version
from .model_server import READ

BASE = ["codex", "exec"]
COMPACT = ["-c", "model_auto_compact_token_limit=1000"]


def session(turn) -> str:
    found = re.search(r"session id: (\S+)", turn.err)
    assert found, turn.err[-400:]
    return found.group(1)


def trust_project(world: World) -> None:
    """What accepting Codex's trust prompt for the folder writes."""
    config = world.home / ".codex" / "config.toml"
    config.write_text(config.read_text() + f'\n[projects."{world.project}"]\ntrust_level = "trusted"\n')


def installed(world: World) -> World:
    record_version(world, "codex")
    trust_project(world)
    res = world.ctx("hook", "install", "codex", "--trust")
    assert res.returncode == 0 and "trusted 4 hook(s)" in res.stdout, res.stdout + res.stderr
    return world


def test_an_untrusted_hook_is_reported_and_trust_makes_it_run(world):
    record_version(world, "codex")
    trust_project(world)
    res = world.ctx("hook", "install", "codex")
    assert "Codex CLI skips 4 of ctx's 4 hooks" in res.stderr and "--trust" in res.stderr
    skipped = world.run("codex", [*BASE, PROMPT])
    assert skipped.code == 0 and count(skipped.last, BOX) == 0  # skipped without a word
    doctor = world.ctx("doctor")
    assert doctor.returncode == 1 and "fix: ctx hook install codex --trust" in doctor.stdout
    assert world.ctx("hook", "install", "codex", "--trust").returncode == 0
    assert "Codex CLI trusts it" in world.ctx("doctor").stdout
    ran = world.run("codex", [*BASE, PROMPT])
    assert count(ran.last, MARK) == 1


def test_first_turn_resume_and_auto_compaction(world, server):
    installed(world)
    t1 = world.run("codex", [*BASE, PROMPT])
    assert t1.code == 0, t1.err
    assert count(t1.last, MARK) == 1
    held = next(item for item in t1.last["input"] if BOX in str(item))
    assert held.get("role") == "developer"
    t2 = world.run("codex", [*BASE, "resume", session(t1), "and what temperature does the lighthouse gpu throttle at?"])
    assert count(t2.last, ALREADY) >= 1 and count(t2.last, BOX) == 2 and count(t2.last, MARK) == 1
    c1 = world.run("codex", [*BASE, *COMPACT, PROMPT])
    sid = session(c1)
    server.usage = 5000
    world.run("codex", [*BASE, *COMPACT, "resume", sid, "what about the kestrel dome camera?"])
    server.usage = 50
    c3 = world.run("codex", [*BASE, *COMPACT, "resume", sid, "is the lighthouse gpu still throttling?"])
    assert "context compacted" in c3.err
    assert count(c3.last, MARK) == 1


def test_a_doc_the_model_read_is_named_not_sent_again(world, server):
    """The model reads a doc with `cat` in its shell; ctx's PostToolUse hook notes it, so the next turn that
    wants that doc names it as already in the conversation instead of sending it a second time."""
    installed(world)
    server.read = str(world.project / "docs-sample" / "systems" / "vault.md")
    t1 = world.run("codex", [*BASE, f"{PROMPT} {READ}"])
    assert t1.code == 0, t1.err
    held = "A ZFS scrub runs every first Sunday"  # below vault.md's header, which the first turn shows
    assert count(t1.last, held) == 1  # the command's output
    t2 = world.run("codex", [*BASE, "resume", session(t1), "how full is the zfs pool on the vault nas?"])
    assert count(t2.last, held) == 1 and count(t2.last, ALREADY) >= 1


def test_hook_time_inside_the_client(world):
    installed(world).timed("codex")
    run = [*BASE, "--dangerously-bypass-hook-trust"]  # the timing wrapper changed the hooks' hashes
    sid = session(world.run("codex", [*run, PROMPT]))
    for prompt in ("and its fan curve?", "what about kestrel?", "and the pipe to orin?", "lighthouse again?"):
        world.run("codex", [*run, "resume", sid, prompt])
    HOOK_MS["codex"] = [ms for ms in world.hook_times()]
    assert len(HOOK_MS["codex"]) >= 5
