"""A project's workspace: find and load its config, open its state, and bring the docs index up to date
within a turn's budget (or trust the watcher or the background indexer that keeps it). The turn (router.py)
and the background indexer (indexer.py) both work on a Workspace; neither is the other's.

Nothing heavy is imported here: the hook path goes through it. pyyaml only when config.yaml changed.
"""

from __future__ import annotations

import os
import time

from . import __version__
from . import config as config_mod
from .errors import ConfigDeferred, ConfigError, StateError
from .records import is_doc_file, record, replace
from .store import index, observe, sites
from .store.state import MEMORY, DatabaseError, Store, default_path, is_corruption, set_aside, watch_alive
from .turn import keywords, lexical
from .turn.words import doc_name

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Mapping
    from typing import Any, TypeVar

    from .config import Config

    Warn = Callable[[str], None]
    T = TypeVar("T")


class DocSettings:
    """What front matter says of a doc's attention (related, pinned, decay), looked up for the docs a turn
    touches and kept for the turn: the turn never loads the settings of every doc."""

    def __init__(self, store: Store):
        self.store = store
        self.cache: dict[str, tuple[tuple[str, ...], str | None, float | None]] = {}

    def load(self, paths: Iterable[str]) -> None:
        missing = [p for p in paths if p not in self.cache]
        if missing:
            found = self.store.doc_settings(missing)
            self.cache.update((p, found.get(p, ((), None, None))) for p in missing)

    def __getitem__(self, path: str) -> tuple[tuple[str, ...], str | None, float | None]:
        self.load((path,))
        return self.cache[path]


@record
class IndexView:
    """What a turn needs of the docs index; the keyword table and doc records stay in the store."""

    n_docs: int
    settings: DocSettings
    version: int  # bumped whenever the index changes (the semantic model follows it); 0: no index yet
    pending: int = 0  # changed docs this pass left for the next one (the background indexer)
    due: bool = False  # the folder needs a full scan that a turn has no time for (the background indexer)
    unlisted: bool = False  # this turn could not list the folder in time: what changed is not known
    indexing: bool = False  # the background indexer is at work


class Workspace:
    """An open state database with the config it belongs to."""

    def __init__(self, config: Config, store: Store, config_id: tuple[str, int, int, str] | None):
        self.config = config
        self.store = store
        self.config_id = config_id

    def close(self) -> None:
        self.store.close()


def _config_identity(path: str | None) -> tuple[str, int, int, str] | None:
    """What the cached, validated config is keyed on; another ctx version, or another schema of defaults,
    validates afresh (a cached config must hold every key this code reads)."""
    if path is None:
        return None
    st = os.stat(path)
    return (path, st.st_mtime_ns, st.st_size, f"{__version__}/{config_mod.SCHEMA_ID}")


CONFIG_INLINE_BYTES = 1 << 20  # a changed config bigger than this is read by the background indexer, not a hook


def open_workspace(config_option: str | None = None, docs_option: str | None = None, cwd: str | None = None,
                   warn: Warn | None = None, create: bool = True, defer: bool = False) -> Workspace:
    """Find the config, open the state beside it, load the config (from the state's cache when unchanged).

    create=False: a command that only reads works on a throwaway state where none exists yet, and leaves no
    `.ctx/` behind. defer: a hook turn; a new or changed config over CONFIG_INLINE_BYTES (keywords for tens
    of thousands of docs take seconds to parse) is left to the background indexer, and the turn raises
    ConfigDeferred; an error that indexer met in this very config is raised instead."""
    cwd = cwd or os.getcwd()
    path = config_mod.discover(config_option, cwd)
    if path is not None:
        state_dir = os.path.join(os.path.dirname(path), ".ctx")
    else:
        root = os.path.expanduser(docs_option) if docs_option else config_mod.DEFAULTS["docs"]
        state_dir = os.path.join(cwd, root, ".ctx")
    state_path = default_path(state_dir)
    store = Store(state_path if create or os.path.exists(state_path) else MEMORY, warn)
    try:
        ident = _config_identity(path)
        raw = None
        keywords = related = derived = None
        if path is not None and ident is not None:
            try:
                cached = store.get_meta("config")
            except DatabaseError as exc:  # the first read of a damaged file
                store.close()
                if not is_corruption(exc):
                    raise StateError(f"state {store.path}: {exc}") from None
                set_aside(store.path, exc, warn)
                store = Store(store.path, warn)
                cached = None
            if cached is not None and tuple(cached[0]) == ident:
                raw = cached[1]
                keywords, related = _config_map(store, "keywords"), _config_map(store, "related")
                derived = config_mod.Lazy(lambda: store.get_meta("config_derived", packed=True) or {})
            else:
                if defer and store.path != MEMORY and ident[2] > CONFIG_INLINE_BYTES:
                    _defer_config(store, path, docs_option, ident)
                try:
                    raw = config_mod.parse_yaml(config_mod.read_config_text(path), os.path.basename(path))
                except ConfigError as exc:
                    _remember_config_error(store, ident, exc)
                    raise
                with store.transaction():
                    # The derived keywords go in a blob of their own, loaded only when the index is rebuilt; the
                    # keywords and `related` in tables a turn looks up for the docs it touches.
                    store.put_meta("config", (ident, {**raw, "keywords": {}, "related": {}, "derived_keywords": {}}))
                    store.put_meta("config_derived", raw["derived_keywords"], packed=True)
                    store.set_config_map("keywords", raw["keywords"])
                    store.set_config_map("related", raw["related"])
        else:
            raw = config_mod.normalise({})
        cfg = config_mod.from_normal(raw, path, docs_option, cwd, keywords, related, derived)
    except BaseException:
        store.close()
        raise
    return Workspace(cfg, store, ident)


