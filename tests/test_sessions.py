"""`ctx sessions`, `--session last`, and idle sessions pruned by the next turn that writes."""

from __future__ import annotations

import json

from context_router.router import TurnRequest, route


def test_sessions_lists_them_most_recent_first(ctx, sample):
    assert ctx("sessions", "--config", str(sample)).out.strip() == "no sessions yet"
    # Four docs HOT at 1.0: the keyword's own doc is first among the ties, as a turn ranks them.
    ctx("route", "kestrel", "--config", str(sample), "--session", "abc-123", "--budget", "10000")
    ctx("route", "vault", "--config", str(sample))
    rows = json.loads(ctx("sessions", "--json", "--config", str(sample)).out)
    assert [r["session"] for r in rows] == ["default", "abc-123"]
    assert rows[1]["turns"] == 1 and {"path": "systems/kestrel.md", "score": 1.0} in rows[1]["top"]
    text = ctx("sessions", "--config", str(sample)).out
    assert text.splitlines()[1].startswith("default") and "systems/kestrel.md 1.00" in text


def test_session_last_names_the_most_recent_everywhere(ctx, sample):
    ctx("route", "vault", "--config", str(sample), "--session", "older")
    ctx("route", "kestrel", "--config", str(sample), "--session", "hook-session-id")
    status = json.loads(ctx("status", "--json", "--session", "last", "--config", str(sample)).out)
    assert status["session"] == "hook-session-id"
    assert "session 'hook-session-id'" in ctx("explain", "systems/kestrel.md", "--session", "last",
                                               "--config", str(sample)).out
    data = json.loads(ctx("route", "and the dome?", "--session", "last", "-f", "json", "--config", str(sample)).out)
    assert (data["session"], data["turn"]) == ("hook-session-id", 2)
    assert ctx("reset", "--session", "last", "--config", str(sample)).out.strip() == "reset session 'hook-session-id'"


def test_session_last_with_no_sessions_is_a_clear_error(ctx, sample):
    res = ctx("status", "--session", "last", "--config", str(sample))
    assert res.code == 2 and res.err.strip() == "ctx: error: --session last: no session has run a turn yet"


def test_idle_sessions_are_pruned_by_a_write_turn(ctx, sample):
    sample.write_text(sample.read_text() + "sessions: {keep_days: 2}\n")
    day = 86400.0
    from context_router.router import run_turn
    from context_router.workspace import with_workspace

    def turn(prompt: str, session: str, when: float, dry: bool = False) -> None:
        with_workspace(lambda ws: run_turn(ws, TurnRequest(prompt, session=session, dry_run=dry), now=when),
                       str(sample))

    turn("vault", "old", 1000 * day)
    turn("kestrel", "fresh", 1001.5 * day)
    turn("lighthouse", "now", 1003 * day, dry=True)  # a dry run writes nothing, prunes nothing
    assert {r["session"] for r in json.loads(ctx("sessions", "--json", "--config", str(sample)).out)} == \
        {"old", "fresh"}
    turn("lighthouse", "now", 1003 * day)
    assert {r["session"] for r in json.loads(ctx("sessions", "--json", "--config", str(sample)).out)} == \
        {"fresh", "now"}
    assert route(TurnRequest("x", session="fresh", dry_run=True), str(sample)).session == "fresh"


def test_keep_days_is_validated(ctx, sample):
    sample.write_text(sample.read_text() + "sessions: {keep_days: 0}\n")
    res = ctx("route", "x", "--config", str(sample))
    assert res.code == 2 and "sessions.keep_days" in res.err


def test_views_without_a_session_show_the_hook_session_when_default_has_no_turns(ctx, sample):
    payload = json.dumps({"session_id": "editor-abc", "cwd": str(sample.parent), "prompt": "is kestrel up?"})
    ctx("hook", "claude", stdin=payload.encode())
    ctx("route", "vault", "--session", "older-one", "--config", str(sample))
    ctx("hook", "claude", stdin=payload.replace("is kestrel up?", "and its dome?").encode())
    note = ("ctx: note: session 'default' has no turns; showing 'editor-abc', the session that ran a turn most "
            "recently (--session NAME for another; `ctx sessions` lists them)\n")
    res = ctx("stats", "--json", "--config", str(sample))
    assert res.code == 0 and json.loads(res.out)["sessions"] == ["editor-abc"] and res.err == note
    res = ctx("status", "--json", "--config", str(sample))
    assert res.code == 0 and json.loads(res.out)["session"] == "editor-abc" and res.err == note
    res = ctx("explain", "systems/kestrel.md", "--config", str(sample))
    assert res.code == 0 and "in session 'editor-abc' at turn 2" in res.out and res.err == note
    res = ctx("chart", "--config", str(sample))
    assert res.code == 0 and "session editor-abc" in res.out and res.err == note
    assert json.loads(ctx("stats", "--all", "--json", "--config", str(sample)).out)["sessions"] == \
        ["editor-abc", "older-one"]
    # A session named on purpose is that session, turns or none.
    res = ctx("stats", "--session", "default", "--config", str(sample))
    assert res.code == 2 and res.err.strip() == "ctx: error: no turns recorded in session 'default'"


def test_views_without_a_session_keep_default_once_it_has_turns(ctx, sample, monkeypatch):
    ctx("route", "kestrel", "--session", "abc", "--config", str(sample))
    ctx("route", "vault", "--config", str(sample))
    ctx("route", "lighthouse", "--session", "abc", "--config", str(sample))
    res = ctx("status", "--json", "--config", str(sample))
    assert json.loads(res.out)["session"] == "default" and res.err == ""
    monkeypatch.setenv("CTX_SESSION", "default")  # named through the environment: kept even with no turns
    ctx("reset", "--config", str(sample))
    res = ctx("status", "--json", "--config", str(sample))
    assert json.loads(res.out)["session"] == "default" and res.err == ""
