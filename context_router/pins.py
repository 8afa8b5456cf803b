"""Pins and session resets: the state changes a user asks for by hand."""

from __future__ import annotations

import time

from .errors import InputError
from .report import normalise_path
from .router import Workspace, refresh
from .state import Pin


def pin(ws: Workspace, path: str, level: str) -> Pin:
    path = normalise_path(path)
    with ws.store.transaction():
        refresh(ws)
        if not ws.store.known([path]):
            raise InputError(f"unknown doc: {path} (not in {ws.config.docs_root})")
        made = Pin(path, level, time.time(), None, None)
        ws.store.pin(made)
    return made


def unpin(ws: Workspace, path: str) -> str:
    path = normalise_path(path)
    with ws.store.transaction():
        if not ws.store.unpin(path):
            raise InputError(f"not pinned: {path}")
    return path


def reset(ws: Workspace, session: str) -> bool:
    with ws.store.transaction():
        return ws.store.reset(session)
