"""Writing the files ctx owns outside its state (config from `ctx init`, host settings, `.mcp.json`)."""

from __future__ import annotations

import os


def new_file_mode(executable: bool = False) -> int:
    """The mode a new file gets from the umask (0644, or 0755 for a program, under umask 022): these files are
    committed and shared with a team, not private like the temporary file they are written through."""
    mask = os.umask(0o022)  # reading the umask means setting it; put back at once
    os.umask(mask)
    return (0o777 if executable else 0o666) & ~mask


def write_atomic(path: str, text: str, executable: bool = False) -> str:
    """Write a file whole or not at all: a fresh temporary file (O_EXCL) in the same folder, synced, then
    renamed over the target. An existing file keeps its mode; a new one gets the umask's (`executable`: a
    program's). A target that is a symlink is updated where it points (its link is kept); the path written is
    returned so the caller can say so."""
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
        mode = os.stat(path).st_mode & 0o777 if os.path.exists(path) else new_file_mode(executable)
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    return path
