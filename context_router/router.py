"""One turn, end to end: config -> index -> state -> attention -> tier plan -> render -> state.

Everything here returns data; only the CLI and the hook adapters write to the terminal. The hook path goes
through this module too, so it imports nothing heavy: no typer, rich, numpy, tiktoken, and pyyaml only when
config.yaml or a doc with front matter changed.
"""

from __future__ import annotations

import os
import time

from . import __version__
from . import config as config_mod
from .errors import ConfigDeferred, ConfigError, InputError, StateError
from .records import record, replace
from .store import index
from .store.state import (
    MEMORY,
    DatabaseError,
    Store,
    default_path,
    is_corruption,
    is_locked,
    set_aside,
    watch_alive,
)
from .turn import attention, keywords, lexical, render, sections, tiers
from .turn.prompt import human_part
from .turn.words import doc_name

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Mapping
    from typing import Any, TypeVar

    from .config import Config
    from .store.state import Session
    from .turn.attention import FileScore

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
                keywords = config_mod.Lazy(lambda: store.get_meta("config_keywords", packed=True) or {})
                derived = config_mod.Lazy(lambda: store.get_meta("config_derived", packed=True) or {})
                related = config_mod.Lazy(store.config_related, lambda p: store.config_related(p).get(p))
            else:
                if defer and store.path != MEMORY and ident[2] > CONFIG_INLINE_BYTES:
                    _defer_config(store, path, docs_option, ident)
                try:
                    raw = config_mod.parse_yaml(config_mod.read_config_text(path), os.path.basename(path))
                except ConfigError as exc:
                    _remember_config_error(store, ident, exc)
                    raise
                with store.transaction():
                    # The keywords go in a blob of their own, loaded only when the index is rebuilt; `related`
                    # in a table a turn looks up for the docs it touches.
                    store.put_meta("config", (ident, {**raw, "keywords": {}, "related": {}, "derived_keywords": {}}))
                    store.put_meta("config_keywords", raw["keywords"], packed=True)
                    store.put_meta("config_derived", raw["derived_keywords"], packed=True)
                    store.set_config_related(raw["related"])
        else:
            raw = config_mod.normalise({})
        cfg = config_mod.from_normal(raw, path, docs_option, cwd, keywords, related, derived)
    except BaseException:
        store.close()
        raise
    return Workspace(cfg, store, ident)


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
    return (str(cfg.docs_root), cfg.warm.lines, cfg.max_doc_bytes, vector_dims(cfg), __version__,
            lexical.FIELDS_VERSION)


def vector_dims(cfg: Config) -> int | None:
    """Dimensions of the term counts to keep per doc: only while the semantic layer is on."""
    return cfg.semantic.dims if cfg.semantic.enabled else None


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
            prompt: str | None = None) -> IndexView:
    """Bring the cached index up to date with the docs folder; call inside a write transaction.

    trust: skip the scan, because a live `ctx watch` or the background indexer keeps the index current.
    seconds: list the folder and read changed docs for at most this long each; a folder too big to list in
    time, the docs left unread (IndexView.pending) and a full check that is due (IndexView.due) are the
    background indexer's work. prompt: the turn's; the changed docs it names are read first.
    """
    cfg, store = ws.config, ws.store
    meta = _index_meta(ws, clear=True)
    if meta is None and trust:  # a watcher or the indexer is building the first index: nothing to serve yet
        return IndexView(0, DocSettings(store), 0, due=True)
    changes = None
    files: dict[str, index.Stat] = {}
    due = False
    if meta is None or not trust:
        known = store.get_meta("ignore_answers")
        folders = store.get_meta(FOLDERS_KEY) if meta is not None else None
        quick, due = _quick_scan(store, folders, meta["n_docs"]) if meta is not None and folders else (None, False)
        try:
            scan = index.scan(cfg.docs_root, index.IgnoreAnswers(*known) if known is not None else None, quick,
                              time.monotonic() + seconds if seconds is not None else None)
        except index.ScanTimeout:
            # Too many docs to list inside a turn: serve the index as it is; the background indexer lists them.
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
                                 vector_dims(cfg), deadline,
                                 (lambda paths: named_docs(ws, prompt, paths)) if prompt else None)
        complete = changes is None or not changes.pending
        # A quick scan may trust these folders only while the index holds every doc they list.
        trusted = {"folders": scan.folders, "full_at": time.time(), "cursor": ""}
        if quick is not None and folders is not None:
            trusted.update(full_at=folders["full_at"], cursor=quick.sample[-1] if quick.sample else "")
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
QUICK_FROM_DOCS = 2000  # below this many docs every turn stats every doc, as it always did
SAMPLE_DOCS = 256  # docs statted afresh by each quick scan, in rotation, to catch edits in place
FULL_SCAN_EVERY_S = 60.0  # a quick scan trusts folders this long; then everything is scanned again


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


