"""What the model used of what ctx sent it, from the host's transcript (`ctx stats`, the `use` part).

A doc (a section) ctx sent in a session is **used** when the model's answers in that session quote a line of
what was sent of it (eight words of it in a row, or the whole of a shorter line of five words or more), or
name the doc by its path or file name. It is **unused** when it was sent and never used. A doc the agent
**opened** itself (a Read of a file in the docs folder) that ctx never sent in that session is a miss: the
agent needed it and the router did not see it coming. Only sessions whose transcript can be read count.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from ..records import doc_stem
from ..store import events, index
from ..turn import memory, sections
from ..turn.words import GENERIC_NAMES
from .transcript import Transcript, claude_default, read_claude

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Mapping
    from typing import Any

    from ..workspace import Workspace

SHINGLE = 8  # words in a row that make a quote
SHORT_LINE = 5  # a line of this many words (fewer than SHINGLE) is quoted only whole
SHORT_CHARS = 30


@dataclass(frozen=True)
class DocUse:
    path: str
    sent: int  # sessions that were sent it
    used: int  # ... whose answers used it


@dataclass(frozen=True)
class Use:
    sessions: int  # sessions whose transcript was read
    used: tuple[tuple[str, tuple[str, ...]], ...]  # (doc, the sections quoted) used in some session
    unused: tuple[str, ...]  # sent, and used in no session
    opened_unsent: tuple[str, ...]  # opened by the agent in a session that was never sent it
    docs: tuple[DocUse, ...]  # sent most, used least first

    def to_dict(self) -> dict[str, object]:
        return {"sessions": self.sessions,
                "used": [{"path": p, "sections": list(s)} for p, s in self.used],
                "unused": list(self.unused), "opened_unsent": list(self.opened_unsent),
                "docs": [{"path": d.path, "sent": d.sent, "used": d.used} for d in self.docs]}


def words(text: str) -> list[str]:
    out: list[str] = []
    word: list[str] = []
    for ch in text.lower():
        if ch.isalnum():
            word.append(ch)
        elif word:
            out.append("".join(word))
            word = []
    if word:
        out.append("".join(word))
    return out


class Answers:
    """The model's answers of one session, ready to be asked whether they quote a line or name a doc."""

    def __init__(self, texts: Iterable[str]):
        self.text = "\n".join(texts)
        self.lower = self.text.lower()
        said = words(self.text)
        self.joined = " " + " ".join(said) + " "
        self.shingles = {tuple(said[i:i + SHINGLE]) for i in range(max(0, len(said) - SHINGLE + 1))}

    def quotes(self, line: str) -> bool:
        w = words(line)
        if len(w) >= SHINGLE:
            return any(tuple(w[i:i + SHINGLE]) in self.shingles for i in range(len(w) - SHINGLE + 1))
        return len(w) >= SHORT_LINE and len(line.strip()) >= SHORT_CHARS and f" {' '.join(w)} " in self.joined

    def names(self, path: str) -> bool:
        name = path.rsplit("/", 1)[-1]
        if path.lower() in self.lower:
            return True
        stem = doc_stem(name)
        return stem.lower() not in GENERIC_NAMES and name.lower() in self.lower


def sent_parts(ws: Workspace, session: str, shown: Mapping[str, set[str]]) -> dict[str, list[tuple[str, str]]]:
    """doc -> (section title, text) of what the session was sent of it: the sections whose units the
    conversation memory holds, else the whole doc for a HOT showing and the header for a WARM one."""
    cfg = ws.config
    with ws.store.read_transaction():
        units = ws.store.sent_units(session, list(shown))
    out: dict[str, list[tuple[str, str]]] = {}
    for path, tiers in shown.items():
        text = index.read_doc(cfg.docs_root, path, limit=cfg.max_doc_bytes)
        if text is None:
            continue
        body = index.body_of(text, path)
        split = sections.split(body)
        held = units.get(path, {})
        whole = memory.unit(memory.WHOLE, body) in held or (not held and "HOT" in tiers)
        parts = [(s.title, s.text) for s in split if whole or memory.unit(memory.PART, s.text) in held]
        if not parts:
            header, _ = index.header_of(body, cfg.warm.lines)
            parts = [(split[0].title if split else "", header)]
        out[path] = parts
    return out


def _session_use(parts: Mapping[str, list[tuple[str, str]]], answers: Answers) -> dict[str, tuple[str, ...]]:
    """doc -> the sections the answers quote (empty: the doc is named, no line of it quoted)."""
    used: dict[str, tuple[str, ...]] = {}
    for path, secs in parts.items():
        quoted = tuple(dict.fromkeys(title for title, text in secs
                                     if any(answers.quotes(line) for line in text.splitlines())))
        if quoted or answers.names(path):
            used[path] = tuple(t for t in quoted if t)
    return used


def compute(ws: Workspace, turns: Iterable[tuple[str, int, float, int, dict[str, Any]]],
            read: Callable[[str, str], Transcript] | None = None) -> Use:
    """The use over the sessions of these turns (store.turns rows). read: (session, transcript path) ->
    its transcript (the default reads Claude Code's JSONL)."""
    cfg = ws.config
    shown: dict[str, dict[str, set[str]]] = {}
    for session, _, _, _, docs in turns:
        for path, v in docs.items():
            if v and v[0] in ("HOT", "WARM"):
                shown.setdefault(session, {}).setdefault(path, set()).add(v[0])
        shown.setdefault(session, {})
    named = events.transcripts(ws.store.path) if ws.store.path != ":memory:" else {}
    project = os.path.dirname(cfg.path) if cfg.path is not None else os.path.dirname(cfg.docs_root)
    docs_root = cfg.docs_root.rstrip(os.sep) + os.sep
    reader = read or (lambda _session, path: read_claude(path, cwd=project))
    sent_in: dict[str, int] = {}
    used_in: dict[str, int] = {}
    used_sections: dict[str, dict[str, None]] = {}
    missed: dict[str, None] = {}
    read_sessions = 0
    for session, docs in sorted(shown.items()):
        transcript = reader(session, named.get(session) or claude_default(session, project))
        if not transcript.answers and not transcript.opened:
            continue  # no transcript to tell from
        read_sessions += 1
        used = _session_use(sent_parts(ws, session, docs), Answers(transcript.answers))
        for path in docs:
            sent_in[path] = sent_in.get(path, 0) + 1
        for path, secs in used.items():
            used_in[path] = used_in.get(path, 0) + 1
            used_sections.setdefault(path, {}).update(dict.fromkeys(secs))
        opened = [os.path.relpath(p, cfg.docs_root).replace(os.sep, "/") for p in transcript.opened
                  if p.startswith(docs_root)]
        with ws.store.read_transaction():
            known = ws.store.known(opened)
        missed.update(dict.fromkeys(p for p in opened if p in known and p not in docs))
    order = sorted(sent_in, key=lambda p: (-sent_in[p], used_in.get(p, 0), p))
    return Use(read_sessions, tuple((p, tuple(used_sections[p])) for p in sorted(used_sections)),
               tuple(p for p in order if not used_in.get(p)), tuple(missed),
               tuple(DocUse(p, sent_in[p], used_in.get(p, 0)) for p in order))
