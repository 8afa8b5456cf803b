"""Gemini CLI (`gemini -p`): what of ctx's context reaches the model, its escaping, and compression."""

from __future__ import annotations

from .conftest import ALREADY, BOX, HOOK_MS, MARK, PROMPT, World, count, record_version, walk

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


def test_first_turn_escaped_resume_and_compress(world):
    installed(world)
    t1 = world.run("gemini", [*BASE, PROMPT])
    assert t1.code == 0, t1.err
    part = next(s for s in walk(t1.last) if BOX in s)
    assert part.startswith("<hook_context>") and "&gt; **Role**" in part  # Gemini escapes < and >
    assert count(t1.last, MARK) == 1
    t2 = world.run("gemini", [*BASE, "and what temperature does the lighthouse gpu throttle at?", "--resume", "latest"])
    assert count(t2.last, ALREADY) >= 1 and count(t2.last, BOX) == 2 and count(t2.last, MARK) == 1
    t3 = world.run("gemini", [*BASE, "/compress", "--resume", "latest"])
    assert count(t3.model[-1]["body"], BOX) == 2  # no turn ran on the command: only the two turns' blocks
    t4 = world.run("gemini", [*BASE, "is the lighthouse gpu still throttling?", "--resume", "latest"])
    # Sent again after the compression. A compression lasts as long as its process: `--resume` rebuilds the
    # history from the session file, which holds the first turn's copy too (so, as measured, twice).
    assert count(t4.last["contents"][-1], MARK) == 1 and count(t4.last, MARK) in (1, 2)


def test_hook_time_inside_the_client(world):
    installed(world).timed("gemini")
    world.run("gemini", [*BASE, PROMPT])
    for prompt in ("and its fan curve?", "what about kestrel?", "and the pipe to orin?", "lighthouse again?"):
        world.run("gemini", [*BASE, prompt, "--resume", "latest"])
    HOOK_MS["gemini"] = world.hook_times()
    assert len(HOOK_MS["gemini"]) >= 5