# -- one turn ------------------------------------------------------------------------------------------------


@record
class TurnRequest:
    prompt: str
    session: str = "default"
    fmt: str = "markdown"
    budget: int | None = None
    host: str | None = None
    dry_run: bool = False
    trust_index: bool | None = None  # None: trust it while a `ctx watch` is running
    rate_limited: bool = True  # host turns are rate limited unless replayed on purpose
    contained: bool = False  # a found (not chosen) config may name docs only inside its own folder


@record
class TurnResult:
    plan: tiers.Plan
    session: str
    advanced: bool
    causes: dict[str, tuple[str, ...]]
    text: str  # what to print: the markdown or xml context, or the json object
    notices: tuple[str, ...] = ()  # one-line messages for stderr


def pin_floors(ws: Workspace, snap: IndexView, now: float) -> tuple[dict[str, float], tuple[str, ...]]:
    """(path -> score floor, notes): front matter and config pins as they are, `ctx pin` pins as attested."""
    cfg = ws.config
    floor = {"warm": cfg.warm.threshold, "hot": cfg.hot.threshold}
    out: dict[str, float] = {}
    for path, level in ws.store.pinned_docs().items():
        out[path] = floor[level]
    for path, level in cfg.pinned.items():
        out[path] = max(out.get(path, 0.0), floor[level])
    pins = ws.store.pins()
    if not pins:
        return out, ()
    from .store.attest import effective  # hashlib and hmac only when there are pins to check

    levels, notes = effective(pins, cfg.docs_root, ws.store.folder, now)
    for path, level in levels.items():
        out[path] = max(out.get(path, 0.0), floor[level])
    return out, notes


def decay_rate(cfg: Config, snap: IndexView, path: str) -> float:
    """The doc's own rate (front matter), else the longest matching prefix, else the default."""
    own = snap.settings[path][2]
    return own if own is not None else cfg.decay_for(path)


def related(cfg: Config, snap: IndexView, path: str) -> tuple[str, ...]:
    return cfg.related.get(path, ()) + snap.settings[path][0]


def coactivation_ceiling(cfg: Config) -> float:
    """Co-activation warms a related doc but does not print it whole on its own (measured: it added noise and
    no gold doc); keyword mode keeps claude-cognitive's rule, where it may reach 1.0."""
    return cfg.hot.threshold - 0.01 if cfg.semantic.enabled else 1.0


COMMON_FROM_DOCS = 30  # below this many docs a word's spread over them says little
COMMON_DOC_SHARE = 0.1  # a one-word keyword in the text of more than this share of the docs names none of them


def _common_in_text(store: Store, hits: Mapping[str, list[str]], n_docs: int) -> frozenset[str]:
    """The one-word keywords among the hits that the text of many docs holds ("install", "python" in a
    packaging tool's docs): a doc named after one is not what a prompt that says it is about."""
    single = sorted({kw for kws in hits.values() for kw in kws if len(keywords.keyword_tokens(kw)) == 1})
    if n_docs < COMMON_FROM_DOCS or not single:
        return frozenset()
    counts = store.lexical_doc_counts(single)
    return frozenset(kw for kw in single if counts.get(kw, 0) > COMMON_DOC_SHARE * n_docs)


