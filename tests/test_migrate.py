"""A state written by any earlier ctx is upgraded in place, by the one ordered list of schema steps that the
version check reads too: its sessions, scores, pins and history survive."""

from __future__ import annotations

import json
import marshal
import sqlite3

import pytest

from context_router.store import state

VAULT = "systems/vault.md"


def old_state(path, version: int) -> None:
    """A state as the ctx of schema `version` left it: that version's statements, a session at turn 4 with a
    score, a history row and a pin."""
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(path, isolation_level=None)
    for step in state.MIGRATIONS[:version]:
        if callable(step):
            step(conn)
        else:
            conn.executescript(step)
    conn.execute(f"PRAGMA application_id = {state.APPLICATION_ID}")
    conn.execute(f"PRAGMA user_version = {version}")
    conn.execute("INSERT INTO sessions (name, turn, bucket, semantic) VALUES ('old', 4, ?, ?)",
                 (marshal.dumps((3.0, 0.0)), marshal.dumps({})))
    conn.execute("INSERT INTO scores (session, path, score, last_hit_turn, hits) VALUES ('old', ?, 0.5, 3, 1)",
                 (VAULT,))
    if "turn" in {row[1] for row in conn.execute("PRAGMA table_info(scores)")}:
        conn.execute("UPDATE scores SET turn = 4")  # kept with the turn it was set, as version 5 on keep it
    conn.execute("INSERT INTO history (session, turn, path, score, causes) VALUES ('old', 3, ?, 1.0, ?)",
                 (VAULT, "keyword:vault"))
    conn.execute("INSERT INTO pins VALUES ('overview.md', 'warm', 1.0, NULL, 'made by the old ctx')")
    conn.close()


@pytest.mark.parametrize("version", range(1, state.SCHEMA_VERSION + 1))
def test_a_state_of_every_schema_opens_with_its_sessions_scores_pins_and_history(ctx, sample, isolated_state,
                                                                                  version):
    old_state(isolated_state, version)
    args = ("--config", str(sample), "--session", "old")
    status = ctx("status", "--json", *args)
    assert status.code == 0 and "moved to" not in status.err
    got = json.loads(status.out)
    assert got["turn"] == 4
    assert [(f["path"], f["score"], f["last_hit_turn"]) for f in got["files"]] == [(VAULT, 0.5, 3)]
    explain = ctx("explain", VAULT, *args)
    assert explain.code == 0 and "keyword:vault" in explain.out
    res = ctx("route", "which disk array do we use offsite?", *args, "-f", "json")
    assert res.code == 0 and "moved to" not in res.err
    assert json.loads(ctx("status", "--json", *args).out)["turn"] == 5
    conn = sqlite3.connect(isolated_state)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == state.SCHEMA_VERSION
    assert conn.execute("SELECT path, level, attestation FROM pins").fetchall() == [
        ("overview.md", "warm", "made by the old ctx")]
    assert (3, VAULT, 1.0, "keyword:vault") in conn.execute(
        "SELECT turn, path, score, causes FROM history WHERE session = 'old'").fetchall()
    conn.close()


def test_the_version_check_and_the_upgrade_read_the_same_steps():
    assert state.SCHEMA_VERSION == len(state.MIGRATIONS)


@pytest.mark.parametrize("version", [state.SCHEMA_VERSION + 1, 99])
def test_a_newer_schema_is_set_aside_as_foreign(ctx, sample, isolated_state, version):
    old_state(isolated_state, 1)
    conn = sqlite3.connect(isolated_state)
    conn.execute(f"PRAGMA user_version = {version}")
    conn.close()
    res = ctx("status", "--json", "--config", str(sample), "--session", "old")
    assert res.code == 0
    assert f"schema version {version}, this ctx knows {state.SCHEMA_VERSION}" in res.err
    assert "moved to state.db.corrupt-" in res.err
    assert json.loads(res.out)["files"] == []
