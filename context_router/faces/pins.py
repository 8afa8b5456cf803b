"""Pins and session resets: the state changes a user asks for by hand."""

from __future__ import annotations

import time

from ..errors import InputError
from ..store.index import user_doc_path
from ..store.state import Pin
from ..workspace import Workspace, refresh


def parse_ttl(text: str) -> float:
    """"8h", "30m", "2d", "90s" or a bare number of hours -> seconds."""
    units = {"s": 1, "m": 60, "h": 3600, "d": 86400}
    raw = text.strip().lower()
    unit = units.get(raw[-1:], None)
    number = raw[:-1] if unit is not None else raw
    try:
        value = float(number) * (unit or 3600)
    except ValueError:
        raise InputError(f"--ttl must look like 8h, 30m, 2d or 90s, got {text!r}") from None
    if not value > 0:
        raise InputError(f"--ttl must be above zero, got {text!r}")
    return value


def pin(ws: Workspace, path: str, level: str, ttl: str | None = None) -> Pin:
    """Pin with an attestation; a HOT pin lasts `pin_ttl_hours` (24 h) unless --ttl says otherwise."""
    from ..store.attest import attestation, key

    path = user_doc_path(ws.config.docs_root, path)
    seconds = parse_ttl(ttl) if ttl is not None else (ws.config.pin_ttl_hours * 3600 if level == "hot" else None)
    with ws.store.transaction():
        refresh(ws)
        if not ws.store.known([path]):
            raise InputError(f"unknown doc: {path} (not in {ws.config.docs_root})")
        secret = key(ws.store.folder, create=True)
        assert secret is not None
        now = time.time()
        expires = now + seconds if seconds is not None else None
        made = Pin(path, level, now, expires, attestation(ws.config.docs_root, path, secret, level, expires))
        ws.store.pin(made)
    return made


def unpin(ws: Workspace, path: str) -> str:
    path = user_doc_path(ws.config.docs_root, path)
    with ws.store.transaction():
        if ws.store.unpin(path):
            return path
        snap = refresh(ws)
    # Not a `ctx pin` pin: say where the pin the user sees lives, since only its owner can remove it.
    if path in ws.config.pinned:
        raise InputError(f"{path} is pinned in {ws.config.path or 'the config'} ('pinned'): remove it there")
    level = snap.settings[path][1]
    if level:
        raise InputError(f"{path} is pinned by its front matter ('pinned: {level}'): remove it there")
    raise InputError(f"not pinned: {path}")


def reset(ws: Workspace, session: str) -> tuple[str, bool]:
    """(the session's name, whether it had state)."""
    from ..store import events

    with ws.store.transaction():
        name = ws.store.resolve_session(session)
        existed = ws.store.reset(name)
    events.forget(ws.store.path, name)  # the files its agent touched since its last turn, too
    return name, existed
