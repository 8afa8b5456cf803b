"""Writing the files ctx owns outside its state (config from `ctx init`, host settings, `.mcp.json`)."""

from __future__ import annotations

import os


def write_atomic(path: str, text: str) -> str:
    """Write a file whole or not at all: a fresh temporary file (O_EXCL) in the same folder, synced, then
    renamed over the target. A target that is a symlink is updated where it points (its link is kept); the
    path written is returned so the caller can say so."""
    import tempfile

    if os.path.islink(path):
        path = os.path.realpath(path)
    folder = os.path.dirname(path) or "."
    os.makedirs(folder, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=f".{os.path.basename(path)}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        if os.path.exists(path):
            os.chmod(tmp, os.stat(path).st_mode & 0o777)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    return path
