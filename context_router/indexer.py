"""The background indexer: the indexing work a turn has no time for, done in small committed batches.

A turn lists the docs folder and reads changed docs for `index_budget_ms` (300 ms) each; a folder too big to
list in that time, the docs left unread, and the full rescan a big folder needs once a minute go to
`ctx index --background`, a detached process the turn starts (store/background.py), one per state folder.
The indexer scans and reads outside the write lock and commits a batch of docs at a time (`absorb`, which
the watcher uses too), so a hook turn waits for one batch at most; it resumes from what is committed after a
kill, brings the semantic model up to date (a whole build outside the lock when it needs one), and exits.
It opens the project as a turn does (workspace.py) and knows no turn.
"""

from __future__ import annotations

import os
import time

from .records import record, replace
from .store import index
from .store.background import hold
from .workspace import (
    FOLDERS_KEY,
    PENDING_KEY,
    IndexView,
    Workspace,
    analyser,
    apply_changes,
    cached_listing,
    nav_titles,
    reconfigured,
    refresh,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

BATCH_DOCS = 200  # docs read outside the lock, then committed at once: a hook turn waits for one batch at most
MAX_PASSES = 5  # scans of the folder per run while it keeps changing; the next turn starts another run


@record
class Absorbed:
    """What one pass over the docs folder changed."""

    view: IndexView | None  # the index after it; None when nothing changed
    changed: tuple[tuple[str, int], ...]  # (path, size) of the docs read
    removed: tuple[str, ...]
    skipped: tuple[str, ...]
    before: dict[str, index.Stat]  # the listing it started from


def absorb(ws: Workspace, progress: Callable[[int, int], None] | None = None,
           warn: Callable[[str], None] | None = None, batch: int = BATCH_DOCS) -> Absorbed:
    """Scan the docs folder and read the changed docs outside the write lock, committing them `batch` at a
    time: a change of thousands of files (a checkout) never holds the lock for more than one batch, memory
    holds one batch of docs, and a kill loses one batch at most (the docs table is the listing of what is
    indexed, so the next pass reads what is left)."""
    cfg, store = ws.config, ws.store
    with store.read_transaction():
        known = store.get_meta("ignore_answers")
        cached = cached_listing(ws)
        config_moved = reconfigured(ws)
    started = time.time()  # what changed after this, an observer reports (store/observe.py)
    scan = index.scan(cfg.docs_root, index.IgnoreAnswers(*known) if known is not None else None)
    todo = [p for p, st in scan.files.items() if cached.get(p) != st]
    removed = tuple(p for p in cached if p not in scan.files)
    changed: list[tuple[str, int]] = []
    skipped: list[str] = []
    view = None
    for start in range(0, max(1, len(todo)), batch) if todo or removed or config_moved else ():
        part = index.diff(cfg.docs_root, {p: scan.files[p] for p in todo[start:start + batch]}, {},
                          cfg.warm.lines, cfg.max_doc_bytes, analyser(cfg), titles=nav_titles(cfg))
        first = start == 0
        if first:
            part = replace(part, removed=removed)
        with store.transaction():
            view = apply_changes(ws, part, scan.files, first)
            store.put_meta(PENDING_KEY, max(0, len(todo) - start - batch))
            if first and scan.ignore is not None:
                store.put_meta("ignore_answers", (scan.ignore.fingerprint, scan.ignore.answers))
        changed += [(d.path, d.size) for d in part.changed]
        skipped += part.skipped
        if warn is not None:
            for message in part.warnings:
                warn(f"warning: {message}")
        if progress is not None:
            progress(min(len(todo), start + batch), len(todo))
    with store.transaction():
        # The folders as this scan saw them: turns list only the ones that change from now on, for a minute.
        store.put_meta(FOLDERS_KEY, {"folders": scan.folders, "full_at": started, "cursor": 0})
        store.put_meta(PENDING_KEY, 0)
    if warn is not None:
        for message in scan.warnings:
            warn(f"warning: {message}")
    return Absorbed(view, tuple(changed), removed, tuple(skipped), cached)


def run(ws: Workspace, progress: Callable[[int, int], None] | None = None,
        warn: Callable[[str], None] | None = None, held: bool = False) -> bool:
    """Index everything that changed (until a pass finds nothing new), then bring the semantic model up to
    date. False when another indexer holds the lock (it will do the work). held: the caller holds it."""
    fd = None if held else hold(ws.store.folder)
    if fd is None and not held:
        return False
    try:
        for _ in range(MAX_PASSES):  # docs that change while a pass runs are the next pass's work
            if absorb(ws, progress, warn).view is None:
                break
        with ws.store.transaction():
            version = refresh(ws, trust=True).version
        rebuild_model(ws, version)
        return True
    finally:
        if fd is not None:
            os.close(fd)


def rebuild_model(ws: Workspace, version: int) -> None:
    """Bring the semantic model up to index `version`: a few changed docs are folded in place; a whole build
    (seconds at 100,000 docs) runs outside the write lock and is swapped in in one short transaction. Docs
    that change meanwhile stay queued for the next update."""
    if not ws.config.semantic.enabled:
        return
    from . import model

    with ws.store.transaction():
        if not model.needs_build(ws, version):
            return
    with ws.store.read_transaction():
        built = model.build_model(ws)
    with ws.store.transaction():
        model.save_model(ws, version, built)
        model.model(ws, refresh(ws, trust=True).version, rebuild=False)  # what changed while it was built