def _weak_hits(cfg: Config, hits: dict[str, list[str]], derived: set[tuple[str, str]], common: frozenset[str]
               ) -> tuple[dict[str, list[str]], tuple[attention.Signal, ...]]:
    """Hits by weak, common or derived keywords only lift their doc to the top of WARM: the text evidence
    decides if it is HOT."""
    strong, weak = keywords.split_weak(hits, derived, common)
    ceiling = cfg.hot.threshold - 0.01
    return strong, tuple(attention.Signal(p, attention.FLOOR, ceiling, f"weak-keyword:{kw}")
                         for p, kws in sorted(weak.items()) for kw in kws)


def _rate_limit(cfg: Config, session: Session, now: float) -> tuple[bool, tuple[float, float]]:
    """Token bucket: `burst` turns at once, refilled at turns_per_minute. (allowed, new bucket)."""
    if cfg.turns_per_minute == 0:
        return True, session.bucket
    tokens, then = session.bucket
    if tokens < 0:  # a new session starts full
        tokens, then = float(cfg.burst), now
    tokens = min(float(cfg.burst), tokens + max(0.0, now - then) * cfg.turns_per_minute / 60.0)
    if tokens >= 1.0:
        return True, (tokens - 1.0, now)
    return False, (tokens, now)


def _views(ws: Workspace, paths: list[str], section_query: str | None,
           ranked_sections: Mapping[str, Mapping[int, float]]) -> dict[str, tiers.DocView]:
    """The candidates as they are on disk now: a doc's header and body are read at the turn (the index keeps
    neither), and a doc that is gone or unreadable since it was indexed is not shown."""
    cfg = ws.config
    views: dict[str, tiers.DocView] = {}
    for path, doc in ws.store.docs(paths).items():
        # An oversized doc is shown by its header only: read just enough bytes to find it.
        text = index.read_text(cfg.docs_root, doc.path,
                               limit=min(cfg.max_doc_bytes, 256 * 1024) if doc.oversize else None)
        if text is None:
            continue
        whole = index.body_of(text)
        header, truncated = index.header_of(whole, cfg.warm.lines)
        if doc.oversize:
            whole = header + f"\n... [file over {cfg.max_doc_bytes:,} bytes: header only] ..."

        def body(whole: str = whole) -> str:
            return whole

        def cut(room: int, doc: index.Doc = doc, whole: str = whole, header: str = header) -> str | None:
            # The sections the turn's search ranked among all docs' sections; else the doc's own, ranked alone.
            relevance = ranked_sections.get(doc.path)
            if not relevance:
                parts = sections.split(whole)
                relevance = lexical.rank_sections(ws.store, section_query, [(s.title, s.text) for s in parts])
            return sections.cut(whole, room, relevance, doc.path, header)

        views[path] = tiers.DocView(body, header, truncated or doc.oversize, cut)
    return views


def plan_turn(ws: Workspace, snap: IndexView, scores: Mapping[str, FileScore], hit: frozenset[str], turn: int,
              fmt: str, budget: int, mass: Mapping[str, float] | None = None, intent: str | None = None,
              notes: tuple[str, ...] = (), section_query: str | None = None,
              measure: Callable[[str], int] = len,
              ranked_sections: Mapping[str, Mapping[int, float]] | None = None,
              relevance: Mapping[str, float] | None = None) -> tiers.Plan:
    cfg = ws.config
    hot_max, warm_max = cfg.hot.max_files, cfg.warm.max_files
    if intent is not None:
        from .turn.semantic import intent_caps

        hot_max, warm_max = intent_caps(intent, hot_max, warm_max)
    caps = tiers.Caps(cfg.hot.threshold, hot_max, cfg.warm.threshold, warm_max)
    ranked = tiers.rank(scores, hit, mass, relevance)
    cands = tiers.candidates(ranked, caps)
    # Docs the caps left out: "intent" when the intent's caps are what left them out, else "cap".
    config_caps = tiers.Caps(cfg.hot.threshold, cfg.hot.max_files, cfg.warm.threshold, cfg.warm.max_files)
    within_config = {c.path for c in tiers.candidates(ranked, config_caps)} if caps != config_caps else set()
    capped = [(p, "intent" if p in within_config else "cap") for p in tiers.over_caps(ranked, caps, cands)]
    paths = [c.path for c in cands]
    kws = ws.store.keywords_of(paths)
    layout = render.layout_for(fmt, lambda p: kws.get(p, ()))
    return tiers.fit(cands, _views(ws, paths, section_query, ranked_sections or {}), layout, budget, turn,
                     snap.n_docs, intent, notes, capped, measure,
                     {p: max(v.values()) for p, v in (ranked_sections or {}).items() if v})


