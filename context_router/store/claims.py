"""The files each doc says it is about: front matter `paths:` (Claude Code rules) or `globs:` (Cursor rules).

A table of its own, created when first written: a doc's claims follow it through the index like its text
(a changed doc's are replaced, a gone doc's dropped), and a state that predates them simply has none.
"""

from __future__ import annotations

try:
    import _sqlite3 as sqlite3  # the C module alone, as the state does: no `datetime` on the hook path
except ImportError:  # pragma: no cover - an interpreter without the C module's public name
    import sqlite3  # type: ignore[no-redef]

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable

    from .index import Doc

TABLE = "CREATE TABLE IF NOT EXISTS doc_claims (path TEXT NOT NULL, glob TEXT NOT NULL)"
INDEX = "CREATE INDEX IF NOT EXISTS doc_claims_by_path ON doc_claims (path)"


def _exists(conn: sqlite3.Connection) -> bool:
    return conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'doc_claims'").fetchone() \
        is not None


def save(conn: sqlite3.Connection, docs: Iterable[Doc], stale: Iterable[str]) -> None:
    """Replace the claims of the changed docs (`docs`) and drop those of `stale` paths."""
    docs = list(docs)
    rows = [(d.path, g) for d in docs for g in d.claims]
    if not rows and not _exists(conn):
        return  # nothing claims anything yet: no table to keep
    conn.execute(TABLE)
    conn.execute(INDEX)
    conn.executemany("DELETE FROM doc_claims WHERE path = ?", ((p,) for p in [*stale, *(d.path for d in docs)]))
    conn.executemany("INSERT INTO doc_claims VALUES (?, ?)", rows)


def clear(conn: sqlite3.Connection) -> None:
    if _exists(conn):
        conn.execute("DELETE FROM doc_claims")


def load(conn: sqlite3.Connection) -> dict[str, tuple[str, ...]]:
    """doc -> its globs, for every doc that claims files."""
    if not _exists(conn):
        return {}
    out: dict[str, list[str]] = {}
    for path, glob in conn.execute("SELECT path, glob FROM doc_claims ORDER BY rowid"):
        out.setdefault(path, []).append(glob)
    return {p: tuple(g) for p, g in out.items()}
