"""What changed under a docs folder since a turn last looked, as the OS reports it: for a resident process.

A turn that nothing watches scans the docs folder to find what changed (every doc's stat below
QUICK_FROM_DOCS, else the folders and a sample of docs: 1-4 ms at 10,000-100,000 docs). The resident server
(`ctx serve`) observes the folders of the docs it serves (watchdog's inotify, started between two turns), so
a turn whose folder reported nothing since the last one skips the scan, and one whose folder did stats the
docs it named. Nothing here is used unless `OBSERVING` is set (the server sets it); an observer that cannot
start (no inotify, its watch limit reached) leaves that folder's turns scanning as before.
"""

from __future__ import annotations

import os
import threading
import time

from .index import DEPENDENCY_FOLDERS, IGNORE_FILES

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

OBSERVED_ROOTS = 4  # docs folders observed at once, the most recently served kept
MAX_FOLDERS = 2000  # a folder with more (a project's root over its node_modules and .git) is not observed:
# the OS watches each folder, and a user's limit may be 8,192 watches for every program (an editor's too)
MAX_CHANGED = 1000  # changed paths remembered between two turns; past this the observer forgets them and
# starts again (`since`): only a full scan after that proves the index current

OBSERVING: dict[str, Observed] | None = None  # root -> its observer, in this process; None: observe nothing
WANTED: list[str] = []  # roots turns asked about that are not observed yet: settle() starts them
REFUSED: set[str] = set()  # roots the OS would not observe: not tried again


def listable(root: str, path: str) -> bool:
    """Whether `path` lies inside `root` where a scan could list it: not in a hidden folder (the state's own
    `.ctx`, `.git`) or a dependencies' one (`node_modules`: an install is thousands of changes), not a hidden
    file other than an ignore file."""
    rel = os.path.relpath(path, root)
    if rel == "." or rel.startswith(".."):
        return False
    *folders, name = rel.split(os.sep)
    if any(f.startswith(".") or f in DEPENDENCY_FOLDERS for f in folders) or name in DEPENDENCY_FOLDERS:
        return False
    return name in IGNORE_FILES or not name.startswith(".")


def changed_paths(event: Any) -> list[str]:
    """The absolute paths a watchdog event says changed (a move: both); none for a read."""
    if event.event_type in ("opened", "closed_no_write"):
        return []
    return [os.path.abspath(os.fsdecode(raw)) for raw in (event.src_path, getattr(event, "dest_path", "")) if raw]


class Observed:
    """One docs folder's observer: the paths that changed under it since the last take()."""

    def __init__(self, root: str):
        self.root = os.path.realpath(root)  # the OS reports paths under the folder it resolved
        self.since = time.time()  # changes after this are reported; a scan started before it proves nothing
        self._lock = threading.Lock()
        self._changed: set[str] = set()  # relative paths
        self._observer: Any = None
        self.folder = _identity(root)  # the folder observed: a path that now names another is observed afresh

    def dispatch(self, event: Any) -> None:
        """watchdog's callback, on its thread."""
        for path in changed_paths(event):
            if listable(self.root, path):
                with self._lock:
                    self._changed.add(os.path.relpath(path, self.root).replace(os.sep, "/"))
                    if len(self._changed) > MAX_CHANGED:
                        self._changed = set()
                        self.since = time.time()

    def take(self) -> frozenset[str]:
        """The paths changed since the last take (and forget them)."""
        with self._lock:
            changed, self._changed = self._changed, set()
        return frozenset(changed)

    def start(self) -> bool:
        """Observe the folder; False when it is not on a local file system, has more than MAX_FOLDERS
        folders, or the OS will not (no inotify, its limit reached)."""
        if not _local(self.root) or _folders_over(self.root, MAX_FOLDERS):
            return False
        observer: Any = None
        try:
            # inotify only (Linux): a report per folder, promptly. kqueue (BSD, macOS without FSEvents) opens a
            # file per doc; others report late or not at all: their folders are scanned as before.
            from watchdog.observers.inotify import InotifyObserver

            observer = InotifyObserver()
            observer.schedule(self, self.root, recursive=True)
            observer.start()
        except Exception:  # noqa: BLE001 - any failure to observe leaves the folder's turns scanning
            if observer is not None and observer.is_alive():
                observer.stop()
            return False
        self._observer = observer
        self.since = time.time()  # the watches are in place: from now on, every change is reported
        return True

    def stop(self) -> None:
        if self._observer is not None:
            self._observer.stop()
            self._observer.join(timeout=5)
            self._observer = None