def _config_map(store: Store, name: str) -> config_mod.Lazy:
    """One of the config's per-doc lists, as kept in the state: a turn reads the entries of the docs it asks."""
    return config_mod.Lazy(lambda: store.config_map(name), lambda path: store.config_map(name, path).get(path))


def _remember_config_error(store: Store, ident: tuple[str, int, int, str], exc: ConfigError) -> None:
    """For the hook turns that leave this config to the background indexer: they show its error."""
    if store.path == MEMORY:
        return
    try:
        with store.transaction():
            store.put_meta("config_error", (ident, str(exc)))
    except DatabaseError:
        pass  # a state that cannot be written: the error itself is what the user needs to see


def _defer_config(store: Store, path: str, docs_option: str | None, ident: tuple[str, int, int, str]) -> None:
    error = store.get_meta("config_error")
    if error is not None and tuple(error[0]) == ident:
        raise ConfigError(error[1])
    from .store import background

    background.start(path, docs_option, store.path, os.path.dirname(path))
    raise ConfigDeferred(f"note: {os.path.basename(path)} changed and is {ident[2] / (1 << 20):.1f} MB: it is "
                         "being read in the background; this turn shows nothing yet")


# -- index ---------------------------------------------------------------------------------------------------


def _index_signature(cfg: Config) -> tuple[Any, ...]:
    # The mkdocs.yml above the docs, or the book's SUMMARY.md, titles the pages that have no `# Title`: a
    # new nav or table of contents reads them again.
    return (str(cfg.docs_root), cfg.warm.lines, cfg.max_doc_bytes, vector_dims(cfg), __version__,
            lexical.FIELDS_VERSION, *sites.signature(str(cfg.docs_root)))


def nav_titles(cfg: Config) -> Callable[[str], str]:
    """path -> the title the docs' site (an mkdocs nav, a book's SUMMARY.md) gives a doc that has none of its
    own (read once, when a doc is read)."""
    return sites.titler(str(cfg.docs_root))


def vector_dims(cfg: Config) -> int | None:
    """Dimensions of the term counts to keep per doc: only while the semantic layer is on."""
    return cfg.semantic.dims if cfg.semantic.enabled else None


def analyser(cfg: Config) -> index.Analyse | None:
    """What the index keeps of each doc's text for the evidence stages: only while the semantic layer is on."""
    dims = vector_dims(cfg)
    if dims is None:
        return None
    from .turn import text

    return lambda rel, title, body: text.analyse(rel, title, body, dims)


def doc_keywords(cfg: Config, doc: index.Doc) -> tuple[str, ...]:
    return tuple(kw for kw, _ in sourced_keywords(cfg, doc))


def sourced_keywords(cfg: Config, doc: index.Doc) -> tuple[tuple[str, bool], ...]:
    """(keyword, derived) of a doc: derived when nobody chose it (see keywords.sourced_keywords)."""
    return keywords.sourced_keywords(doc.path, doc.title, doc.keywords, cfg.keywords.get(doc.path, ()),
                                     cfg.auto_keywords, cfg.derived_keywords.get(doc.path, ()))


def _keyword_rows(cfg: Config, docs: Mapping[str, index.Doc], counts: Mapping[str, int] | None = None
                  ) -> dict[str, list[tuple[str, str, bool]]]:
    """path -> [(index token, keyword, derived)]; tokens are chosen by rarity over `counts` (else over these
    docs)."""
    kws = {p: sourced_keywords(cfg, d) for p, d in docs.items()}
    if counts is None:
        counts = keywords.token_counts(k for ks in kws.values() for k, _ in ks)
    return {p: [(keywords.index_key(k, counts), k, d) for k, d in ks] for p, ks in kws.items()}


