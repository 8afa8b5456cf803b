"""The background indexer: the indexing work a turn has no time for, done in small committed chunks.

A turn reads changed docs for `index_budget_ms` (300 ms) and leaves the rest pending; it then starts
`ctx index --background`, a detached process, one per state folder (it holds an exclusive flock on
`.ctx/index.lock` while it runs; a second one exits at once). The indexer commits a small chunk at a time
(about 0.3 s of lock at 10,000 docs, most of it the rescan of the folder), so a hook turn waits briefly for
the write lock; it resumes from what is committed after a kill, rebuilds the semantic model outside the
lock once the index is complete, and exits.
"""

from __future__ import annotations

import os
import sys
import time

from ..router import Workspace, refresh

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

INDEX_LOCK = "index.lock"
CHUNK_SECONDS = 0.15  # each committed pass reads docs for this long: a hook turn waits for at most one
PAUSE_SECONDS = 0.05  # between passes, so a waiting turn gets the lock (SQLite's busy wait is not a queue)


def running(state_dir: str) -> bool:
    """Whether an indexer holds the lock of this state folder (a killed one releases it with its process)."""
    from .state import watch_alive

    return watch_alive(state_dir, INDEX_LOCK)  # the same flock test as the watcher's


def start(config_path: str | None, docs_option: str | None, state_path: str, cwd: str) -> bool:
    """Start a detached indexer for this state unless one runs already. False when it was running."""
    if running(os.path.dirname(state_path)):
        return False
    import subprocess

    args = [sys.executable, "-m", "context_router", "index", "--background"]
    if config_path is not None:
        args += ["--config", config_path]
    if docs_option is not None:
        args += ["--docs", docs_option]
    env = {**os.environ, "CTX_STATE": state_path}
    subprocess.Popen(args, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                     stderr=subprocess.DEVNULL, start_new_session=True, close_fds=True)
    return True


def run(ws: Workspace, progress: Callable[[int, int], None] | None = None, chunk: float = CHUNK_SECONDS,
        warn: Callable[[str], None] | None = None) -> bool:
    """Index everything pending, a committed chunk at a time, then rebuild the semantic model. False when
    another indexer holds the lock (it will do the work)."""
    import fcntl

    path = os.path.join(ws.store.folder, INDEX_LOCK)
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            return False
        while True:
            with ws.store.transaction():
                view = refresh(ws, warn, seconds=chunk)
            done = view.n_docs
            if progress is not None:
                progress(done, done + view.pending)
            if not view.pending:
                break
            time.sleep(PAUSE_SECONDS)
        rebuild_model(ws, view.version)
        return True
    finally:
        os.close(fd)


def rebuild_model(ws: Workspace, version: int) -> None:
    """Bring the semantic model up to index `version`: a few changed docs are folded in place; a whole build
    (seconds at 100,000 docs) runs outside the write lock and is swapped in in one short transaction. Docs
    that change meanwhile stay queued for the next update."""
    if not ws.config.semantic.enabled:
        return
    from ..turn import layers

    with ws.store.transaction():
        if not layers.needs_build(ws, version):
            return
    with ws.store.read_transaction():
        built = layers.build_model(ws)
    with ws.store.transaction():
        layers.save_model(ws, version, built)
        layers.model(ws, refresh(ws, trust=True).version, rebuild=False)  # what changed while it was built
