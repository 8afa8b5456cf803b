"""Attested Tier-0 pins: a pin made with `ctx pin` carries an HMAC over the doc's path and content.

The key is per repo (`pin.key` beside the state, mode 0600). A pin whose doc changed since it was pinned is
suspended until the user pins it again; a pin past its TTL drops from HOT to WARM (a WARM pin lapses). Pins in
config.yaml or a doc's front matter are the repo's own word and need no attestation.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import stat

from ..errors import StateError
from . import index

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

    from .state import Pin

KEY_FILE = "pin.key"


KEY_BYTES = 32


def key(state_folder: str, create: bool = False) -> bytes | None:
    """The repo's pin key; None when there is none and `create` is off. A key that is not a regular file,
    is shorter than 32 bytes or can be read by group or others is refused: a pin it signed proves nothing."""
    path = os.path.join(state_folder, KEY_FILE)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0))
    except FileNotFoundError:
        return _new_key(state_folder, path) if create else None
    except OSError as exc:
        raise StateError(f"pin key {path} cannot be read ({exc.strerror}): remove it, then ctx pin again") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise StateError(f"pin key {path} is not a regular file: remove it, then ctx pin again")
        if st.st_mode & 0o077:
            raise StateError(f"pin key {path} can be read by others (mode {st.st_mode & 0o777:o}): remove it, "
                             "then ctx pin again")
        secret = os.read(fd, 4096)
    finally:
        os.close(fd)
    if len(secret) < KEY_BYTES:
        raise StateError(f"pin key {path} is {len(secret)} bytes, under {KEY_BYTES}: remove it, then ctx pin again")
    return secret


def _new_key(state_folder: str, path: str) -> bytes:
    """Write a new key whole or not at all: a private temporary file, synced, then linked into place (which
    fails if another process made one first; then that one is the key)."""
    import tempfile

    secret = os.urandom(KEY_BYTES)
    try:
        os.makedirs(state_folder, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=state_folder, prefix=".pin.key.")  # O_EXCL, mode 0600
    except OSError as exc:
        raise StateError(f"cannot create the pin key {path}: {exc.strerror}") from None
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(secret)
            fh.flush()
            os.fsync(fh.fileno())
        try:
            os.link(tmp, path)
        except FileExistsError:
            found = key(state_folder)
            assert found is not None
            return found
        except OSError as exc:
            raise StateError(f"cannot create the pin key {path}: {exc.strerror}") from None
    finally:
        os.unlink(tmp)
    return secret


def attestation(docs_root: str, path: str, secret: bytes, level: str, expires: float | None) -> str | None:
    """HMAC-SHA256 over the path, the SHA-256 of the doc's bytes, the pin's level and its expiry; None when
    the doc cannot be read. A level or expiry changed in the database breaks it."""
    data = index.read_bytes(docs_root, path)
    if data is None:
        return None
    digest = hashlib.sha256(data).hexdigest()
    message = f"{path}\0{digest}\0{level}\0{expires!r}"
    return hmac.new(secret, message.encode("utf-8", "surrogateescape"), "sha256").hexdigest()


def effective(pins: Mapping[str, Pin], docs_root: str, state_folder: str, now: float
              ) -> tuple[dict[str, str], tuple[str, ...]]:
    """(path -> the level each `ctx pin` pin holds now, one-line notes for the output)."""
    secret = key(state_folder)
    levels: dict[str, str] = {}
    notes: list[str] = []
    for path, pin in sorted(pins.items()):
        expected = attestation(docs_root, path, secret, pin.level, pin.expires) if secret is not None else None
        if expected is None or pin.attestation is None or not hmac.compare_digest(expected, pin.attestation):
            notes.append(f"pinned doc changed since it was pinned: re-pin to trust it ({path})")
            continue
        if pin.expires is not None and pin.expires <= now:
            if pin.level == "hot":
                levels[path] = "warm"
                notes.append(f"HOT pin on {path} expired: now WARM (ctx pin --hot to renew)")
            else:
                notes.append(f"pin on {path} expired (ctx pin to renew)")
            continue
        levels[path] = pin.level
    return levels, tuple(notes)