def refresh(ws: Workspace, warn: Warn | None = None, trust: bool = False, seconds: float | None = None,
            prompt: str | None = None, wait: bool = False) -> IndexView:
    """Bring the cached index up to date with the docs folder; call inside a write transaction.

    trust: skip the scan, because a live `ctx watch` or the background indexer keeps the index current.
    seconds: list the folder and read changed docs for at most this long each; a folder too big to list in
    time, the docs left unread (IndexView.pending) and a full check that is due (IndexView.due) are the
    background indexer's work. prompt: the turn's; the changed docs it names are read first. wait: a turn
    someone waits for (`ctx route`, not a hook): it lists the whole folder and reads up to WAIT_DOCS changed
    docs whatever the time, so a repo of a few hundred docs is whole from its first turn; a hook's first turn
    on a state with no index reads up to FIRST_TURN_DOCS so.
    """
    cfg, store = ws.config, ws.store
    meta = _index_meta(ws, clear=True)
    if meta is None and trust:  # a watcher or the indexer is building the first index: nothing to serve yet
        return IndexView(0, DocSettings(store), 0, due=True)
    changes = None
    files: dict[str, index.Stat] = {}
    due = False
    observed = observe.changes(cfg.docs_root) if not trust else None
    folders = store.get_meta(FOLDERS_KEY) if meta is not None and not trust else None
    proven = observed is not None and folders is not None and _proven(folders, cfg.docs_root)
    if proven and not observed:
        trust = True  # nothing changed since a scan that proves the index current: no scan
    if meta is None or not trust:
        known = store.get_meta("ignore_answers")
        quick, due = _quick_scan(store, folders, meta["n_docs"]) if meta is not None and folders else (None, False)
        # An observed folder whose last full scan proves nothing yet has one run in the background now; one
        # with links no scan can prove (see _proven) is scanned in full on the clock, as an unobserved one.
        due = due or (quick is not None and observed is not None and not proven and not _linked(folders))
        rotation = quick.sample if quick is not None else ()
        if quick is not None and observed:  # the docs the OS reported changed are statted too
            quick = replace(quick, sample=(*rotation, *sorted(p for p in observed if is_doc_file(p))))
        started = time.time()  # what changed after this, an observer reports (store/observe.py)
        try:
            scan = index.scan(cfg.docs_root, index.IgnoreAnswers(*known) if known is not None else None, quick,
                              time.monotonic() + seconds if seconds is not None and not wait else None)
        except index.ScanTimeout:
            # Too many docs to list inside a turn: serve the index as it is; the background indexer lists them.
            if observed:  # what the OS reported is not read yet: no later turn may trust the folders until then
                store.put_meta(FOLDERS_KEY, None)
            if meta is None:
                return IndexView(0, DocSettings(store), 0, due=True, unlisted=True)
            return IndexView(meta["n_docs"], DocSettings(store), meta["version"], due=True, unlisted=True)
        if scan.ignore is not None:
            store.put_meta("ignore_answers", (scan.ignore.fingerprint, scan.ignore.answers))
        files = scan.files
        # A quick scan compares only what it listed or sampled; a full one, everything.
        if quick is None or scan.listed is None:
            cached = store.listing()
        else:  # the folders listed again, and those gone (their docs are gone too)
            gone = [f for f in quick.folders if scan.folders is not None and f not in scan.folders]
            cached = store.listing_in([*scan.listed, *gone], scan.files)
        if files != cached:
            deadline = time.monotonic() + seconds if seconds is not None else None
            changes = index.diff(cfg.docs_root, files, cached, cfg.warm.lines, cfg.max_doc_bytes,
                                 analyser(cfg), deadline,
                                 (lambda paths: named_docs(ws, prompt, paths)) if prompt else None, nav_titles(cfg),
                                 WAIT_DOCS if wait else FIRST_TURN_DOCS if meta is None else 0)
        complete = changes is None or not changes.pending
        # A quick scan may trust these folders only while the index holds every doc they list.
        trusted = {"folders": scan.folders, "full_at": started, "cursor": ""}
        if quick is not None and folders is not None:
            trusted.update(full_at=folders["full_at"], cursor=rotation[-1] if rotation else "")
        store.put_meta(FOLDERS_KEY, trusted if complete and scan.folders is not None else None)
        if warn is not None:
            for message in (*scan.warnings, *(changes.warnings if changes else ())):
                warn(f"warning: {message}")
    config_changed = _reconfigured(ws, meta)
    if meta is not None and changes is None and not config_changed:
        return IndexView(meta["n_docs"], DocSettings(store), meta["version"], due=due)
    view = _store_changes(ws, changes, files, config_changed)
    return replace(view, pending=len(changes.pending) if changes is not None else 0, due=due)


