"""Attested Tier-0 pins: a pin made with `ctx pin` carries an HMAC over the doc's path and content.

The key is per repo (`pin.key` beside the state, mode 0600). A pin whose doc changed since it was pinned is
suspended until the user pins it again; a pin past its TTL drops from HOT to WARM (a WARM pin lapses). Pins in
config.yaml or a doc's front matter are the repo's own word and need no attestation.
"""

from __future__ import annotations

import hashlib
import hmac
import os

from . import index
from .errors import StateError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

    from .state import Pin

KEY_FILE = "pin.key"


def key(state_folder: str, create: bool = False) -> bytes | None:
    path = os.path.join(state_folder, KEY_FILE)
    try:
        with open(path, "rb") as fh:
            return fh.read()
    except FileNotFoundError:
        if not create:
            return None
    secret = os.urandom(32)
    try:
        os.makedirs(state_folder, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:  # another process made it first
        return key(state_folder)
    except OSError as exc:
        raise StateError(f"cannot create the pin key {path}: {exc.strerror}") from None
    with os.fdopen(fd, "wb") as fh:
        fh.write(secret)
    return secret


def attestation(docs_root: str, path: str, secret: bytes) -> str | None:
    """HMAC-SHA256 over the path and the SHA-256 of the doc's bytes; None when the doc cannot be read."""
    text = index.read_text(docs_root, path)
    if text is None:
        return None
    digest = hashlib.sha256(text.encode("utf-8", "surrogateescape")).hexdigest()
    return hmac.new(secret, f"{path}\0{digest}".encode("utf-8", "surrogateescape"), "sha256").hexdigest()


def effective(pins: Mapping[str, Pin], docs_root: str, state_folder: str, now: float
              ) -> tuple[dict[str, str], tuple[str, ...]]:
    """(path -> the level each `ctx pin` pin holds now, one-line notes for the output)."""
    secret = key(state_folder)
    levels: dict[str, str] = {}
    notes: list[str] = []
    for path, pin in sorted(pins.items()):
        expected = attestation(docs_root, path, secret) if secret is not None else None
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