def _update(ws: Workspace, snap: IndexView, session: Session, prompt: str, turn: int,
            pins: Mapping[str, float]) -> tuple[attention.Update, Any, lexical.LexicalTurn | None]:
    """The attention update of a typed prompt: keyword hits, the semantic and lexical evidence, pins."""
    cfg, store = ws.config, ws.store
    tokens = keywords.prompt_tokens(prompt)
    found = store.keyword_candidates(tokens)
    hits = keywords.match([(kw, p) for kw, p, _ in found], prompt, tokens)
    weak_signals: tuple[attention.Signal, ...] = ()
    if cfg.semantic.enabled:  # keyword mode keeps every hit at 1.0, as claude-cognitive does
        derived = {(kw, p) for kw, p, flag in found if flag}
        hits, weak_signals = _weak_hits(cfg, hits, derived, _common_in_text(store, hits, snap.n_docs))
    sem_turn = None
    if cfg.semantic.enabled and snap.version:  # (no model of an index that is not there yet)
        from .turn import layers  # the semantic step; numpy only when its model must be rebuilt

        sem_turn = layers.step(ws, session.semantic, prompt, hits, session.scores, snap.version, snap.n_docs)
    signals = (*weak_signals, *(sem_turn.signals if sem_turn is not None else ()))
    lex_turn = None
    if cfg.semantic.enabled and cfg.semantic.lexical:
        held = frozenset(p for p, fs in session.scores.items() if fs.score >= cfg.hot.threshold)
        lex_turn = lexical.step(store, prompt, session.semantic.get("lexical") or {}, cfg.hot.threshold,
                                cfg.warm.threshold, snap.n_docs, held)
        signals = (*signals, *lex_turn.signals)
    touched = {*session.scores, *hits, *pins, *(s.path for s in signals)}
    snap.settings.load(touched)
    touched.update(t for p in hits for t in related(cfg, snap, p))
    snap.settings.load(touched)
    known = store.known(touched)
    upd = attention.update(session.scores, turn, hits, known.__contains__,
                           lambda p: decay_rate(cfg, snap, p), lambda p: related(cfg, snap, p),
                           cfg.coactivation, pins, signals, coactivation_ceiling(cfg))
    return upd, sem_turn, lex_turn


HOOK_LOCK_WAIT_S = 1.0  # a hook turn waits this long for another process's write lock, then reads only


@record
class _Done:
    plan: tiers.Plan
    session: str
    advanced: bool
    update: attention.Update
    behind: bool  # docs or the model still to index: the background indexer's work
    pending: int  # changed docs left unread by this turn
    due: bool  # a full scan of the folder is due
    unlisted: bool  # the folder was too big to list inside the turn
    n_docs: int  # docs indexed


