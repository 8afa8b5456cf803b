"""One turn, end to end: config -> index -> state -> attention -> tier plan -> render -> state.

Everything here returns data; only the CLI and the hook adapters write to the terminal. The hook path goes
through this module too, so it imports nothing heavy: no typer, rich, numpy, tiktoken, and pyyaml only when
config.yaml or a doc with front matter changed.
"""

from __future__ import annotations

import os
import sqlite3
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import attention, index, keywords, render, tiers
from . import config as config_mod
from .attention import FileScore
from .config import Config
from .errors import InputError, StateError
from .state import Pin, Session, Store, default_path, watch_alive

Warn = Callable[[str], None]
SNAPSHOT_KEY = "snapshot"


@dataclass(frozen=True)
class Snapshot:
    """The docs index as a turn needs it, loaded from one blob: stats, per-doc attention settings, keywords."""

    files: dict[str, index.Stat]  # every scanned file, skipped ones included
    docs: frozenset[str]  # the indexed (not skipped) docs
    attn: dict[str, tuple[tuple[str, ...], str | None, float | None]]  # path -> (related, pinned, decay)
    kmap: keywords.KeywordMap


@dataclass
class Workspace:
    config: Config
    store: Store
    config_id: tuple[str, int, int] | None

    def close(self) -> None:
        self.store.close()


def _config_identity(path: Path | None) -> tuple[str, int, int] | None:
    if path is None:
        return None
    st = path.stat()
    return (str(path), st.st_mtime_ns, st.st_size)


def open_workspace(config_option: str | None = None, docs_option: str | None = None, cwd: Path | None = None,
                   warn: Warn | None = None) -> Workspace:
    """Find the config, open the state beside it, load the config (from the state's cache when unchanged)."""
    cwd = cwd or Path.cwd()
    path = config_mod.discover(config_option, cwd)
    docs_override = Path(os.path.expanduser(docs_option)) if docs_option else None
    if path is not None:
        state_dir = path.parent / ".ctx"
    else:
        root = docs_override if docs_override is not None else Path(config_mod.DEFAULTS["docs"])
        state_dir = (root if root.is_absolute() else cwd / root) / ".ctx"
    store = Store(default_path(state_dir), warn)
    try:
        ident = _config_identity(path)
        raw = None
        if path is not None and ident is not None:
            try:
                cached = store.get_meta("config")
            except sqlite3.DatabaseError as exc:
                store.close()
                store = Store.recover(store.path, exc, warn)
                cached = None
            if cached is not None and tuple(cached[0]) == ident:
                raw = cached[1]
            else:
                raw = config_mod.parse_yaml(config_mod.read_config_text(path), path.name)
                with store.transaction():
                    store.put_meta("config", (ident, raw))
        else:
            raw = config_mod.normalise({})
        cfg = config_mod.from_normal(raw, path, docs_override, cwd)
    except BaseException:
        store.close()
        raise
    return Workspace(cfg, store, ident)


# -- index ---------------------------------------------------------------------------------------------------


def _index_signature(cfg: Config) -> tuple[Any, ...]:
    return (str(cfg.docs_root), cfg.warm.lines, cfg.max_doc_bytes)


def doc_keywords(cfg: Config, doc: index.Doc) -> tuple[str, ...]:
    return keywords.doc_keywords(doc.path, doc.title, doc.keywords, cfg.keywords.get(doc.path, ()),
                                 cfg.auto_keywords)


def _build_snapshot(ws: Workspace, files: dict[str, index.Stat]) -> Snapshot:
    docs = ws.store.docs()
    attn = {p: (d.related, d.pinned, d.decay) for p, d in docs.items()
            if d.related or d.pinned or d.decay is not None}
    kmap = keywords.build_map({p: doc_keywords(ws.config, d) for p, d in docs.items()})
    return Snapshot(files, frozenset(docs), attn, kmap)