def named_docs(ws: Workspace, prompt: str, paths: list[str]) -> set[str]:
    """Among `paths` (docs not indexed yet), those the prompt names: by a keyword of the config or by the doc's
    name. A turn short of time reads them first, so the doc asked for is there on first contact."""
    cfg = ws.config
    said = keywords.prompt_tokens(prompt)
    # The config's keywords are loaded whole; for a config too big to read inside a turn, names only.
    by_config = ws.config_id is None or ws.config_id[2] <= CONFIG_INLINE_BYTES
    out: set[str] = set()
    for path in paths:
        phrases = [doc_name(path).replace("-", " ").replace("_", " ")]
        if by_config:
            phrases += [*cfg.keywords.get(path, ()), *cfg.derived_keywords.get(path, ())]
        for phrase in phrases:
            stems = keywords.keyword_tokens(phrase)
            if stems and said.issuperset(stems):
                out.add(path)
                break
    return out


FOLDERS_KEY = "folders"
WAIT_DOCS = 2_000  # changed docs `ctx route` reads before its time budget counts (about a second of reading)
# A hook's turn with no index at all (a fresh clone: the config is committed, `.ctx/` is not) reads this many
# changed docs whatever the time (at most 20 KB each on average: index.AT_LEAST_DOC_BYTES), as `ctx route`
# reads WAIT_DOCS: a folder of a few hundred docs is whole for the first prompt, not the quarter of it read in
# 300 ms, and the first turn stays far from the hosts' hook timeouts (5 to 10 s) at any size. Later turns keep
# the budget.
FIRST_TURN_DOCS = 300
QUICK_FROM_DOCS = 500  # below this many docs every turn stats every doc (about 3 ms per 500)
SAMPLE_DOCS = 256  # docs statted afresh by each quick scan, in rotation, to catch edits in place
FULL_SCAN_EVERY_S = 60.0  # a quick scan trusts folders this long; then everything is scanned again
OBSERVED_FULL_S = 600.0  # ... and a folder observed without a change this long


def _proven(folders: dict[str, Any], root: str) -> bool:
    """Whether the last full scan proves the index current while its observer reports nothing: it started
    after the observer did (or last forgot what it saw), less than OBSERVED_FULL_S ago (a folder the OS does
    not report on, a network mount, is still checked that often), and found no links (where a link points can
    change unreported)."""
    started = observe.since(root)
    full_at = folders.get("full_at", 0.0)
    return (started is not None and started <= full_at and time.time() - full_at < OBSERVED_FULL_S
            and not _linked(folders))


def _linked(folders: dict[str, Any] | None) -> bool:
    """Whether the last full scan found a link whose target may change unreported (index.scan)."""
    return folders is not None and any(links for _, _, links in folders["folders"].values())


def _quick_scan(store: Store, folders: dict[str, Any], n_docs: int) -> tuple[index.Quick | None, bool]:
    """(what a quick scan may trust, whether a full scan is due), or (None, False) for a full scan now.

    On a big docs folder a turn lists only the folders whose mtime moved (adds, removes, renames move it),
    stats a rotating sample of docs for edits in place, and has everything scanned again once a minute, by
    the background indexer: the per-turn cost stops growing with the number of docs. A doc shown in full is
    always read from disk at the turn."""
    if n_docs < QUICK_FROM_DOCS:
        return None, False
    due = time.time() - folders["full_at"] >= FULL_SCAN_EVERY_S
    sample = store.listing_after(folders["cursor"], SAMPLE_DOCS) if SAMPLE_DOCS else []
    return index.Quick(folders["folders"], tuple(sample)), due