def _turn(ws: Workspace, req: TurnRequest, prompt: str, typed: bool, budget: int, now: float, notices: list[str],
          warn: Warn | None, read_only: bool) -> _Done:
    """The turn inside one transaction.

    read_only: another process holds the write lock; show this prompt's turn from the index as it is and
    save nothing."""
    cfg, store = ws.config, ws.store
    with store.read_transaction() if read_only else store.transaction():
        snap = current_index(ws, req.trust_index, read_only, warn, prompt if typed else None)
        name = store.resolve_session(req.session)
        session = store.session(name)
        # Only hook turns are rate limited: an editor fires them in bursts (scheduled tasks, sub-agent
        # reports), while a `ctx route` is asked for on purpose.
        limited = req.host is not None and req.rate_limited and not req.dry_run
        allowed, bucket = _rate_limit(cfg, session, now) if limited else (True, session.bucket)
        if not allowed:
            notices.append(f"note: session {name!r} had its {cfg.burst} quick turns and then more than "
                           f"{cfg.turns_per_minute} a minute; this turn is served read-only")
        advance = allowed and typed and not req.dry_run and not read_only
        turn = session.turn + 1 if typed else session.turn
        pins, pin_notes = pin_floors(ws, snap, now)
        sem_turn = lex_turn = None
        if typed:
            upd, sem_turn, lex_turn = _update(ws, snap, session, prompt, turn, pins)
        else:
            upd = attention.Update(dict(session.scores), {}, frozenset())
        memory = dict(session.semantic)
        mass = None
        if sem_turn is not None:
            from .turn import layers

            memory = sem_turn.memory
            mass = layers.masses(ws, memory, sorted(upd.scores), sem_turn.goal_cosine)
        if lex_turn is not None:
            memory["lexical"] = lex_turn.memory
        plan = plan_turn(ws, snap, upd.scores, upd.hit, turn, "markdown" if req.fmt == "json" else req.fmt, budget,
                         mass, sem_turn.intent if sem_turn is not None else None, pin_notes,
                         lexical.section_query(prompt, session.semantic.get("lexical")),
                         # Claude Code measures a hook's text in UTF-16 units (JavaScript's length): an emoji
                         # counts two, and past its limit the model gets a preview instead of the context.
                         tiers.utf16_units if req.host == "claude" else len,
                         lex_turn.sections if lex_turn is not None else None,
                         lex_turn.relevance if lex_turn is not None else None)
        if advance:
            # How this turn showed each doc (`ctx status` never claims more than the model saw; `ctx stats`).
            shown = {e.path: (e.tier, len(e.text)) for e in plan.entries}
            shown.update((p, (r, 0)) for p, r in zip(plan.omitted, plan.reasons, strict=True))
            store.save_turn(name, turn, upd.scores, upd.causes, bucket, memory, now, (len(plan.output), shown))
            store.prune_sessions(now - cfg.keep_days * 86400, keep=name)
        elif bucket != session.bucket and not read_only:
            store.save_turn(name, session.turn, session.scores, {}, bucket, session.semantic, now)
    behind = bool(snap.pending) or snap.due or (typed and cfg.semantic.enabled and
                                                 (sem_turn is None or sem_turn.stale))
    return _Done(plan, name, advance, upd, behind, snap.pending, snap.due, snap.unlisted, snap.n_docs)


PENDING_KEY = "index_pending"  # docs the background indexer has still to read, as of its last commit


def _indexer_running(store: Store) -> bool:
    if store.path == MEMORY:
        return False
    from .store.background import running

    return running(store.folder)


def current_index(ws: Workspace, trust_index: bool | None = None, read_only: bool = False,
                  warn: Warn | None = None, prompt: str | None = None) -> IndexView:
    """The index as a turn (or `ctx status`) sees it, inside a transaction: brought up to date within the time
    budget, or trusted while a watcher (trust_index None) or the background indexer keeps it, with what the
    indexer said it has still to read."""
    store = ws.store
    indexing = _indexer_running(store)
    trust = read_only or indexing or (trust_index if trust_index is not None else watch_alive(store.folder))
    snap = refresh(ws, warn, trust=trust, seconds=ws.config.index_budget_ms / 1000, prompt=prompt)
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


ENV_ALLOW_DOCS = "CTX_ALLOW_DOCS"  # folders outside a project that a found config may name as docs


