"""Gemini CLI (`gemini -p`): what of ctx's context reaches the model, its escaping, and compression."""

from __future__ import annotations

import json
from typing import Any

from .conftest import ALREADY, BOX, HOOK_MS, MARK, PROMPT, Turn, World, count, record_version, walk
from .model_server import READ

BASE = ["gemini", "--output-format", "json", "-p"]
UNTRUSTED = 55  # `gemini -p` in a folder it does not trust


def installed(world: World) -> World:
    record_version(world, "gemini")
    res = world.ctx("hook", "install", "gemini", "--trust")
    assert res.returncode == 0 and "trusted" in res.stdout, res.stderr
    return world


def test_an_untrusted_folder_is_reported_and_trust_fixes_it(world):
    record_version(world, "gemini")
    res = world.ctx("hook", "install", "gemini")
    assert "the folder is not trusted" in res.stderr and "--trust" in res.stderr
    assert world.run("gemini", [*BASE, PROMPT]).code == UNTRUSTED
    doctor = world.ctx("doctor")
    assert doctor.returncode == 1 and "exits 55" in doctor.stdout
    assert world.ctx("hook", "install", "gemini", "--trust").returncode == 0
    assert world.run("gemini", [*BASE, PROMPT]).code == 0


SNAPSHOT = "<state_snapshot>"  # what the client asks its compression's summariser for
RESUME = ["--resume", "latest"]


def summarised(turn: Turn) -> list[dict[str, Any]]:
    """The requests of the client's compression in this run: the summariser's, with the history it summarises."""
    return [r["body"] for r in turn.requests if "generateContent" in r["path"] and count(r["body"], SNAPSHOT)]


def compress_at(world: World, threshold: float) -> None:
    path = world.project / ".gemini" / "settings.json"
    settings = json.loads(path.read_text())
    settings.setdefault("model", {})["compressionThreshold"] = threshold
    path.write_text(json.dumps(settings))


def test_first_turn_escaped_resume_and_compress(world):
    installed(world)
    t1 = world.run("gemini", [*BASE, PROMPT])
    assert t1.code == 0, t1.err
    part = next(s for s in walk(t1.last) if BOX in s)
    assert part.startswith("<hook_context>") and "&gt; **Role**" in part  # Gemini escapes < and >
    assert count(t1.last, MARK) == 1
    t2 = world.run("gemini", [*BASE, "and what temperature does the lighthouse gpu throttle at?", *RESUME])
    assert count(t2.last, ALREADY) >= 1 and count(t2.last, BOX) == 2 and count(t2.last, MARK) == 1
    # `gemini -p /compress` runs the compression beside the prompt, which goes to the model as it is: whether
    # the session file holds the compressed history when the process ends depends on which finished first
    # (measured both ways). No turn runs on the command.
    t3 = world.run("gemini", [*BASE, "/compress", *RESUME])
    assert t3.code == 0 and count(t3.model[-1]["body"], "[Turn 3]") == 0
    t4 = world.run("gemini", [*BASE, "is the lighthouse gpu still throttling?", *RESUME])
    held, prompt = count(t4.last["contents"][:-1], MARK), t4.last["contents"][-1]
    assert held + count(prompt, MARK) == 1  # still in the history and named, or summarised and sent again
    assert (count(prompt, ALREADY) >= 1) == bool(held)


def test_automatic_compression_the_doc_is_sent_once(world):
    """A resumed `gemini -p` compresses before the request when its estimate of the history reached
    `model.compressionThreshold` of the window; no hook hears it. The doc is in each request once."""
    installed(world)
    compress_at(world, 0.001)  # about 1,000 tokens: the first turn's history is over it
    t1 = world.run("gemini", [*BASE, PROMPT])
    assert t1.code == 0 and not summarised(t1) and count(t1.last, MARK) == 1
    for prompt in ("and what temperature does the lighthouse gpu throttle at?", "is the lighthouse gpu ok now?"):
        turn = world.run("gemini", [*BASE, prompt, *RESUME])
        assert turn.code == 0, turn.err
        assert summarised(turn) and count(summarised(turn)[0], MARK) == 1  # the copy it summarised
        assert count(turn.last, SNAPSHOT) == 0 and count(turn.last, MARK) == 1  # and the one sent again


def test_automatic_compression_keeps_a_recent_doc_named(world):
    """A compression keeps the history's last 30%: the doc sent in the last turn stays, and is named."""
    installed(world)
    world.run("gemini", [*BASE, "is the vault sealed? and the gatekeeper vpn?"])
    # earlier turns that never show the lighthouse doc: only the last one sends it
    for prompt in ("what does the scheduler run?", "and the alerts module?", "when does the nightly backup job run?",
                   PROMPT):
        assert world.run("gemini", [*BASE, prompt, *RESUME]).code == 0
    compress_at(world, 0.001)
    turn = world.run("gemini", [*BASE, "and what temperature does the lighthouse gpu throttle at?", *RESUME])
    assert turn.code == 0, turn.err
    assert summarised(turn) and count(summarised(turn)[0], MARK) == 0  # the lighthouse turn was kept
    assert count(turn.last, MARK) == 1 and count(turn.last["contents"][-1], ALREADY) >= 1


def test_a_doc_the_model_read_is_named_not_sent_again(world, server):
    """The model reads a doc with read_file; ctx's AfterTool hook notes it, so the next turn that wants that
    doc names it as already in the conversation instead of sending it a second time."""
    installed(world)
    server.read = str(world.project / "docs-sample" / "systems" / "vault.md")
    t1 = world.run("gemini", [*BASE, f"{PROMPT} {READ}", "--yolo"])
    assert t1.code == 0, t1.err
    held = "A ZFS scrub runs every first Sunday"  # below vault.md's header, which the first turn shows
    assert count(t1.last, held) >= 1  # read_file's result
    t2 = world.run("gemini", [*BASE, "how full is the zfs pool on the vault nas?", *RESUME])
    context = [t for t in walk(t2.last["contents"][-1]) if "hook_context" in t]
    assert len(context) == 1 and held not in context[0] and ALREADY in context[0]


def test_hook_time_inside_the_client(world):
    installed(world).timed("gemini")
    world.run("gemini", [*BASE, PROMPT])
    for prompt in ("and its fan curve?", "what about kestrel?", "and the pipe to orin?", "lighthouse again?"):
        world.run("gemini", [*BASE, prompt, "--resume", "latest"])
    HOOK_MS["gemini"] = world.hook_times()
    assert len(HOOK_MS["gemini"]) >= 5
