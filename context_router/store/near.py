"""The words near a word, in the table shipped with ctx (data/near.db, built by data/build_near.py from
GloVe's 50-dimension vectors): for each of about 45,000 common English words, up to 12 others at cosine 0.6 or
more, nearest first. Read-only, opened for the words a turn asks about; no model and no numpy at run time."""

from __future__ import annotations

import os

try:
    import _sqlite3 as sqlite3  # the C module alone, as store/state.py takes it (no `datetime` on a hook turn)
except ImportError:  # pragma: no cover - a Python whose sqlite3 is one module
    import sqlite3  # type: ignore[no-redef]

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

PATH = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "data", "near.db")


def near(words: Sequence[str], limit: int = 12, path: str | None = None) -> dict[str, tuple[str, ...]]:
    """word -> its first `limit` near words, for those of `words` the table knows (path: another table than
    the shipped one); {} when the table is not there."""
    path = path or PATH
    if not words or not os.path.isfile(path):
        return {}
    try:
        conn = sqlite3.connect(f"file:{path}?mode=ro&immutable=1", uri=True)
        try:
            rows = conn.execute(f"SELECT word, near FROM near WHERE word IN ({','.join('?' * len(words))})",
                                list(words)).fetchall()
        finally:
            conn.close()
    except sqlite3.Error:
        return {}  # a damaged table costs the turn its near words, nothing else
    return {w: tuple(n.split()[:limit]) for w, n in rows}
