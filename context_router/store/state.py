"""The SQLite store: sessions, scores, history with causes, pins, the docs index and the config cache.

One turn is one transaction (BEGIN IMMEDIATE), so concurrent turns serialise instead of losing updates and a
killed turn leaves the last committed one. A file that is not our database (not SQLite, truncated, another
application's, a newer schema) is moved aside as `state.db.corrupt-<timestamp>` and a fresh state starts.
"""

from __future__ import annotations

import marshal
import os
import time

try:
    # The C module alone: the `sqlite3` package adds `datetime` and its adapters (~2 ms) on every hook turn,
    # and ctx stores no dates.
    import _sqlite3 as sqlite3
except ImportError:  # pragma: no cover - an interpreter without the C module's public name
    import sqlite3  # type: ignore[no-redef]

from ..errors import InputError, StateError
from ..records import decayed, record
from . import claims
from .index import Doc

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator, Mapping, Sequence
    from typing import Any

    from .index import Stat

DatabaseError = sqlite3.DatabaseError
SQLITE_CORRUPT, SQLITE_NOTADB = 11, 26
APPLICATION_ID = 0x63747872  # "ctxr"
ENV_STATE = "CTX_STATE"
BUSY_TIMEOUT_MS = 60_000
OPEN_ATTEMPTS = 8  # opening a state another process is creating: tries, 0.05 s apart and growing

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value BLOB) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS docs (
    path TEXT PRIMARY KEY, mtime_ns INTEGER NOT NULL, size INTEGER NOT NULL, skipped INTEGER NOT NULL,
    title TEXT, header TEXT, truncated INTEGER, keywords BLOB, related BLOB, pinned TEXT, decay REAL,
    oversize INTEGER, tdims BLOB, tcounts BLOB, entropy REAL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS sem_docs (id INTEGER PRIMARY KEY, path TEXT NOT NULL UNIQUE, cluster INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS postings (dim INTEGER PRIMARY KEY, ids BLOB NOT NULL, weights BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS kw (
    token TEXT NOT NULL, keyword TEXT NOT NULL, path TEXT NOT NULL, ord INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS kw_by_token ON kw (token);
CREATE INDEX IF NOT EXISTS kw_by_path ON kw (path);
CREATE TABLE IF NOT EXISTS sessions (
    name TEXT PRIMARY KEY, turn INTEGER NOT NULL, bucket BLOB, semantic BLOB) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS scores (
    session TEXT NOT NULL, path TEXT NOT NULL, score REAL NOT NULL, last_hit_turn INTEGER NOT NULL,
    hits INTEGER NOT NULL, PRIMARY KEY (session, path)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS history (
    session TEXT NOT NULL, turn INTEGER NOT NULL, path TEXT NOT NULL, score REAL NOT NULL, causes TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS history_by_path ON history (session, path, turn);
CREATE TABLE IF NOT EXISTS pins (
    path TEXT PRIMARY KEY, level TEXT NOT NULL, created REAL NOT NULL, expires REAL,
    attestation TEXT) WITHOUT ROWID;
"""

# Version 2: the text index of the lexical evidence (lexical.py), one FTS5 row per doc, its rowid in lex_docs;
# when each session last wrote a turn (`ctx sessions`, `--session last`, pruning); what each turn showed
# (`ctx stats`, `ctx chart`) and each doc's cl100k token count, cached per content.
SCHEMA_V2 = """
CREATE TABLE IF NOT EXISTS lex_docs (id INTEGER PRIMARY KEY, path TEXT NOT NULL UNIQUE);
CREATE VIRTUAL TABLE IF NOT EXISTS lex USING fts5(path, title, headings, body, tokenize = 'porter unicode61');
CREATE TABLE IF NOT EXISTS lex_df (word TEXT PRIMARY KEY, docs INTEGER NOT NULL) WITHOUT ROWID;
ALTER TABLE sessions ADD COLUMN updated REAL;
CREATE TABLE IF NOT EXISTS turns (
    session TEXT NOT NULL, turn INTEGER NOT NULL, time REAL NOT NULL, chars INTEGER NOT NULL, shown BLOB NOT NULL,
    PRIMARY KEY (session, turn)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS doc_tokens (
    path TEXT PRIMARY KEY, mtime_ns INTEGER NOT NULL, size INTEGER NOT NULL, chars INTEGER NOT NULL,
    tokens INTEGER NOT NULL) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS sessions_by_time ON sessions (updated);
"""


# Version 3: the semantic model is updated in place (each doc's dims kept beside its id, the docs changed since
# the model was made queued in sem_pending); what a turn needs of front matter and config `related` is looked
# up for the docs it touches instead of loaded whole; the keyword table is keyed by (path, ord), without a
# rowid and a second index, and a doc's header is no longer stored (it is read at the turn): state.db stays
# near 1 KiB a doc beyond the docs' own text index. The index is built anew.
SCHEMA_V3 = """
ALTER TABLE sem_docs ADD COLUMN dims BLOB;
CREATE TABLE IF NOT EXISTS sem_pending (path TEXT PRIMARY KEY, seq INTEGER NOT NULL) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS docs_pinned ON docs (pinned) WHERE pinned IS NOT NULL;
CREATE TABLE IF NOT EXISTS cfg_related (path TEXT PRIMARY KEY, related BLOB NOT NULL) WITHOUT ROWID;
DROP INDEX IF EXISTS kw_by_path;
DROP INDEX IF EXISTS kw_by_token;
DROP TABLE kw;
CREATE TABLE kw (token TEXT NOT NULL, keyword TEXT NOT NULL, path TEXT NOT NULL, ord INTEGER NOT NULL,
                 PRIMARY KEY (path, ord)) WITHOUT ROWID;
CREATE INDEX kw_by_token ON kw (token);
DELETE FROM meta WHERE key IN ('semantic', 'config', 'index')
"""

# Version 4: which keywords nobody chose (derived by `ctx init`): evidence, not a verdict; which docs are hubs
# (pages that mostly link to other pages); and the text index of every doc's sections (one FTS5 row per `##` or
# `###` section, its rowid in sec_docs with the doc and the section's number); what each session's
# conversation was sent (turn/memory.py), for hosts that keep it. The index is built anew.
SCHEMA_V4 = """
ALTER TABLE kw ADD COLUMN derived INTEGER NOT NULL DEFAULT 0;
ALTER TABLE docs ADD COLUMN hub INTEGER NOT NULL DEFAULT 0;
CREATE TABLE IF NOT EXISTS sec_docs (id INTEGER PRIMARY KEY, path TEXT NOT NULL, ord INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS sec_by_path ON sec_docs (path);
CREATE VIRTUAL TABLE IF NOT EXISTS sec USING fts5(heading, body, tokenize = 'porter unicode61');
CREATE TABLE IF NOT EXISTS sent (session TEXT NOT NULL, path TEXT NOT NULL, unit TEXT NOT NULL,
                                 turn INTEGER NOT NULL, PRIMARY KEY (session, path, unit)) WITHOUT ROWID;
DELETE FROM meta WHERE key IN ('config', 'index')
"""

# Version 5: a score is kept with the turn it was set and the rate it decays at, and decays when it is read
# (score x rate^turns since): a turn writes only the docs it touched. `warm_until` and `live_until` are the last
# turns its decayed score is at or above the WARM line and above zero, so a turn reads only the docs that can
# rank and a score that decayed to nothing is deleted by an index. The history records the causes that change
# something, not a decay row per doc per turn (decay is the rule, told again by `ctx explain` and `ctx chart`).
# An upgraded score keeps the session's turn, a rate of its doc's as of the first turn that reads it. The text
# indexes keep no copy of the text (contentless FTS5): the words they were given for a doc are kept once, packed
# beside its row in lex_docs, so a changed doc's words can be taken out again. The index is built anew. One
# cause that set many docs to one score in a turn (a keyword shared by hundreds of docs) is one row of
# history_shared, its docs packed, not a row per doc; what a turn showed is packed when it names many docs.
FOREVER = 1 << 62
_COUNTED_UPTO = " upto"  # sec_df's row of the bound its counts were taken to: no word starts with a space
SCHEMA_V5 = f"""
ALTER TABLE scores ADD COLUMN turn INTEGER NOT NULL DEFAULT 0;
ALTER TABLE scores ADD COLUMN rate REAL;
ALTER TABLE scores ADD COLUMN warm_until INTEGER NOT NULL DEFAULT {FOREVER};
ALTER TABLE scores ADD COLUMN live_until INTEGER NOT NULL DEFAULT {FOREVER};
UPDATE scores SET turn = coalesce((SELECT turn FROM sessions WHERE name = scores.session), 0);
CREATE INDEX IF NOT EXISTS scores_warm ON scores (session, warm_until);
CREATE INDEX IF NOT EXISTS scores_live ON scores (session, live_until);
DROP TABLE IF EXISTS lex;
DROP TABLE IF EXISTS sec;
CREATE VIRTUAL TABLE lex USING fts5(path, title, headings, body, content = '', tokenize = 'porter unicode61');
CREATE VIRTUAL TABLE sec USING fts5(heading, body, content = '', tokenize = 'porter unicode61');
ALTER TABLE lex_docs ADD COLUMN packed BLOB;
DELETE FROM lex_docs;
DELETE FROM sec_docs;
DELETE FROM lex_df;
DELETE FROM docs;
DELETE FROM kw;
DELETE FROM sem_pending;
DELETE FROM meta WHERE key IN ('config', 'index', 'folders');
CREATE TABLE IF NOT EXISTS history_shared (
    session TEXT NOT NULL, turn INTEGER NOT NULL, score REAL NOT NULL, causes TEXT NOT NULL, paths BLOB NOT NULL);
CREATE INDEX IF NOT EXISTS history_shared_by_turn ON history_shared (session, turn)
"""

# Version 6: the keyword index is ordered by keyword within its token, so a turn finds the keywords filed under
# the prompt's words one index step each and counts a keyword's docs only as far as it needs (keyword_counts):
# a keyword that ten thousand docs share costs what a keyword of one doc costs.
SCHEMA_V6 = """
DROP INDEX IF EXISTS kw_by_token;
CREATE INDEX kw_by_token ON kw (token, keyword)
"""


# Version 7: a doc's sections are rows of sec_docs numbered in a run from lex_docs.sec_first, each naming its doc
# by lex_docs id: a section's path is not kept again, and no index maps a path to its sections (they were 7% of
# the state). The keyword table is keyed by what a turn looks up, (token, keyword, path), and each doc's
# keywords are kept once in order in kw_docs, for the views and for taking them out: a second index over the
# keywords was another 8%. The index is built anew.
SCHEMA_V7 = """
DROP INDEX IF EXISTS sec_by_path;
DROP TABLE IF EXISTS sec_docs;
CREATE TABLE sec_docs (id INTEGER PRIMARY KEY, doc INTEGER NOT NULL, ord INTEGER NOT NULL);
ALTER TABLE lex_docs ADD COLUMN sec_first INTEGER;
DROP TABLE IF EXISTS lex;
DROP TABLE IF EXISTS sec;
CREATE VIRTUAL TABLE lex USING fts5(path, title, headings, body, content = '', tokenize = 'porter unicode61');
CREATE VIRTUAL TABLE sec USING fts5(heading, body, content = '', tokenize = 'porter unicode61');
DROP INDEX IF EXISTS kw_by_token;
DROP TABLE IF EXISTS kw;
CREATE TABLE kw (token TEXT NOT NULL, keyword TEXT NOT NULL, path TEXT NOT NULL, derived INTEGER NOT NULL,
                 PRIMARY KEY (token, keyword, path)) WITHOUT ROWID;
CREATE TABLE kw_docs (path TEXT PRIMARY KEY, keys BLOB NOT NULL) WITHOUT ROWID;
DELETE FROM lex_docs;
DELETE FROM lex_df;
DELETE FROM docs;
DELETE FROM sem_pending;
DELETE FROM meta WHERE key IN ('config', 'index', 'folders')
"""


def _run(conn: sqlite3.Connection, statements: str) -> None:
    for statement in statements.split(";"):
        if statement.strip():
            conn.execute(statement)


def _to_v2(conn: sqlite3.Connection) -> None:
    _run(conn, SCHEMA_V2)
    # Sessions of version 1 kept no time: their idle time (pruning, `--session last`) counts from the upgrade.
    conn.execute("UPDATE sessions SET updated = coalesce(updated, ?)", (time.time(),))


# The schema's steps, in order: step n takes a state at version n to version n + 1 (SQL statements, or a function
# of the connection), so a new state runs them all and an older one the steps after its version. The version
# check reads the same list: a version beyond it is a newer ctx's state, set aside as foreign.
# Version 8: how many sections hold each word, the twin of lex_df: a section query weighs a word by its spread
# over the sections, not over the docs (a word in most docs may still be in few of their sections).
SCHEMA_V8 = """
CREATE TABLE sec_df (word TEXT PRIMARY KEY, sections INTEGER NOT NULL) WITHOUT ROWID
"""


# Version 9: the config's `keywords` in a table of their own, as `related`: a turn looks up the few docs it
# lifts (router.py: _lifting) where it loaded them all (10,000 entries in a generated repo of 10,000 docs, on
# every prompt that said a keyword many docs share). The config is read anew.
SCHEMA_V9 = """
CREATE TABLE IF NOT EXISTS cfg_keywords (path TEXT PRIMARY KEY, keywords BLOB NOT NULL) WITHOUT ROWID;
DELETE FROM meta WHERE key IN ('config', 'config_keywords')
"""


MIGRATIONS: tuple[Any, ...] = (SCHEMA, _to_v2, SCHEMA_V3, SCHEMA_V4, SCHEMA_V5, SCHEMA_V6, SCHEMA_V7, SCHEMA_V8,
                               SCHEMA_V9)
SCHEMA_VERSION = len(MIGRATIONS)
CONFIG_MAPS = {"keywords": "cfg_keywords", "related": "cfg_related"}  # the config's per-doc lists: their tables


# The resident server (faces/serve.py) sets this to a list: a turn's committed connection is closed once the
# server has sent its answer, not before it (the last close of a state runs a WAL checkpoint, about a
# millisecond). Every other process closes a connection at once.
CLOSE_LATER: list[sqlite3.Connection] | None = None
# ... and this to a dict: a state's connection stays open from one turn to the next, with a bigger page cache
# (no open, no reading the same pages again: a warm turn at 100,000 docs 2.5-7 ms less), while the file is the
# one it opened and its schema this ctx's (absolute path -> (device, inode, connection)), for the last few states.
KEPT: dict[str, tuple[int, int, sqlite3.Connection]] | None = None
KEPT_STATES = 4
KEPT_CACHE_KIB = 16384


def settle_kept() -> None:
    """Between two served turns: a kept connection that a failed turn left inside a transaction is closed (an
    open read would hold back the WAL's checkpoints)."""
    kept = KEPT or {}
    for key, held in list(kept.items()):
        if held[2].in_transaction:
            del kept[key]
            held[2].close()


KEEP_TURNS = 1000  # a session's history and record of what it showed keep its last this many turns
PRUNE_EVERY = 100  # turns between two prunings of a session's old turns
SHARED_FROM = 8  # docs one cause set to one score in a turn, from which the history keeps them in one row
PACK_SHOWN_FROM = 4096  # bytes of a turn's record of what it showed, from which it is kept compressed


def _shown(raw: bytes) -> Any:
    """A turn's record of what it showed: marshal data, compressed when big (zlib's header byte is 'x', which no
    marshalled dict starts with)."""
    raw = bytes(raw)
    if raw[:1] == b"x":
        import zlib

        try:
            raw = zlib.decompress(raw)
        except zlib.error as exc:
            raise ForeignState(f"stored turn is damaged: {exc}") from None
    return loads(raw)


def _unpack(packed: bytes, zlib: Any) -> tuple[tuple[str, str, str, str] | None, dict[int, tuple[str, str]]]:
    """(the fields, section number -> (heading, text)) a doc's words were indexed with (see _save_lexical)."""
    try:
        fields, sections = loads(zlib.decompress(bytes(packed)))
    except zlib.error as exc:
        raise ForeignState(f"stored text index words are damaged: {exc}") from None
    return (tuple(fields) if fields is not None else None), {n: tuple(v) for n, v in sections}  # type: ignore[return-value]


def _keys(raw: bytes) -> list[tuple[str, str, int]]:
    """A doc's (token, keyword, derived) in keyword order, as kw_docs keeps them (flat, see set_keywords)."""
    flat = loads(raw)
    return [(flat[i], flat[i + 1], int(flat[i + 2])) for i in range(0, len(flat), 3)]


class ForeignState(sqlite3.DatabaseError):
    """The file is not a ctx state database we can use (another application's, another schema, bad data)."""


def loads(raw: bytes) -> Any:
    """Decode a stored value; data this Python cannot read makes the state unusable, not the turn a crash."""
    try:
        return marshal.loads(raw)
    except (ValueError, EOFError, TypeError) as exc:
        raise ForeignState(f"unreadable stored data ({exc})") from None


def is_locked(exc: BaseException) -> bool:
    """Another process holds the write lock (SQLITE_BUSY, or SQLITE_LOCKED)."""
    code = getattr(exc, "sqlite_errorcode", None)
    return (code & 0xFF in (5, 6)) if code is not None else "locked" in str(exc)


def is_corruption(exc: BaseException) -> bool:
    """A damaged or foreign file, as opposed to a locked, full or read-only one (whose state must be kept)."""
    if isinstance(exc, ForeignState):
        return True
    code = getattr(exc, "sqlite_errorcode", None)
    if code is not None:
        return code & 0xFF in (SQLITE_CORRUPT, SQLITE_NOTADB)
    return type(exc) is sqlite3.DatabaseError


@record
class Kept:
    """A score as kept: the value it was set to at `turn`, decaying by `rate` a turn from then on (None: an
    upgraded score, at its doc's rate)."""

    score: float
    turn: int
    rate: float | None
    last_hit_turn: int
    hits: int


@record
class Session:
    name: str
    turn: int
    scores: dict[str, Kept]  # every kept score (none when the session was read without them)
    bucket: tuple[float, float]  # rate limit: (tokens left, wall-clock time they were counted)
    semantic: dict[str, Any]  # the semantic layer's memory of this session (see layers.py)


@record
class Pin:
    path: str
    level: str
    created: float
    expires: float | None
    attestation: str | None


WATCH_LOCK = "watch.lock"
CAUSE_SEPARATOR = "\t"  # between a turn's causes in the history: a keyword cause may hold spaces, never a tab
LAST_SESSION = "last"  # names the most recent session wherever a session is asked for
MEMORY = ":memory:"  # a throwaway state, for a command that only reads where no state exists yet


def watch_alive(state_dir: str, lock: str = WATCH_LOCK) -> bool:
    """Whether a `ctx watch` (or the process that owns `lock`) holds its lock on this state folder.

    An fcntl lock dies with its process, so a killed watcher is never mistaken for a live one.
    """
    try:
        fd = os.open(os.path.join(state_dir, lock), os.O_RDONLY | os.O_NONBLOCK)
    except OSError:
        return False
    import fcntl

    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except OSError:
        return True
    finally:
        os.close(fd)
    return False


def default_path(state_dir: str) -> str:
    env = os.environ.get(ENV_STATE)
    return os.path.abspath(env) if env else os.path.join(state_dir, "state.db")


def set_aside(path: str, reason: BaseException, warn: Any = None) -> None:
    """Move an unusable state file (and its WAL) to `<name>.corrupt-<timestamp>` so a fresh one can start."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    target = f"{path}.corrupt-{stamp}-{os.getpid()}"
    try:
        os.replace(path, target)
        for suffix in ("-wal", "-shm"):
            if os.path.exists(path + suffix):
                os.replace(path + suffix, target + suffix)
    except FileNotFoundError:
        pass  # another process set it aside first
    except OSError as exc:
        raise StateError(f"cannot move aside unusable state {path}: {exc.strerror}") from None
    if warn is not None:
        warn(f"warning: state {os.path.basename(path)} was unusable ({reason}); moved to "
             f"{os.path.basename(target)}, starting fresh")


def _refuse_links(path: str) -> None:
    """A state file that is a symbolic link is refused, as a pin key or a watch lock that is not a regular file
    is: SQLite would create, write or set aside whatever it points at (a repo may ship `.ctx/state.db` linked
    to a file of the user's)."""
    for name in (path, *(path + suffix for suffix in ("-wal", "-shm", "-journal"))):
        if os.path.islink(name):
            raise StateError(f"state file {name} is a symbolic link: refused (remove it; to keep the state "
                             f"elsewhere, point ${ENV_STATE} at the file itself)")


class _Transaction:
    # A class rather than contextlib.contextmanager: contextlib costs ~3 ms to import on the hook path.
    def __init__(self, store: Store, begin: str = "BEGIN IMMEDIATE"):
        self.store = store
        self.conn = store.conn
        self.begin = begin

    def __enter__(self) -> None:
        # IMMEDIATE takes the write lock up front: concurrent turns queue here instead of failing later.
        # A read-only turn begins a plain (deferred) transaction: under WAL it reads while another writes.
        self.store.read_only = self.begin != "BEGIN IMMEDIATE"
        self.conn.execute(self.begin)

    def __exit__(self, kind: object, exc: object, tb: object) -> None:
        self.store.read_only = False
        if kind is None:
            self.conn.execute("COMMIT")
            return
        try:
            self.conn.execute("ROLLBACK")
        except sqlite3.Error:
            pass  # the original error says more


IDENTIFY = ("SELECT (SELECT application_id FROM pragma_application_id()), "
            "(SELECT user_version FROM pragma_user_version()), (SELECT count(*) FROM sqlite_master)")


class Store:
    def __init__(self, path: str, warn: Any = None):
        self.path = path
        self.read_only = False  # inside a read transaction: caches are not written
        self.warn = warn or (lambda message: None)
        for attempt in range(OPEN_ATTEMPTS):
            try:
                self.conn = self._open()
                return
            except sqlite3.DatabaseError as exc:
                # Two processes creating a new state at once: switching it to WAL needs a lock SQLite does not
                # wait for. The loser tries again shortly; the schema is then there.
                if is_locked(exc) and attempt + 1 < OPEN_ATTEMPTS:
                    time.sleep(0.05 * (attempt + 1))
                    continue
                if not is_corruption(exc):
                    raise StateError(f"cannot open state {self.path}: {exc}") from None
                set_aside(self.path, exc, self.warn)
                self.conn = self._open()
                return

    def _open(self) -> sqlite3.Connection:
        if KEPT is None or self.path == MEMORY:
            return self._connect()
        key = os.path.abspath(self.path)
        try:
            st = os.stat(key)
            here: tuple[int, int] | None = (st.st_dev, st.st_ino)
        except OSError:
            here = None
        held = KEPT.pop(key, None)
        if held is not None:
            conn = held[2]
            if conn.in_transaction:  # another store of this turn is using it: this one gets its own
                KEPT[key] = held
                return self._connect()
            if held[:2] == here and tuple(conn.execute(IDENTIFY).fetchone()[:2]) == (APPLICATION_ID, SCHEMA_VERSION):
                conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
                KEPT[key] = held  # the most recently used last
                return conn
            conn.close()  # the file was replaced, or another ctx changed its schema: opened and checked afresh
        conn = self._connect()
        conn.execute(f"PRAGMA cache_size = -{KEPT_CACHE_KIB}")
        st = os.stat(key)
        KEPT[key] = (st.st_dev, st.st_ino, conn)
        while len(KEPT) > KEPT_STATES:
            KEPT.pop(next(iter(KEPT)))[2].close()
        return conn

    def _connect(self) -> sqlite3.Connection:
        try:
            if self.path != MEMORY and not os.path.isdir(self.folder):
                os.makedirs(self.folder, exist_ok=True)
                if os.path.basename(self.folder) == ".ctx":  # ctx's own folder in a project: never committed
                    with open(os.path.join(self.folder, ".gitignore"), "w", encoding="utf-8") as fh:
                        fh.write("*\n")
        except OSError as exc:
            raise StateError(f"cannot create state folder {self.folder}: {exc.strerror}") from None
        if self.path != MEMORY:
            _refuse_links(self.path)
        try:
            conn = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None)
        except sqlite3.OperationalError as exc:
            raise StateError(f"cannot open state {self.path}: {exc}") from None
        try:
            # WAL with synchronous=NORMAL: a commit is atomic and survives the process being killed at any
            # moment; only a power cut may lose the last turns. That trade saves an fsync on every prompt.
            conn.execute("PRAGMA synchronous = NORMAL")
            # One statement, one snapshot: read apart, another process's new schema committed between the
            # reads would make this file look like another application's (and it would be set aside).
            app_id, version, tables = conn.execute(IDENTIFY).fetchone()
            if app_id == 0 and version == 0:
                if tables:
                    raise ForeignState("another application's database")
                self._create(conn)
            elif app_id != APPLICATION_ID:
                raise ForeignState("another application's database")
            elif 0 < version < SCHEMA_VERSION:
                self._upgrade(conn, version)
            elif version != SCHEMA_VERSION:
                raise ForeignState(f"schema version {version}, this ctx knows {SCHEMA_VERSION}")
        except BaseException:
            conn.close()
            raise
        return conn

    @staticmethod
    def _create(conn: sqlite3.Connection) -> None:
        # WAL lets `ctx status` read while a turn writes; it is a property of the file, set once, outside any
        # transaction. Several processes may get here at once: the version check under the write lock
        # makes exactly one of them create the schema.
        conn.execute("PRAGMA journal_mode = WAL")
        Store._migrate(conn, 0, f"PRAGMA application_id = {APPLICATION_ID}")

    @staticmethod
    def _upgrade(conn: sqlite3.Connection, version: int) -> None:
        """An older schema, upgraded in place by the steps after it: sessions, pins, scores and history are
        kept. The docs index is rebuilt (its signature carries the ctx version), and with it the model."""
        Store._migrate(conn, version)

    @staticmethod
    def _migrate(conn: sqlite3.Connection, version: int, last: str = "") -> None:
        """Run the steps after `version`, then `last`, and set the schema version: once, under the write lock,
        and only while the file is still at `version` (another process may have done it first)."""
        conn.execute("BEGIN IMMEDIATE")
        try:
            if conn.execute("PRAGMA user_version").fetchone()[0] == version:
                for step in MIGRATIONS[version:]:
                    step(conn) if callable(step) else _run(conn, step)
                if last:
                    conn.execute(last)
                conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise

    def close(self) -> None:
        if KEPT is not None and any(held[2] is self.conn for held in KEPT.values()):
            return  # the server's: open for the next turn
        if CLOSE_LATER is not None and self.path != MEMORY:
            CLOSE_LATER.append(self.conn)
        else:
            self.conn.close()

    @property
    def folder(self) -> str:
        return os.path.dirname(self.path)

    def transaction(self) -> _Transaction:
        """`with store.transaction():` one BEGIN IMMEDIATE ... COMMIT, rolled back on any exception."""
        return _Transaction(self)

    def read_transaction(self) -> _Transaction:
        """A transaction that only reads (caches are not written in it): it never waits for a writer."""
        return _Transaction(self, "BEGIN")

    def wait_for_lock(self, seconds: float) -> None:
        """How long a write transaction waits for another process's write lock before it fails."""
        self.conn.execute(f"PRAGMA busy_timeout = {int(seconds * 1000)}")

    # -- meta and caches -------------------------------------------------------------------------------------

    def get_meta(self, key: str, packed: bool = False) -> Any:
        """packed: the value was stored compressed (a big value read rarely)."""
        row = self.conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        if row is None:
            return None
        raw = bytes(row[0])
        if packed:
            import zlib

            try:
                raw = zlib.decompress(raw)
            except zlib.error as exc:
                raise ForeignState(f"stored {key} is damaged: {exc}") from None
        return loads(raw)

    def put_meta(self, key: str, value: Any, packed: bool = False) -> None:
        raw = marshal.dumps(value)
        if packed:
            import zlib

            raw = zlib.compress(raw)
        self.conn.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (key, raw))

    # -- docs index ------------------------------------------------------------------------------------------

    def clear_index(self) -> None:
        self.conn.execute("DELETE FROM docs")
        self.conn.execute("DELETE FROM kw")
        self.conn.execute("DELETE FROM kw_docs")
        self.conn.execute("DELETE FROM lex_docs")
        self.conn.execute("INSERT INTO lex (lex) VALUES ('delete-all')")  # (contentless: no DELETE)
        self.conn.execute("DELETE FROM sec_docs")
        self.conn.execute("INSERT INTO sec (sec) VALUES ('delete-all')")
        self.conn.execute("DELETE FROM lex_df")
        self.conn.execute("DELETE FROM sec_df")
        # The model is built afresh for a new index: the docs it holds are the old index's (another docs folder's,
        # another version's text), and folding the new ones into it would keep the old IDF and clusters.
        self.conn.execute("DELETE FROM sem_pending")
        self.conn.execute("DELETE FROM sem_docs")
        self.conn.execute("DELETE FROM postings")
        claims.clear(self.conn)

    def save_docs(self, docs: Iterable[Doc], skipped: Iterable[tuple[str, Stat]], removed: Iterable[str],
                  seq: int | None = None) -> None:
        """seq: the index version these changes make; the changed docs wait in sem_pending under it until the
        semantic model takes them in (None: no semantic layer, nothing to queue)."""
        docs, skipped, removed = sorted(docs, key=lambda d: d.path), list(skipped), list(removed)  # key order
        self.conn.executemany("DELETE FROM docs WHERE path = ?", ((p,) for p in removed))
        self.conn.executemany(
            "INSERT OR REPLACE INTO docs VALUES (?, ?, ?, 0, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            ((d.path, d.mtime_ns, d.size, d.title, "", int(d.truncated), marshal.dumps(d.keywords),
              marshal.dumps(d.related), d.pinned, d.decay, int(d.oversize), d.terms[0] if d.terms else None,
              d.terms[1] if d.terms else None, d.entropy, int(d.hub)) for d in docs))
        self.conn.executemany(
            "INSERT OR REPLACE INTO docs (path, mtime_ns, size, skipped) VALUES (?, ?, ?, 1)",
            ((p, st[0], st[1]) for p, st in skipped))
        self._save_lexical(docs, [*removed, *(p for p, _ in skipped)])
        claims.save(self.conn, docs, [*removed, *(p for p, _ in skipped)])
        if seq is not None:
            self.conn.executemany("INSERT OR REPLACE INTO sem_pending VALUES (?, ?)",
                                  ((p, seq) for p in (*(d.path for d in docs), *removed, *(p for p, _ in skipped))))

    def _save_lexical(self, docs: Iterable[Doc], gone: list[str]) -> None:
        """The text index follows the docs: a changed doc's row is replaced, a gone or skipped doc's removed.

        The FTS5 tables hold no text (contentless): taking a doc's words out needs the words it was given, which
        lex_docs keeps packed (zlib) beside the doc's row, one copy for both tables."""
        import zlib

        docs = list(docs)
        stale = gone + [d.path for d in docs]
        if stale:
            self.conn.execute("DELETE FROM lex_df")
            self.conn.execute("DELETE FROM sec_df")
        for rowid, packed, first in self._select_in("SELECT id, packed, sec_first FROM lex_docs WHERE path IN ({})",
                                                    stale):
            fields, parts = _unpack(packed, zlib) if packed is not None else (None, {})
            if fields is not None:
                self.conn.execute("INSERT INTO lex (lex, rowid, path, title, headings, body) "
                                  "VALUES ('delete', ?, ?, ?, ?, ?)", (rowid, *fields))
            if first is not None:  # the doc's sections are the run of rows from `first`, in their order
                self.conn.executemany("INSERT INTO sec (sec, rowid, heading, body) VALUES ('delete', ?, ?, ?)",
                                      ((first + k, *parts[n]) for k, n in enumerate(sorted(parts))))
                self.conn.execute("DELETE FROM sec_docs WHERE id >= ? AND id < ?", (first, first + len(parts)))
            self.conn.execute("DELETE FROM lex_docs WHERE id = ?", (rowid,))
        after = self.conn.execute("SELECT coalesce(max(id), 0) + 1 FROM sec_docs").fetchone()[0]
        for d in docs:
            if d.text is None:
                continue
            packed = zlib.compress(marshal.dumps((d.text, d.sections)))
            first = after if d.sections else None
            rowid = self.conn.execute("INSERT INTO lex_docs (path, packed, sec_first) VALUES (?, ?, ?)",
                                      (d.path, packed, first)).lastrowid
            self.conn.execute("INSERT INTO lex (rowid, path, title, headings, body) VALUES (?, ?, ?, ?, ?)",
                              (rowid, *d.text))
            for n, (heading, body) in sorted(d.sections):
                self.conn.execute("INSERT INTO sec_docs (id, doc, ord) VALUES (?, ?, ?)", (after, rowid, n))
                self.conn.execute("INSERT INTO sec (rowid, heading, body) VALUES (?, ?, ?)", (after, heading, body))
                after += 1

    def lexical_search(self, query: str, weights: tuple[float, ...], limit: int) -> list[tuple[str, float]]:
        """(path, relevance) of the best `limit` docs for an FTS5 query, best first (bm25, higher is better)."""
        return [(p, -s) for p, s in self.conn.execute(
            f"SELECT d.path, bm25(lex, {', '.join(map(str, weights))}) AS s FROM lex JOIN lex_docs d ON "
            "d.id = lex.rowid WHERE lex MATCH ? ORDER BY s LIMIT ?", (query, limit))]

    def section_search(self, query: str, weights: tuple[float, float], limit: int
                       ) -> list[tuple[str, int, float]]:
        """(path, section number, relevance) of the best `limit` sections of all docs for an FTS5 query."""
        return [(p, n, -s) for p, n, s in self.conn.execute(
            f"SELECT d.path, o.ord, bm25(sec, {weights[0]}, {weights[1]}) AS s FROM sec JOIN sec_docs o ON "
            "o.id = sec.rowid JOIN lex_docs d ON d.id = o.doc WHERE sec MATCH ? ORDER BY s LIMIT ?", (query, limit))]

    def lexical_snippets(self, query: str, weights: tuple[float, ...], limit: int,
                         marks: tuple[str, str] = ("**", "**")) -> list[tuple[str, float, str]]:
        """(path, relevance, a snippet of the body around the match, each match between `marks`) of the best
        docs for an FTS5 query.

        The text index keeps no text: the snippets come from the found docs' packed words, put in a throwaway
        table with the same tokenizer (a snippet depends on its own doc's text and the query only)."""
        import zlib

        found = [(p, -s, i) for p, s, i in self.conn.execute(
            f"SELECT d.path, bm25(lex, {', '.join(map(str, weights))}) AS s, d.id FROM lex JOIN lex_docs d ON "
            "d.id = lex.rowid WHERE lex MATCH ? ORDER BY s LIMIT ?", (query, limit))]
        if not found:
            return []
        packed = dict(self._select_in("SELECT id, packed FROM lex_docs WHERE id IN ({})", [i for *_, i in found]))
        self.conn.execute("CREATE VIRTUAL TABLE IF NOT EXISTS temp.lex_snippets USING fts5(path, title, headings, "
                          "body, tokenize = 'porter unicode61')")
        try:
            for i, raw in packed.items():
                fields = _unpack(raw, zlib)[0] if raw is not None else None
                if fields is not None:
                    self.conn.execute("INSERT INTO temp.lex_snippets (rowid, path, title, headings, body) "
                                      "VALUES (?, ?, ?, ?, ?)", (i, *fields))
            snippets = dict(self.conn.execute("SELECT rowid, snippet(lex_snippets, 3, ?, ?, ' ... ', 24) "
                                              "FROM temp.lex_snippets WHERE lex_snippets MATCH ?", (*marks, query)))
        finally:
            self.conn.execute("DELETE FROM temp.lex_snippets")
        return [(p, s, snippets.get(i, "")) for p, s, i in found]

    def lexical_doc_counts(self, words: list[str]) -> dict[str, int]:
        """How many docs' text holds each word (the index's tokenizer stems it), remembered until the text
        index changes: a prompt's words recur, and counting a common one reads its whole posting list."""
        known = dict(self._select_in("SELECT word, docs FROM lex_df WHERE word IN ({})", words))
        for word in words:
            if word not in known:
                quoted = '"' + word.replace('"', "") + '"'
                known[word] = int(self.conn.execute("SELECT count(*) FROM lex WHERE lex MATCH ?",
                                                    (quoted,)).fetchone()[0])
                if not self.read_only:
                    self.conn.execute("INSERT OR REPLACE INTO lex_df VALUES (?, ?)", (word, known[word]))
        return known

    def section_counts(self, words: list[str], upto: int) -> tuple[dict[str, int], int]:
        """(how many sections hold each word, how many sections there are), each counted as far as `upto`
        (the total as far as twice that): a word of every doc's template costs a turn `upto` postings, not
        its whole list. Remembered until the text index changes, as lexical_doc_counts; the row of the empty
        word, which no query has, keeps the total, and a row no word can have keeps `upto`: a count remembered
        as far as another bound is counted again."""
        known = dict(self._select_in("SELECT word, sections FROM sec_df WHERE word IN ({})",
                                     [_COUNTED_UPTO, "", *words]))
        if known.pop(_COUNTED_UPTO, None) != upto:  # counted as far as another bound (an older ctx's): anew
            known = {}
            if not self.read_only:
                self.conn.execute("DELETE FROM sec_df")
                self.conn.execute("INSERT INTO sec_df VALUES (?, ?)", (_COUNTED_UPTO, upto))
        for word in ["", *words]:
            if word not in known:
                quoted = '"' + word.replace('"', "") + '"'
                known[word] = int(self.conn.execute(
                    "SELECT count(*) FROM (SELECT 1 FROM sec WHERE sec MATCH ? LIMIT ?)", (quoted, upto)
                ).fetchone()[0] if word else self.conn.execute(
                    "SELECT count(*) FROM (SELECT 1 FROM sec_docs LIMIT ?)", (2 * upto,)).fetchone()[0])
                if not self.read_only:
                    self.conn.execute("INSERT OR REPLACE INTO sec_df VALUES (?, ?)", (word, known[word]))
        return known, known.pop("")

    def lexical_sections(self, sections: list[tuple[str, str]], query: str, weights: tuple[float, float]
                         ) -> list[tuple[int, float]]:
        """(section number, relevance) of the sections that match `query`, best first: the same tokenizer and
        bm25 as the docs' text index, over a throwaway in-memory table."""
        self.conn.execute("CREATE VIRTUAL TABLE IF NOT EXISTS temp.lex_sections USING fts5(title, body, "
                          "tokenize = 'porter unicode61')")
        try:
            self.conn.executemany("INSERT INTO temp.lex_sections (rowid, title, body) VALUES (?, ?, ?)",
                                  ((i, t, b) for i, (t, b) in enumerate(sections)))
            return [(int(i), -s) for i, s in self.conn.execute(
                f"SELECT rowid, bm25(lex_sections, {weights[0]}, {weights[1]}) AS s FROM temp.lex_sections "
                "WHERE lex_sections MATCH ? ORDER BY s", (query,))]
        finally:
            self.conn.execute("DELETE FROM temp.lex_sections")

    def _select_in(self, sql: str, values: Iterable[Any], first: Sequence[Any] = ()) -> list[Any]:
        """Run `sql` (with one `IN ({})`, after the parameters `first`) over the values in chunks that stay
        under SQLite's variable limit."""
        wanted = list(values)
        rows: list[Any] = []
        for i in range(0, len(wanted), 500):
            chunk = wanted[i:i + 500]
            rows += self.conn.execute(sql.format(",".join("?" * len(chunk))), [*first, *chunk]).fetchall()
        return rows

    # -- the listing: (mtime, size) of every file the index holds, indexed or skipped, from the docs table ------

    def listing(self) -> dict[str, Stat]:
        return {p: (m, z) for p, m, z in self.conn.execute("SELECT path, mtime_ns, size FROM docs")}

    def listing_in(self, folders: Iterable[str], paths: Iterable[str] = ()) -> dict[str, Stat]:
        """The listed files directly inside these folders ("" the top, "a/b/" others), and these paths."""
        out: dict[str, Stat] = {}
        for rel in folders:
            out.update((p, (m, z)) for p, m, z in self.conn.execute(
                "SELECT path, mtime_ns, size FROM docs WHERE path >= ?1 AND path < ?1 || char(1114111) "
                "AND instr(substr(path, length(?1) + 1), '/') = 0", (rel,)))
        out.update((p, (m, z)) for p, m, z in self._select_in(
            "SELECT path, mtime_ns, size FROM docs WHERE path IN ({})", paths))
        return out

    def listing_after(self, path: str, limit: int) -> list[str]:
        """Up to `limit` listed paths after `path`, in order, starting over from the first at the end."""
        rows = [r[0] for r in self.conn.execute("SELECT path FROM docs WHERE path > ? ORDER BY path LIMIT ?",
                                                (path, limit))]
        if len(rows) < limit:
            rows += [r[0] for r in self.conn.execute("SELECT path FROM docs WHERE path <= ? ORDER BY path LIMIT ?",
                                                     (path, limit - len(rows)))]
        return rows

    def known(self, paths: Iterable[str]) -> frozenset[str]:
        """Which of these paths are indexed docs."""
        return frozenset(r[0] for r in self._select_in("SELECT path FROM docs WHERE skipped = 0 AND path IN ({})",
                                                       paths))

    def skipped(self) -> list[str]:
        """The files in the docs folder that are not indexed: binary or unreadable when they were last read."""
        return [r[0] for r in self.conn.execute("SELECT path FROM docs WHERE skipped = 1 ORDER BY path")]

    def doc_count(self) -> int:
        return int(self.conn.execute("SELECT count(*) FROM docs WHERE skipped = 0").fetchone()[0])

    def doc_settings(self, paths: Iterable[str]) -> dict[str, tuple[tuple[str, ...], str | None, float | None]]:
        """path -> (related, pinned, decay) from the front matter of these docs."""
        return {p: (loads(r), pin, decay) for p, r, pin, decay in self._select_in(
            "SELECT path, related, pinned, decay FROM docs WHERE skipped = 0 AND path IN ({})", paths)}

    def doc_claims(self) -> dict[str, tuple[str, ...]]:
        """doc -> the globs of the files its front matter says it is about (store/claims.py)."""
        return claims.load(self.conn)

    def pinned_docs(self) -> dict[str, str]:
        """path -> level of the docs pinned by their front matter (an index keeps this query small)."""
        return dict(self.conn.execute(
            "SELECT path, pinned FROM docs INDEXED BY docs_pinned WHERE pinned IS NOT NULL AND skipped = 0"))

    def set_config_map(self, table: str, entries: Mapping[str, Sequence[str]]) -> None:
        """Keep one of the config's per-doc lists (`CONFIG_MAPS`: keywords, related) in its table."""
        self.conn.execute(f"DELETE FROM {CONFIG_MAPS[table]}")
        self.conn.executemany(f"INSERT INTO {CONFIG_MAPS[table]} VALUES (?, ?)",
                              ((p, marshal.dumps(tuple(v))) for p, v in entries.items()))

    def config_map(self, table: str, path: str | None = None) -> dict[str, tuple[str, ...]]:
        """The entries of one of the config's per-doc lists (of one path, or all)."""
        name = CONFIG_MAPS[table]
        rows = self.conn.execute(f"SELECT * FROM {name}") if path is None else \
            self.conn.execute(f"SELECT * FROM {name} WHERE path = ?", (path,))
        return {p: loads(v) for p, v in rows}

    # -- keyword index: token -> (keyword, path), so a turn looks up only the prompt's tokens -----------------

    def set_keywords(self, rows_by_path: dict[str, list[tuple[str, str, bool]]], replace_all: bool = False) -> None:
        """rows_by_path: path -> [(token, keyword, derived), ...] in keyword order."""
        if replace_all:
            self.conn.execute("DELETE FROM kw")
            self.conn.execute("DELETE FROM kw_docs")
        else:
            old = self._select_in("SELECT path, keys FROM kw_docs WHERE path IN ({})", rows_by_path)
            self.conn.executemany("DELETE FROM kw WHERE token = ? AND keyword = ? AND path = ?",
                                  ((t, k, p) for p, keys in old for t, k, _ in _keys(keys)))
            self.conn.executemany("DELETE FROM kw_docs WHERE path = ?", ((p,) for p, _ in old))
        # In key order: rows appended to a b-tree fill its pages, rows put in at random leave them a quarter empty.
        self.conn.executemany("INSERT OR IGNORE INTO kw VALUES (?, ?, ?, ?)",
                              sorted((t, k, p, int(d)) for p, rows in rows_by_path.items() for t, k, d in rows))
        self.conn.executemany("INSERT INTO kw_docs VALUES (?, ?)",
                              ((p, marshal.dumps(tuple(x for t, k, d in rows for x in (t, k, bool(d)))))
                               for p, rows in sorted(rows_by_path.items()) if rows))

    def token_counts(self, tokens: Iterable[str]) -> dict[str, int]:
        """How many stored keywords are filed under each of these tokens."""
        return dict(self._select_in("SELECT token, count(*) FROM kw WHERE token IN ({}) GROUP BY token", tokens))

    def keyword_candidates(self, tokens: Iterable[str]) -> list[tuple[str, str, int]]:
        """(keyword, path, derived) for every keyword keyed by one of these tokens (and those with no word
        token)."""
        return self._select_in("SELECT keyword, path, derived FROM kw WHERE token IN ({})", ["", *tokens])

    def keyword_counts(self, tokens: Iterable[str], upto: int) -> list[tuple[str, str, int]]:
        """(token, keyword, how many docs have it under that token, counted up to `upto`) of every keyword filed
        under one of these tokens (and those with no word token). The index is walked from one keyword to the
        next (each a seek, however many docs share the one before) and a keyword's docs are counted only up to
        `upto`: a keyword shared by every doc costs no more than one of a single doc."""
        wanted = sorted({"", *tokens})
        rows: list[tuple[str, str, int]] = []
        for i in range(0, len(wanted), 500):
            chunk = wanted[i:i + 500]
            rows += self.conn.execute(
                "WITH RECURSIVE t(token) AS (VALUES " + ",".join(["(?)"] * len(chunk)) + "), "
                "d(token, keyword) AS (SELECT token, (SELECT min(keyword) FROM kw WHERE kw.token = t.token) FROM t "
                "UNION ALL SELECT token, (SELECT min(keyword) FROM kw WHERE kw.token = d.token AND kw.keyword > "
                "d.keyword) FROM d WHERE keyword IS NOT NULL) "
                "SELECT token, keyword, (SELECT count(*) FROM (SELECT 1 FROM kw WHERE kw.token = d.token AND "
                "kw.keyword = d.keyword LIMIT ?)) FROM d WHERE keyword IS NOT NULL",
                [*chunk, upto]).fetchall()
        return rows

    def keyword_docs(self, token: str, keyword: str, paths: Iterable[str] | None = None
                     ) -> list[tuple[str, str, int]]:
        """(keyword, path, derived) of the docs that have this keyword (filed under this token), or of these of
        them."""
        sql = "SELECT keyword, path, derived FROM kw WHERE token = ? AND keyword = ?"
        if paths is None:
            return self.conn.execute(sql, (token, keyword)).fetchall()
        return self._select_in(sql + " AND path IN ({})", paths, (token, keyword))

    def paths_under(self, folder: str, limit: int) -> list[str] | None:
        """The indexed docs below a folder ("" for all), None when there are more than `limit`: a range of the
        docs table's key, read as far as the limit."""
        if folder:
            rows = self.conn.execute("SELECT path FROM docs WHERE path >= ? AND path < ? AND NOT skipped LIMIT ?",
                                     (folder + "/", folder + "0", limit + 1)).fetchall()
        else:
            rows = self.conn.execute("SELECT path FROM docs WHERE NOT skipped LIMIT ?", (limit + 1,)).fetchall()
        return None if len(rows) > limit else [p for (p,) in rows]

    def hubs(self, paths: Iterable[str]) -> frozenset[str]:
        """Which of these docs are hubs (pages that mostly link to other pages)."""
        return frozenset(p for (p,) in self._select_in("SELECT path FROM docs WHERE hub AND path IN ({})", paths))

    def keyword_owners(self, paths: Iterable[str], upto: int) -> list[tuple[str, str, int, int]]:
        """(keyword, path, derived, how many docs have the keyword, counted up to `upto`) of each keyword of these
        docs, in order: a keyword a thousand docs share is counted as far as the question needs, not read whole."""
        rows = [(t, k, p, d) for p, keys in sorted(self._select_in("SELECT path, keys FROM kw_docs WHERE path IN ({})",
                                                                   paths))
                for t, k, d in _keys(keys)]
        counts: list[int] = []
        for i in range(0, len(rows), 300):
            chunk = rows[i:i + 300]
            counts += [n for (n,) in self.conn.execute(
                "WITH w(i, token, keyword) AS (VALUES " + ",".join(["(?, ?, ?)"] * len(chunk)) + ") "
                "SELECT (SELECT count(*) FROM (SELECT 1 FROM kw WHERE kw.token = w.token AND kw.keyword = w.keyword "
                "LIMIT ?)) FROM w ORDER BY i", [*(x for j, (t, k, _, _) in enumerate(chunk) for x in (j, t, k)), upto])]
        return [(k, p, d, n) for (_, k, p, d), n in zip(rows, counts, strict=True)]

    def keywords_of(self, paths: Iterable[str]) -> dict[str, tuple[str, ...]]:
        return {p: tuple(k for _, k, _ in _keys(keys))
                for p, keys in self._select_in("SELECT path, keys FROM kw_docs WHERE path IN ({})", paths)}

    def docs(self, paths: Iterable[str] | None = None) -> dict[str, Doc]:
        query = ("SELECT path, mtime_ns, size, title, NULL, truncated, keywords, related, pinned, decay, oversize"
                 " FROM docs WHERE skipped = 0")
        rows = self.conn.execute(query).fetchall() if paths is None else \
            self._select_in(query + " AND path IN ({})", paths)
        return {r[0]: Doc(path=r[0], mtime_ns=r[1], size=r[2], title=r[3], header="",  # read at the turn
                          truncated=bool(r[5]),
                          keywords=loads(r[6]), related=loads(r[7]), pinned=r[8], decay=r[9],
                          oversize=bool(r[10])) for r in rows}

    # -- sessions ---------------------------------------------------------------------------------------------

    def session(self, name: str, scores: bool = True) -> Session:
        """scores: with every kept score of the session (a turn asks for the ones it needs instead)."""
        row = self.conn.execute("SELECT turn, bucket, semantic FROM sessions WHERE name = ?", (name,)).fetchone()
        kept = self._kept("WHERE session = ? AND live_until >= ?", (name, row[0] if row else 0)) if scores else {}
        if row is None:
            return Session(name, 0, kept, (-1.0, 0.0), {})
        bucket = tuple(loads(row[1]))
        return Session(name, row[0], kept, bucket, loads(row[2]) if row[2] else {})  # type: ignore[arg-type]

    def _kept(self, where: str, params: Sequence[Any]) -> dict[str, Kept]:
        return {p: Kept(s, t, r, h, n) for p, s, t, r, h, n in self.conn.execute(
            "SELECT path, score, turn, rate, last_hit_turn, hits FROM scores " + where, params)}

    def warm_scores(self, name: str, turn: int) -> dict[str, Kept]:
        """The kept scores still at or above the WARM line at `turn` (or set before the lines were kept)."""
        return self._kept("INDEXED BY scores_warm WHERE session = ? AND warm_until >= ?", (name, turn))

    def kept_scores(self, name: str, paths: Iterable[str], turn: int) -> dict[str, Kept]:
        """The kept scores of these docs that have not decayed to nothing by `turn`."""
        return {p: Kept(s, t, r, h, n) for p, s, t, r, h, n in self._select_in(
            "SELECT path, score, turn, rate, last_hit_turn, hits FROM scores WHERE session = ? AND live_until >= ? "
            "AND path IN ({})", paths, (name, turn))}

    def save_turn(self, name: str, turn: int, scores: Mapping[str, tuple[Kept, int, int]],
                  causes: Mapping[str, tuple[str, ...]], bucket: tuple[float, float], semantic: dict[str, Any],
                  now: float | None = None, shown: tuple[int, dict[str, tuple[Any, ...]]] | None = None,
                  dropped: Iterable[str] = ()) -> None:
        """scores: path -> (its score as kept, its WARM and zero turns) of the docs this turn set; dropped: the
        docs whose score it took to zero; causes: path -> what changed its score, for the history (with the
        score it was set to, or 0). shown: (the chars printed, path -> (tier or why left out, chars[, chars the
        conversation held and the turn named instead of sending])) of a turn that printed."""
        now = now or time.time()
        self.conn.execute("INSERT OR REPLACE INTO sessions (name, turn, bucket, semantic, updated) "
                          "VALUES (?, ?, ?, ?, ?)",
                          (name, turn, marshal.dumps(bucket), marshal.dumps(semantic), now))
        if shown is not None:
            raw = marshal.dumps(shown[1])
            if len(raw) > PACK_SHOWN_FROM:
                import zlib

                raw = zlib.compress(raw)
            self.conn.execute("INSERT OR REPLACE INTO turns VALUES (?, ?, ?, ?, ?)",
                              (name, turn, now, shown[0], raw))
        self.conn.execute("DELETE FROM scores INDEXED BY scores_live WHERE session = ? AND live_until < ?",
                          (name, turn))
        self.conn.executemany("DELETE FROM scores WHERE session = ? AND path = ?", ((name, p) for p in dropped))
        self.conn.executemany(
            "INSERT OR REPLACE INTO scores (session, path, score, last_hit_turn, hits, turn, rate, warm_until, "
            "live_until) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            ((name, p, k.score, k.last_hit_turn, k.hits, k.turn, k.rate, warm, live)
             for p, (k, warm, live) in scores.items()))
        if turn % PRUNE_EVERY == 0 and turn > KEEP_TURNS:
            self.prune_turns(name, turn - KEEP_TURNS + 1)
        groups: dict[tuple[float, tuple[str, ...]], list[str]] = {}
        for p, c in causes.items():
            groups.setdefault((scores[p][0].score if p in scores else 0.0, c), []).append(p)
        shared = {key: paths for key, paths in groups.items() if len(paths) >= SHARED_FROM}
        self.conn.executemany(
            "INSERT INTO history VALUES (?, ?, ?, ?, ?)",
            ((name, turn, p, score, CAUSE_SEPARATOR.join(c)) for (score, c), paths in groups.items()
             if (score, c) not in shared for p in paths))
        if shared:
            import zlib

            self.conn.executemany("INSERT INTO history_shared VALUES (?, ?, ?, ?, ?)",
                                  ((name, turn, score, CAUSE_SEPARATOR.join(c),
                                    zlib.compress(marshal.dumps(sorted(paths))))
                                   for (score, c), paths in shared.items()))

    def prune_turns(self, name: str, before: int) -> None:
        """Forget what a session's turns before `before` recorded (history, what they showed); its scores stay."""
        for table in ("history", "history_shared", "turns"):
            self.conn.execute(f"DELETE FROM {table} WHERE session = ? AND turn < ?", (name, before))

    def history(self, name: str, path: str) -> list[tuple[int, float, str]]:
        rows = list(self.conn.execute(
            "SELECT turn, score, causes FROM history WHERE session = ? AND path = ? ORDER BY turn, rowid",
            (name, path)))
        rows += [(t, s, c) for t, p, s, c in self._shared(name) if p == path]
        return sorted(rows, key=lambda row: row[0])

    def _shared(self, name: str) -> list[tuple[int, str, float, str]]:
        """(turn, path, score, causes) of the shared rows of a session's history, unpacked."""
        import zlib

        out = []
        for turn, score, causes, paths in self.conn.execute(
                "SELECT turn, score, causes, paths FROM history_shared WHERE session = ? ORDER BY turn, rowid",
                (name,)):
            try:
                out += [(turn, p, score, causes) for p in loads(zlib.decompress(bytes(paths)))]
            except zlib.error as exc:
                raise ForeignState(f"stored history is damaged: {exc}") from None
        return out

    # -- the semantic model (built by semantic.build when the index changes) ---------------------------------

    def doc_terms(self, paths: Iterable[str] | None = None) -> Iterator[tuple[str, bytes, bytes]]:
        """(path, dims, counts) of the indexed docs (or of these), ordered by path, streamed."""
        query = "SELECT path, tdims, tcounts FROM docs WHERE skipped = 0 AND tdims IS NOT NULL"
        rows = self.conn.execute(query + " ORDER BY path") if paths is None else \
            iter(sorted(self._select_in(query + " AND path IN ({})", paths)))
        return ((p, bytes(d), bytes(c)) for p, d, c in rows)

    def save_model(self, paths: list[str], clusters: dict[str, int], postings: dict[int, tuple[bytes, bytes]],
                   doc_dims: list[bytes], seq: int) -> None:
        """A whole new model, made from the index at version `seq`: the changes queued up to it are in."""
        self.conn.execute("DELETE FROM sem_docs")
        self.conn.execute("DELETE FROM postings")
        self.conn.executemany("INSERT INTO sem_docs VALUES (?, ?, ?, ?)",
                              ((i, p, clusters[p], doc_dims[i]) for i, p in enumerate(paths)))
        self.conn.executemany("INSERT INTO postings VALUES (?, ?, ?)", ((d, *v) for d, v in postings.items()))
        self.conn.execute("DELETE FROM sem_pending WHERE seq <= ?", (seq,))

    def sem_pending(self, limit: int) -> list[str]:
        """Up to `limit` + 1 paths changed since the model took them in (one more says: more than the limit)."""
        return [r[0] for r in self.conn.execute("SELECT path FROM sem_pending LIMIT ?", (limit + 1,))]

    def sem_rows(self, paths: Iterable[str]) -> dict[str, tuple[int, int, bytes | None]]:
        """path -> (id, cluster, dims) in the model."""
        return {p: (i, c, None if d is None else bytes(d)) for p, i, c, d in self._select_in(
            "SELECT path, id, cluster, dims FROM sem_docs WHERE path IN ({})", paths)}

    def sem_next_id(self) -> int:
        return int(self.conn.execute("SELECT coalesce(max(id), -1) + 1 FROM sem_docs").fetchone()[0])

    def update_model(self, gone: Iterable[int], docs: Iterable[tuple[int, str, int, bytes]],
                     postings: dict[int, tuple[bytes, bytes]], paths: Iterable[str]) -> None:
        """Fold changed docs into the model: rows of `gone` ids out, (id, path, cluster, dims) in, the edited
        postings written (an empty one deleted), `paths` off the queue."""
        self.conn.executemany("DELETE FROM sem_docs WHERE id = ?", ((i,) for i in gone))
        self.conn.executemany("INSERT OR REPLACE INTO sem_docs VALUES (?, ?, ?, ?)", docs)
        self.conn.executemany("DELETE FROM postings WHERE dim = ?", ((d,) for d, v in postings.items() if not v[0]))
        self.conn.executemany("INSERT OR REPLACE INTO postings VALUES (?, ?, ?)",
                              ((d, *v) for d, v in postings.items() if v[0]))
        self.conn.executemany("DELETE FROM sem_pending WHERE path = ?", ((p,) for p in paths))

    def postings(self, dims: Iterable[int], head: int | None = None) -> list[tuple[int, bytes, bytes]]:
        """(dim, doc ids, weights) of these dims; head: only each one's first `head` entries (the strongest:
        postings are kept in descending weight)."""
        if head is None:
            return self._select_in("SELECT dim, ids, weights FROM postings WHERE dim IN ({})", dims)
        return self._select_in(f"SELECT dim, substr(ids, 1, {4 * int(head)}), substr(weights, 1, {4 * int(head)}) "
                               "FROM postings WHERE dim IN ({})", dims)

    def sem_docs(self, ids: Iterable[int]) -> dict[int, tuple[str, int]]:
        return {i: (p, c) for i, p, c in self._select_in("SELECT id, path, cluster FROM sem_docs WHERE id IN ({})",
                                                         ids)}

    def sem_by_path(self, paths: Iterable[str]) -> dict[str, tuple[int, int]]:
        """path -> (id in the postings, cluster)."""
        return {p: (i, c) for p, i, c in self._select_in(
            "SELECT path, id, cluster FROM sem_docs WHERE path IN ({})", paths)}

    def entropies(self, paths: Iterable[str]) -> dict[str, float]:
        return dict(self._select_in("SELECT path, entropy FROM docs WHERE path IN ({})", paths))

    def resolve_session(self, name: str, implied: bool = False) -> str:
        """A session name as given, or for `last` the session that wrote a turn most recently.

        implied: nobody named the session, `name` is only the default. A hook's turns run in the editor's
        sessions, so a default session with no turns stands for the session that ran a turn most recently."""
        try:
            name.encode("utf-8")
        except UnicodeEncodeError:
            raise InputError(f"session name {name!r} is not valid UTF-8") from None
        if implied and name != LAST_SESSION:
            own = self.conn.execute("SELECT turn FROM sessions WHERE name = ?", (name,)).fetchone()
            if own is None or own[0] == 0:
                row = self.conn.execute("SELECT name FROM sessions WHERE turn > 0 ORDER BY updated DESC, name "
                                        "LIMIT 1").fetchone()
                return str(row[0]) if row is not None else name
        if name != LAST_SESSION:
            return name
        row = self.conn.execute("SELECT name FROM sessions ORDER BY updated DESC, name LIMIT 1").fetchone()
        if row is None:
            raise InputError("--session last: no session has run a turn yet")
        return str(row[0])

    def sessions(self) -> list[tuple[str, int, float | None, list[tuple[str, float]]]]:
        """(name, turns, last turn time, its three highest scores) of every session, most recent first."""
        out = []
        for name, turn, updated in self.conn.execute(
                "SELECT name, turn, updated FROM sessions ORDER BY updated DESC, name").fetchall():
            kept = self._kept("WHERE session = ? AND live_until >= ?", (name, turn))
            now = [(p, decayed(k.score, k.rate if k.rate is not None else 1.0, turn - k.turn)) for p, k in kept.items()]
            # ties as a turn ranks them (tiers.rank): the docs a keyword hit, most often and most lately, first
            top = sorted(now, key=lambda ps: (-ps[1], -kept[ps[0]].hits, -kept[ps[0]].last_hit_turn, ps[0]))[:3]
            out.append((name, turn, updated, top))
        return out

    def prune_sessions(self, before: float, keep: str) -> list[str]:
        """Forget the sessions (but `keep`) whose last turn is older than `before`; their names."""
        names = [r[0] for r in self.conn.execute("SELECT name FROM sessions WHERE updated < ? AND name != ?",
                                                 (before, keep))]
        for name in names:
            self.reset(name)
        return names

    def turns(self, names: Iterable[str] | None = None) -> list[tuple[str, int, float, int, dict[str, Any]]]:
        """(session, turn, time, chars, path -> (tier or why left out, chars)) of the turns that were saved."""
        query = "SELECT session, turn, time, chars, shown FROM turns"
        rows = self.conn.execute(query + " ORDER BY session, turn").fetchall() if names is None else \
            self._select_in(query + " WHERE session IN ({}) ORDER BY session, turn", names)
        return [(s, t, w, c, _shown(sh)) for s, t, w, c, sh in rows]

    def all_history(self, name: str) -> list[tuple[int, str, float, str]]:
        """(turn, path, score, causes) of every score change in a session, in order."""
        rows = list(self.conn.execute("SELECT turn, path, score, causes FROM history WHERE session = ? "
                                      "ORDER BY turn, rowid", (name,)))
        return sorted(rows + self._shared(name), key=lambda row: row[0])

    def doc_tokens(self) -> dict[str, tuple[int, int, int, int]]:
        """path -> (mtime_ns, size, chars, tokens) as last counted."""
        return {p: (m, s, c, t) for p, m, s, c, t in self.conn.execute("SELECT * FROM doc_tokens")}

    def save_doc_tokens(self, rows: Iterable[tuple[str, int, int, int, int]]) -> None:
        self.conn.executemany("INSERT OR REPLACE INTO doc_tokens VALUES (?, ?, ?, ?, ?)", rows)

    def reset(self, name: str) -> bool:
        existed = self.conn.execute("DELETE FROM sessions WHERE name = ?", (name,)).rowcount > 0
        self.conn.execute("DELETE FROM turns WHERE session = ?", (name,))
        self.conn.execute("DELETE FROM scores WHERE session = ?", (name,))
        self.conn.execute("DELETE FROM history WHERE session = ?", (name,))
        self.conn.execute("DELETE FROM history_shared WHERE session = ?", (name,))
        self.forget_sent(name)
        return existed

    # -- what each conversation was sent ----------------------------------------------------------------------

    def sent_units(self, name: str, paths: Iterable[str]) -> dict[str, dict[str, int]]:
        """path -> {unit: the turn it was sent} of what the session's conversation holds, for these docs."""
        out: dict[str, dict[str, int]] = {p: {} for p in paths}
        for path, unit, turn in self._select_in("SELECT path, unit, turn FROM sent WHERE session = ? AND path IN ({})",
                                                out, (name,)):
            out[path][unit] = turn
        return out

    def remember_sent(self, name: str, turn: int, rows: Iterable[tuple[str, str]]) -> None:
        """(path, unit) sent at this turn; a unit sent again keeps the turn it was first sent."""
        self.conn.executemany("INSERT OR IGNORE INTO sent VALUES (?, ?, ?, ?)",
                              ((name, p, u, turn) for p, u in rows))

    def forget_sent(self, name: str, keep: Iterable[int] | None = None) -> int:
        """The conversation was compacted or cleared: it holds nothing ctx sent, or only what was sent at the
        turns in `keep`. How many units were forgotten."""
        if keep is None:
            return self.conn.execute("DELETE FROM sent WHERE session = ?", (name,)).rowcount
        held = set(keep)
        gone = [(name, t) for (t,) in self.conn.execute("SELECT DISTINCT turn FROM sent WHERE session = ?", (name,))
                if t not in held]
        before = self.conn.total_changes
        self.conn.executemany("DELETE FROM sent WHERE session = ? AND turn = ?", gone)
        return self.conn.total_changes - before

    # -- pins -------------------------------------------------------------------------------------------------

    def pins(self) -> dict[str, Pin]:
        return {r[0]: Pin(*r) for r in self.conn.execute(
            "SELECT path, level, created, expires, attestation FROM pins")}

    def pin(self, pin: Pin) -> None:
        self.conn.execute("INSERT OR REPLACE INTO pins VALUES (?, ?, ?, ?, ?)",
                          (pin.path, pin.level, pin.created, pin.expires, pin.attestation))

    def unpin(self, path: str) -> bool:
        return self.conn.execute("DELETE FROM pins WHERE path = ?", (path,)).rowcount > 0
