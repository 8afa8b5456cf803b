"""`ctx watch`: keep the docs index in the state current while docs change (watchdog).

The watcher holds an exclusive lock on `watch.lock` beside the state database for as long as it lives. A turn
that finds the lock held trusts the index instead of scanning the docs folder (see state.watch_alive), so
with a watcher running a hook turn over 10,000 docs stats nothing. The index can lag a change by the
debounce interval (0.2 s by default) plus one rescan.
"""

from __future__ import annotations

import fcntl
import os
import queue
import stat
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..errors import CtxError, StateError
from ..store import index
from ..store.observe import changed_paths, listable
from ..store.state import WATCH_LOCK
from ..workspace import Workspace, open_workspace, refresh

WATCH_BATCH = 200  # docs stored per write transaction when a change arrives

if TYPE_CHECKING:
    from ..workspace import Warn

DEBOUNCE_SECONDS = 0.2


@dataclass(frozen=True)
class Event:
    kind: str  # added | changed | removed | moved | config | error
    path: str
    detail: str = ""

    def line(self) -> str:
        if self.kind == "moved":
            return f"moved    {self.path} -> {self.detail}"
        if self.kind in ("config", "error"):
            return f"{self.kind:<8} {self.detail}"
        return f"{self.kind:<8} {self.path}"


class _Handler:
    """A watchdog handler that notes which relevant paths changed: docs, folders, ignore files, the config.

    Everything else (the state database, editors' swap files) is dropped here, so a turn writing the state
    does not wake the watcher.
    """

    def __init__(self, pending: queue.SimpleQueue[str], root: str, config_path: str | None):
        self.pending = pending
        self.root = root
        self.config_path = config_path

    def relevant(self, path: str) -> bool:
        if path == self.config_path:
            return True
        return listable(self.root, path)

    def dispatch(self, event: Any) -> None:
        for path in changed_paths(event):
            if self.relevant(path):
                self.pending.put(path)


class Watcher:
    def __init__(self, config_option: str | None = None, docs_option: str | None = None, warn: Warn | None = None):
        self.config_option = config_option
        self.docs_option = docs_option
        self.warn = warn
        self.ws: Workspace = open_workspace(config_option, docs_option, warn=warn)
        self.lock_fd: int | None = None
        self.observer: Any = None
        self.pending: queue.SimpleQueue[str] = queue.SimpleQueue()

    @property
    def root(self) -> str:
        return self.ws.config.docs_root

    def start(self, progress: Callable[[int, int], None] | None = None) -> None:
        """Take the watch lock, bring the index up to date (in committed chunks, with progress), observe."""
        from watchdog.observers import Observer

        from .. import indexer

        lock_path = os.path.join(self.ws.store.folder, WATCH_LOCK)
        try:
            self.lock_fd = os.open(lock_path, os.O_RDWR | os.O_CREAT | os.O_NONBLOCK | os.O_NOFOLLOW, 0o644)
        except OSError as exc:
            raise StateError(f"cannot open {lock_path}: {exc.strerror}") from None
        if not stat.S_ISREG(os.fstat(self.lock_fd).st_mode):  # a FIFO or device here must not hang a watcher
            os.close(self.lock_fd)
            self.lock_fd = None
            raise StateError(f"{lock_path} is not a regular file: remove it")
        try:
            fcntl.flock(self.lock_fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(self.lock_fd)
            self.lock_fd = None
            raise StateError(f"another ctx watch is already running on {self.ws.store.path}") from None
        if not indexer.run(self.ws, progress, warn=self.warn):  # an indexer was at it: wait for it
            with self.ws.store.transaction():
                version = refresh(self.ws, self.warn).version
            indexer.rebuild_model(self.ws, version)
        config_path = self.ws.config.path
        handler = _Handler(self.pending, self.root, config_path)
        self.observer = Observer()
        self.observer.schedule(handler, self.root, recursive=True)
        if config_path is not None and not _inside(os.path.dirname(config_path), self.root):
            self.observer.schedule(handler, os.path.dirname(config_path), recursive=False)
        self.observer.start()

    def stop(self) -> None:
        if self.observer is not None:
            self.observer.stop()
            self.observer.join(timeout=5)
            self.observer = None
        if self.lock_fd is not None:
            os.close(self.lock_fd)  # releases the lock
            self.lock_fd = None
        self.ws.close()

    def _drain(self) -> set[str]:
        paths: set[str] = set()
        while True:
            try:
                paths.add(self.pending.get_nowait())
            except queue.Empty:
                return paths

    def poll(self) -> list[Event]:
        """Apply what changed since the last poll; the events, one per doc (or config reload)."""
        paths = self._drain()
        if not paths:
            return []
        events: list[Event] = []
        config_path = self.ws.config.path
        if config_path is not None and config_path in paths:
            events += self._reload_config()
        events += self._rescan()
        return events

    def _reload_config(self) -> list[Event]:
        try:
            fresh = open_workspace(self.config_option, self.docs_option, warn=self.warn)
        except CtxError as exc:
            return [Event("error", "", f"config not reloaded, keeping the previous one: {exc}")]
        self.ws.close()
        self.ws = fresh
        with self.ws.store.transaction():
            view = refresh(self.ws, self.warn)  # a changed config rebuilds the keyword index
        from ..indexer import rebuild_model

        rebuild_model(self.ws, view.version)
        return [Event("config", "", f"reloaded {self.ws.config.path}")]

    def _rescan(self) -> list[Event]:
        # A full rescan after the debounce handles moves of whole folders, editors' save-by-rename and ignore
        # files alike; it runs in this background process, never on a turn's path, and commits in batches.
        from ..indexer import absorb, rebuild_model

        try:
            done = absorb(self.ws, warn=self.warn, batch=WATCH_BATCH)
        except CtxError as exc:
            return [Event("error", "", str(exc))]
        if done.view is None:
            return []
        rebuild_model(self.ws, done.view.version)
        return _describe(done.changed, done.removed, done.skipped, done.before)


def _inside(path: str, root: str) -> bool:
    real, real_root = os.path.realpath(path), os.path.realpath(root)
    return real == real_root or real.startswith(real_root + os.sep)


def _describe(changed: tuple[tuple[str, int], ...], removed_paths: tuple[str, ...], skipped: tuple[str, ...],
              cached: dict[str, index.Stat]) -> list[Event]:
    added = [(p, size) for p, size in changed if p not in cached]
    events: list[Event] = []
    removed = list(removed_paths)
    for path, size in added:
        # A removal and an addition of the same size in one batch is a move (or a rename).
        twin = next((r for r in removed if cached[r][1] == size), None)
        if twin is not None:
            removed.remove(twin)
            events.append(Event("moved", twin, path))
        else:
            events.append(Event("added", path))
    events += [Event("changed", p) for p, _ in changed if p in cached]
    events += [Event("removed", r) for r in removed]
    events += [Event("skipped", p) for p in skipped]
    return events
