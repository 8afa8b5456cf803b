"""The background indexer's process: start it detached, tell whether one runs, take its lock.

One indexer per state folder holds an exclusive flock on `.ctx/index.lock` while it runs; a second one exits
at once; turns trust the index while it runs. What it does is indexer.py's.
"""

from __future__ import annotations

import os
import sys

INDEX_LOCK = "index.lock"


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


def hold(state_dir: str) -> int | None:
    """Take this state folder's indexer lock: its file descriptor (closing it releases the lock), or None
    when another indexer holds it."""
    import fcntl

    os.makedirs(state_dir, exist_ok=True)
    fd = os.open(os.path.join(state_dir, INDEX_LOCK), os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        return None
    return fd