def _check_contained(cfg: Config) -> None:
    """A config the hook found in a repo (rather than one the user chose) may not point it at docs outside
    the folder that holds the config (`docs: ~/`, `../..`) unless the user allowed that folder."""
    if cfg.path is None:
        return
    project = os.path.realpath(os.path.dirname(cfg.path))
    docs = os.path.realpath(cfg.docs_root)
    allowed = [os.path.realpath(os.path.expanduser(p)) for p in os.environ.get(ENV_ALLOW_DOCS, "").split(os.pathsep)
               if p]
    if any(docs == root or docs.startswith(root.rstrip(os.sep) + os.sep) for root in (project, *allowed)):
        return
    raise InputError(f"{cfg.path} names docs outside its project ({cfg.docs_root}); not followed "
                     f"(allow it with ${ENV_ALLOW_DOCS}={cfg.docs_root})")


def run_turn(ws: Workspace, req: TurnRequest, warn: Warn | None = None, now: float | None = None) -> TurnResult:
    cfg = ws.config
    if req.fmt not in render.FORMATS:
        raise InputError(f"unknown format {req.fmt!r} (expected one of: {', '.join(render.FORMATS)})")
    if not req.prompt.strip():
        raise InputError("empty prompt: nothing to route")
    if req.budget is not None and req.budget < 0:
        raise InputError(f"--budget must be at least 0, got {req.budget}")
    if req.contained:
        _check_contained(cfg)
    notices: list[str] = []
    # Bytes smuggled in as surrogates (an argument that is not UTF-8) can be neither matched nor stored.
    prompt = human_part(req.prompt.encode("utf-8", "replace").decode("utf-8"))
    typed = bool(prompt.strip())
    if not typed:  # nothing a person typed: a read-only turn that moves no score
        notices.append("note: this prompt is machine text only (a task notification or the like): "
                       "served read-only")
    if len(prompt) > cfg.max_prompt_chars:
        notices.append(f"note: prompt is {len(prompt):,} characters; matched on its first "
                       f"{cfg.max_prompt_chars:,}")
        prompt = prompt[:cfg.max_prompt_chars]
    budget = req.budget if req.budget is not None else cfg.budget_for(req.host)
    now = time.time() if now is None else now
    if req.host is not None:
        ws.store.wait_for_lock(HOOK_LOCK_WAIT_S)
    try:
        done = _turn(ws, req, prompt, typed, budget, now, notices, warn, read_only=False)
    except DatabaseError as exc:
        if req.host is None or not is_locked(exc):
            raise
        notices.append(f"note: another ctx process has held the state for over {HOOK_LOCK_WAIT_S:g} s (a watcher "
                       "indexing, or another turn): this turn is served read-only")
        done = _turn(ws, req, prompt, typed, budget, now, notices, warn, read_only=True)
    plan, name, advance, upd = done.plan, done.session, done.advanced, done.update
    if done.behind and index_in_background(ws):
        if done.pending:
            notices.append(f"note: {done.pending:,} changed docs are being indexed in the background; this turn "
                           f"used the {done.n_docs:,} indexed so far")
        elif done.unlisted or (done.due and not done.n_docs):
            used = f"the {done.n_docs:,} indexed so far" if done.n_docs else "none yet"
            notices.append(f"note: the docs are being indexed in the background; this turn used {used}")
    if not plan.entries and plan.omitted:
        notices.append(f"note: nothing fit the budget of {budget:,} chars; {len(plan.omitted)} doc(s) qualified "
                       f"({', '.join(plan.omitted[:3])}{', ...' if len(plan.omitted) > 3 else ''}): "
                       "raise --budget or budget_chars")
    text = render.to_json(plan, name, upd.causes) if req.fmt == "json" else plan.output
    return TurnResult(plan, name, advance, upd.causes, text, tuple(notices))


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


def route(req: TurnRequest, config_option: str | None = None, docs_option: str | None = None,
          cwd: str | None = None, warn: Warn | None = None) -> TurnResult:
    return with_workspace(lambda ws: run_turn(ws, req, warn), config_option, docs_option, cwd, warn,
                          create=not req.dry_run, defer=req.host is not None)