def refresh(ws: Workspace, warn: Warn | None = None, trust: bool = False) -> Snapshot:
    """Bring the cached index up to date with the docs folder; call inside a write transaction.

    trust: skip the scan (a live `ctx watch` keeps the index current).
    """
    cfg, store = ws.config, ws.store
    sig = _index_signature(cfg)
    blob = store.get_meta(SNAPSHOT_KEY)
    if blob is not None and tuple(blob["sig"]) != sig:
        store.clear_index()
        blob = None
    if blob is not None and trust:
        files = blob["files"]
    else:
        index.check_root(cfg.docs_root)
        scan = index.scan(cfg.docs_root)
        files = scan.files
        cached = blob["files"] if blob is not None else store.index_stats()
        if blob is not None and files == cached and tuple(blob["cfg"] or ()) == tuple(ws.config_id or ()):
            return Snapshot(files, frozenset(blob["docs"]), blob["attn"], blob["kmap"])
        changes = index.diff(cfg.docs_root, files, cached, cfg.warm.lines, cfg.max_doc_bytes)
        store.save_docs(changes.changed, ((p, files[p]) for p in changes.skipped), changes.removed)
        if warn is not None:
            for message in (*scan.warnings, *changes.warnings):
                warn(f"warning: {message}")
    if blob is not None and trust and tuple(blob["cfg"] or ()) == tuple(ws.config_id or ()):
        return Snapshot(files, frozenset(blob["docs"]), blob["attn"], blob["kmap"])
    snap = _build_snapshot(ws, files)
    store.put_meta(SNAPSHOT_KEY, {"sig": sig, "cfg": ws.config_id, "files": files, "docs": sorted(snap.docs),
                                  "attn": snap.attn, "kmap": snap.kmap})
    return snap


def apply_changes(ws: Workspace, changes: index.Changes, files: dict[str, index.Stat]) -> Snapshot:
    """Store the changes a watcher saw and rebuild the snapshot from them (inside a write transaction)."""
    ws.store.save_docs(changes.changed, ((p, files[p]) for p in changes.skipped), changes.removed)
    snap = _build_snapshot(ws, files)
    ws.store.put_meta(SNAPSHOT_KEY, {"sig": _index_signature(ws.config), "cfg": ws.config_id, "files": files,
                                     "docs": sorted(snap.docs), "attn": snap.attn, "kmap": snap.kmap})
    return snap


# -- one turn ------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class TurnRequest:
    prompt: str
    session: str = "default"
    fmt: str = "markdown"
    budget: int | None = None
    host: str | None = None
    dry_run: bool = False
    trust_index: bool | None = None  # None: trust it while a `ctx watch` is running


@dataclass(frozen=True)
class TurnResult:
    plan: tiers.Plan
    session: str
    advanced: bool
    causes: dict[str, tuple[str, ...]]
    text: str  # what to print: the markdown or xml context, or the json object
    notices: tuple[str, ...] = field(default=())  # one-line messages for stderr


def pin_floors(cfg: Config, snap: Snapshot, pins: Mapping[str, Pin], now: float) -> dict[str, float]:
    floor = {"warm": cfg.warm.threshold, "hot": cfg.hot.threshold}
    out: dict[str, float] = {}
    for path, (_, level, _) in snap.attn.items():
        if level:
            out[path] = floor[level]
    for path, level in cfg.pinned.items():
        out[path] = max(out.get(path, 0.0), floor[level])
    for path, pin in pins.items():
        level = pin.level if pin.expires is None or pin.expires > now else "warm"
        out[path] = max(out.get(path, 0.0), floor[level])
    return out


def decay_rate(cfg: Config, snap: Snapshot, path: str) -> float:
    """The doc's own rate (front matter), else the longest matching prefix, else the default."""
    own = snap.attn[path][2] if path in snap.attn else None
    return own if own is not None else cfg.decay_for(path)


def related(cfg: Config, snap: Snapshot, path: str) -> tuple[str, ...]:
    return cfg.related.get(path, ()) + (snap.attn[path][0] if path in snap.attn else ())


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