# File systems whose every change this machine's kernel makes, so inotify reports it. Not a network or FUSE
# mount, nor WSL's view of Windows drives (9p, drvfs), nor a VM's shared folder: a change made on the other
# side is never reported there, and their folders are scanned every turn as before.
LOCAL_FS = frozenset({"ext2", "ext3", "ext4", "xfs", "btrfs", "bcachefs", "f2fs", "jfs", "reiserfs", "zfs",
                      "tmpfs", "ramfs", "overlay"})
MOUNTS = "/proc/self/mounts"


def _local(root: str, mounts: str = MOUNTS) -> bool:
    """Whether `root` (a real path) lies on a file system of LOCAL_FS, by the mount that holds it."""
    try:
        with open(mounts, encoding="utf-8", errors="replace") as fh:
            table = [line.split()[1:3] for line in fh if len(line.split()) > 2]
    except OSError:
        return False
    best, kind = "", ""
    for point, fstype in table:
        # Spaces and the like in a mount point are octal escapes: the kernel writes these four.
        for escaped, char in (("\\040", " "), ("\\011", "\t"), ("\\012", "\n"), ("\\134", "\\")):
            point = point.replace(escaped, char)
        inside = root == point or root.startswith(point.rstrip("/") + "/")
        if inside and len(point) >= len(best):
            best, kind = point, fstype
    return kind in LOCAL_FS


def _folders_over(root: str, limit: int) -> bool:
    """Whether `root` holds more than `limit` folders, hidden and ignored ones included (an observer watches
    each): counted until the limit, no further."""
    count = 0
    for _, dirs, _ in os.walk(root):
        count += len(dirs)
        if count > limit:
            return True
    return False


def _identity(path: str) -> tuple[int, int] | None:
    """(device, inode) of the folder at `path`, following links; None when there is none."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_dev, st.st_ino


def changes(root: str) -> frozenset[str] | None:
    """What changed under `root` since the last call, as its observer in this process saw it: the changed paths
    (none: nothing changed, or too much to name: see `since`), or None when nothing observes it."""
    if OBSERVING is None:
        return None
    observed = OBSERVING.get(root)
    if observed is not None and (observed.folder is None or _identity(root) != observed.folder):
        # The folder was removed or replaced (a checkout, a link pointed elsewhere): its observer watches
        # what is gone. Scanned as unobserved, and observed afresh.
        OBSERVING.pop(root).stop()
        observed = None
    if observed is None:
        if root not in WANTED and root not in REFUSED:
            WANTED.append(root)
        return None
    OBSERVING[root] = OBSERVING.pop(root)  # the most recently served last
    return observed.take()


def since(root: str) -> float | None:
    """Since when `root`'s observer reports every change: a full scan must have started after it for a quiet
    folder to prove the index current. None when nothing observes it."""
    observed = OBSERVING.get(root) if OBSERVING is not None else None
    return observed.since if observed is not None else None


def settle() -> None:
    """Between two turns: observe the folders turns asked about (the last OBSERVED_ROOTS; the oldest stopped)."""
    if OBSERVING is None:
        return
    while WANTED:
        root = WANTED.pop(0)
        if root in OBSERVING or not os.path.isdir(root):
            continue
        observed = Observed(root)
        if not observed.start():
            REFUSED.add(root)
            continue
        OBSERVING[root] = observed
        while len(OBSERVING) > OBSERVED_ROOTS:
            OBSERVING.pop(next(iter(OBSERVING))).stop()


def stop_all() -> None:
    global OBSERVING
    for observed in (OBSERVING or {}).values():
        observed.stop()
    OBSERVING = None
    WANTED.clear()
    REFUSED.clear()
