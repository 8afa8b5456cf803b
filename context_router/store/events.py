"""The files the agent read or edited, per session: written by the after-tool hook, read by the next turn.

A file of its own beside the state (`events.db`), not a table in it: the event path must cost no more than
the floor of any Python + SQLite hook, so it never opens the state (its schema checks, its write lock held
by a turn or a watcher) and a turn reads and clears the rows in one short transaction of its own.

Rollback journal, synchronous off: measured, a WAL file's checkpoint when the connection closes cost 20 ms
of fsync per event, the rest 0.1 ms. What that trades is the last events on a power cut, or a damaged
file: the rows are evidence, so a damaged file is simply started afresh.
"""

from __future__ import annotations

import os

try:
    import _sqlite3 as sqlite3  # the C module alone, as the state does: no `datetime` on the hook path
except ImportError:  # pragma: no cover - an interpreter without the C module's public name
    import sqlite3  # type: ignore[no-redef]

EVENTS_NAME = "events.db"
# stamp: "mtime_ns:size" of a file read whole when it was read (the turn holds a doc read so, if unchanged)
TABLE = ("CREATE TABLE IF NOT EXISTS touched (seq INTEGER PRIMARY KEY, session TEXT NOT NULL, path TEXT NOT NULL, "
         "kind TEXT NOT NULL, stamp TEXT)")
TRANSCRIPTS = "CREATE TABLE IF NOT EXISTS transcripts (session TEXT PRIMARY KEY, path TEXT NOT NULL) WITHOUT ROWID"
BUSY_S = 1.0  # parallel tool hooks of one batch write at once; each waits for the others' few microseconds
KEEP_ROWS = 512  # a session's rows kept for the next turn: an agent that reads thousands of files between two
# prompts leaves the last ones, and the file never grows past a few tens of KB per session
MAX_ROWS = 100_000  # rows kept over all sessions
READ = "read"
EDIT = "edit"


def events_path(state_path: str) -> str:
    return os.path.join(os.path.dirname(state_path), EVENTS_NAME)


def stamp(path: str) -> str | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return f"{st.st_mtime_ns}:{st.st_size}"


def record(state_path: str, session: str, touched: list[tuple[str, str]], transcript: str | None = None) -> bool:
    """Add (path, read|glance|edit) rows for the session (a whole read with the file's stamp). Nothing when
    ctx never ran here (no state folder): the hook then has no project to serve. False when not written.
    transcript: where the host keeps the conversation (`ctx stats` reads what the model used from it)."""
    folder = os.path.dirname(state_path)
    if not touched or not os.path.isdir(folder):
        return False
    path = os.path.join(folder, EVENTS_NAME)
    rows = [(session, p, k, stamp(p) if k == READ else None) for p, k in touched]
    for attempt in range(2):
        try:
            conn = sqlite3.connect(path, timeout=BUSY_S, isolation_level=None)
        except sqlite3.Error:
            return False
        try:
            conn.execute("PRAGMA synchronous = OFF")
            conn.execute(TABLE)
            if transcript is None:
                conn.executemany("INSERT INTO touched (session, path, kind, stamp) VALUES (?, ?, ?, ?)", rows)
                return True
            conn.execute("BEGIN")
            conn.executemany("INSERT INTO touched (session, path, kind, stamp) VALUES (?, ?, ?, ?)", rows)
            conn.execute(TRANSCRIPTS)
            conn.execute("INSERT OR REPLACE INTO transcripts VALUES (?, ?)", (session, transcript))
            conn.execute("COMMIT")
            return True
        except sqlite3.DatabaseError as exc:
            if attempt or not _damaged(exc):
                return False
        finally:
            conn.close()
        try:
            os.unlink(path)  # damaged: start afresh, the lost rows were evidence only
        except OSError:
            return False
    return False


def _damaged(exc: BaseException) -> bool:
    text = str(exc).lower()
    return "not a database" in text or "malformed" in text


def take(state_path: str, session: str, consume: bool) -> list[tuple[str, str, str | None]]:
    """The session's (path, kind, stamp) rows since the last turn, oldest first; consume: remove them (a turn that
    saves). A missing, locked or damaged file is no rows: the events are evidence, never a reason to fail."""
    path = events_path(state_path)
    if not os.path.exists(path):
        return []
    try:
        conn = sqlite3.connect(path, timeout=BUSY_S, isolation_level=None)
    except sqlite3.Error:
        return []
    try:
        conn.execute("BEGIN IMMEDIATE" if consume else "BEGIN")
        rows = conn.execute("SELECT seq, path, kind, stamp FROM touched WHERE session = ? ORDER BY seq DESC LIMIT ?",
                            (session, KEEP_ROWS)).fetchall()
        if consume and rows:
            conn.execute("DELETE FROM touched WHERE session = ? AND seq <= ?", (session, rows[0][0]))
            # Sessions that never came back leave their rows: the file keeps the last MAX_ROWS of all.
            conn.execute("DELETE FROM touched WHERE seq <= ?", (rows[0][0] - MAX_ROWS,))
        conn.execute("COMMIT")
        return [(p, k, st) for _, p, k, st in reversed(rows)]
    except sqlite3.Error:
        return []
    finally:
        conn.close()


def transcripts(state_path: str) -> dict[str, str]:
    """session -> the transcript its host named (none when no event was ever heard)."""
    path = events_path(state_path)
    if not os.path.exists(path):
        return {}
    try:
        conn = sqlite3.connect(path, timeout=BUSY_S, isolation_level=None)
        try:
            return dict(conn.execute("SELECT session, path FROM transcripts"))
        finally:
            conn.close()
    except sqlite3.Error:
        return {}


def forget(state_path: str, session: str) -> None:
    """Drop a session's rows (`ctx reset`)."""
    path = events_path(state_path)
    if not os.path.exists(path):
        return
    try:
        conn = sqlite3.connect(path, timeout=BUSY_S, isolation_level=None)
        try:
            conn.execute("DELETE FROM touched WHERE session = ?", (session,))
        finally:
            conn.close()
    except sqlite3.Error:
        pass