def _views(ws: Workspace, paths: list[str]) -> tuple[dict[str, tiers.DocView], dict[str, tuple[str, ...]]]:
    cfg = ws.config
    docs = ws.store.docs(paths)
    views: dict[str, tiers.DocView] = {}
    kws: dict[str, tuple[str, ...]] = {}
    for path, doc in docs.items():
        def body(doc: index.Doc = doc) -> str | None:
            if doc.oversize:
                return doc.header + f"\n... [file over {cfg.max_doc_bytes:,} bytes: header only] ..."
            text = index.read_text(cfg.docs_root, doc.path)
            return None if text is None else index.body_of(text)
        views[path] = tiers.DocView(body, doc.header, doc.truncated)
        kws[path] = doc_keywords(cfg, doc)
    return views, kws


def plan_turn(ws: Workspace, snap: Snapshot, scores: Mapping[str, FileScore], hit: frozenset[str], turn: int,
              fmt: str, budget: int) -> tiers.Plan:
    cfg = ws.config
    caps = tiers.Caps(cfg.hot.threshold, cfg.hot.max_files, cfg.warm.threshold, cfg.warm.max_files)
    cands = tiers.candidates(tiers.rank(scores, hit), caps)
    views, kws = _views(ws, [c.path for c in cands])
    layout = render.layout_for(fmt, lambda p: kws.get(p, ()))
    return tiers.fit(cands, views, layout, budget, turn, len(snap.docs))


def run_turn(ws: Workspace, req: TurnRequest, warn: Warn | None = None, now: float | None = None) -> TurnResult:
    cfg = ws.config
    if req.fmt not in render.FORMATS:
        raise InputError(f"unknown format {req.fmt!r} (expected one of: {', '.join(render.FORMATS)})")
    if not req.prompt.strip():
        raise InputError("empty prompt: nothing to route")
    if req.budget is not None and req.budget < 0:
        raise InputError(f"--budget must be at least 0, got {req.budget}")
    notices: list[str] = []
    prompt = req.prompt
    if len(prompt) > cfg.max_prompt_chars:
        notices.append(f"note: prompt is {len(prompt):,} characters; matched on its first "
                       f"{cfg.max_prompt_chars:,}")
        prompt = prompt[:cfg.max_prompt_chars]
    budget = req.budget if req.budget is not None else cfg.budget_for(req.host)
    now = time.time() if now is None else now
    store = ws.store
    with store.transaction():
        trust = req.trust_index if req.trust_index is not None else watch_alive(store.path.parent)
        snap = refresh(ws, warn, trust=trust)
        session = store.session(req.session)
        allowed, bucket = (True, session.bucket) if req.dry_run else _rate_limit(cfg, session, now)
        if not allowed:
            notices.append(f"note: more than {cfg.turns_per_minute} turns a minute in session {req.session!r}; "
                           "this turn is served read-only")
        advance = allowed and not req.dry_run
        turn = session.turn + 1
        hits = keywords.match(snap.kmap, prompt)
        upd = attention.update(session.scores, turn, hits, snap.docs.__contains__,
                               lambda p: decay_rate(cfg, snap, p), lambda p: related(cfg, snap, p),
                               cfg.coactivation, pin_floors(cfg, snap, store.pins(), now))
        plan = plan_turn(ws, snap, upd.scores, upd.hit, turn, "markdown" if req.fmt == "json" else req.fmt, budget)
        if advance:
            store.save_turn(req.session, turn, upd.scores, upd.causes, bucket)
        elif bucket != session.bucket:
            store.save_turn(req.session, session.turn, session.scores, {}, bucket)
    text = render.to_json(plan, req.session, upd.causes) if req.fmt == "json" else plan.output
    return TurnResult(plan, req.session, advance, upd.causes, text, tuple(notices))


def route(req: TurnRequest, config_option: str | None = None, docs_option: str | None = None,
          cwd: Path | None = None, warn: Warn | None = None) -> TurnResult:
    """Open the workspace and run one turn. A state file that turns out corrupt mid-turn is set aside once."""
    ws = open_workspace(config_option, docs_option, cwd, warn)
    try:
        try:
            return run_turn(ws, req, warn)
        except sqlite3.DatabaseError as exc:
            if isinstance(exc, sqlite3.OperationalError) and "locked" in str(exc):
                raise StateError(f"state is busy: {exc}") from None
            ws.store.close()
            ws.store = Store.recover(ws.store.path, exc, warn)
            return run_turn(ws, req, warn)
    finally:
        ws.close()