def _store_changes(ws: Workspace, changes: index.Changes | None, files: dict[str, index.Stat],
                   config_changed: bool) -> IndexView:
    """Write changed docs (`files`: the scan they came from, for the (mtime, size) of skipped files) and their
    keyword rows, then the small index summary a turn loads."""
    store = ws.store
    # A counter of its own that a rebuilt index never resets, so a model built for other docs is never reused.
    version = (store.get_meta("index_version") or 0) + 1
    if changes is not None:
        store.save_docs(changes.changed, ((p, files[p]) for p in changes.skipped), changes.removed,
                        version if vector_dims(ws.config) is not None else None)
    if config_changed:
        store.set_keywords(_keyword_rows(ws.config, store.docs()), replace_all=True)
    elif changes is not None:
        changed = {d.path: d for d in changes.changed}
        new_tokens = {t for d in changed.values() for k in doc_keywords(ws.config, d)
                      for t in keywords.keyword_tokens(k)}
        rows = _keyword_rows(ws.config, changed, store.token_counts(new_tokens))
        rows.update({p: [] for p in (*changes.removed, *changes.skipped)})
        store.set_keywords(rows)
    store.put_meta("index_version", version)
    view = IndexView(store.doc_count(), DocSettings(store), version)
    store.put_meta("index", {"sig": _index_signature(ws.config), "cfg": ws.config_id, "n_docs": view.n_docs,
                             "version": version})
    return view


def apply_changes(ws: Workspace, changes: index.Changes, files: dict[str, index.Stat], first: bool = False
                  ) -> IndexView:
    """Store changes read outside the lock (the watcher, the background indexer), inside a write
    transaction. first: the first batch of a pass, which starts a new index if the old one is for another
    signature, and rebuilds the keyword index if the config changed."""
    meta = _index_meta(ws, clear=first)
    return _store_changes(ws, changes, files, first and _reconfigured(ws, meta))


def cached_listing(ws: Workspace) -> dict[str, index.Stat]:
    """The listing of the indexed docs (empty when the index is for another signature); read inside a
    transaction."""
    return ws.store.listing() if _index_meta(ws) is not None else {}


def reconfigured(ws: Workspace) -> bool:
    """Whether the config changed since the index was built (its keyword index is built again)."""
    return _reconfigured(ws, _index_meta(ws))


def _index_meta(ws: Workspace, clear: bool = False) -> dict[str, Any] | None:
    """The index summary, or None when there is none for this signature (clear: drop such an index)."""
    meta = ws.store.get_meta("index")
    if meta is not None and tuple(meta["sig"]) != _index_signature(ws.config):
        if clear:
            ws.store.clear_index()
        return None
    return meta  # type: ignore[no-any-return]


def _reconfigured(ws: Workspace, meta: Mapping[str, Any] | None) -> bool:
    return meta is None or tuple(meta["cfg"] or ()) != tuple(ws.config_id or ())


PENDING_KEY = "index_pending"  # docs the background indexer has still to read, as of its last commit


def _indexer_running(store: Store) -> bool:
    if store.path == MEMORY:
        return False
    from .store.background import running

    return running(store.folder)


def current_index(ws: Workspace, trust_index: bool | None = None, read_only: bool = False,
                  warn: Warn | None = None, prompt: str | None = None, wait: bool = False) -> IndexView:
    """The index as a turn (or `ctx status`) sees it, inside a transaction: brought up to date within the time
    budget (wait: see refresh), or trusted while a watcher (trust_index None) or the background indexer keeps
    it, with what the indexer said it has still to read."""
    store = ws.store
    indexing = _indexer_running(store)
    trust = read_only or indexing or (trust_index if trust_index is not None else watch_alive(store.folder))
    snap = refresh(ws, warn, trust=trust, seconds=ws.config.index_budget_ms / 1000, prompt=prompt, wait=wait)
    if indexing:
        snap = replace(snap, pending=max(snap.pending, store.get_meta(PENDING_KEY) or 0), indexing=True)
    return snap


def index_in_background(ws: Workspace) -> bool:
    """Start the background indexer for this state (unless a watcher or an indexer does the work already, or
    the state is a throwaway one). Whether the work is being done."""
    if ws.store.path == MEMORY:
        return False
    if not watch_alive(ws.store.folder):
        from .store import background

        background.start(ws.config.path, ws.config.docs_root, ws.store.path, ws.config.docs_root)
    return True


def with_workspace(fn: Callable[[Workspace], T], config_option: str | None = None,
                   docs_option: str | None = None, cwd: str | None = None, warn: Warn | None = None,
                   create: bool = True, defer: bool = False) -> T:
    """Open the workspace, run `fn` on it, close it. A state file found corrupt on the way is set aside once
    and `fn` runs again on a fresh state; any other database failure is a StateError (exit 1)."""
    for attempt in (1, 2):
        ws = open_workspace(config_option, docs_option, cwd, warn, create, defer)
        try:
            return fn(ws)
        except DatabaseError as exc:
            if attempt == 2 or not is_corruption(exc):
                raise StateError(f"state {ws.store.path}: {exc}") from None
            ws.close()
            set_aside(ws.store.path, exc, warn)
        finally:
            ws.close()
    raise AssertionError("unreachable")
