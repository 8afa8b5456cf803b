"""`ctx stats` and `ctx chart`: what ctx showed against loading every doc, and attention over time.

Read-only views of what the turns recorded (the `turns` and `history` tables). Token counts are cl100k,
counted here (never on the hook path) and cached per doc content; a turn's tokens are estimated from the chars
it showed of each doc at that doc's own chars-per-token rate.
"""

from __future__ import annotations

import statistics
from collections import Counter
from dataclasses import dataclass

from ..errors import InputError
from ..router import decay_stories
from ..store import index
from ..store.state import CAUSE_SEPARATOR
from ..workspace import Workspace, refresh
from .use import Use
from .use import compute as compute_use

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

NO_USE = Use(0, (), (), (), ())
CHARS_PER_TOKEN = 4.0  # for text that is no doc's (the box, banners): the usual rate of English prose


@dataclass(frozen=True)
class Spread:
    average: float
    median: float
    max: float

    @staticmethod
    def of(values: list[float]) -> Spread:
        return Spread(statistics.fmean(values), statistics.median(values), max(values)) if values else \
            Spread(0.0, 0.0, 0.0)

    def to_dict(self) -> dict[str, float]:
        return {"average": round(self.average, 1), "median": round(self.median, 1), "max": round(self.max, 1)}


@dataclass(frozen=True)
class DocStats:
    path: str
    full: int = 0  # turns that showed it whole (or cut to fit)
    header: int = 0  # turns that showed its header
    left_out: int = 0  # turns where it qualified but was not shown


@dataclass(frozen=True)
class Stats:
    sessions: tuple[str, ...]
    turns: int
    chars: Spread
    tokens: Spread | None  # None when the cl100k encoding cannot load
    all_chars: int  # loading every doc, every turn
    all_tokens: int | None
    docs: tuple[DocStats, ...]  # docs shown or left out at least once, most shown first
    keywords: tuple[tuple[str, int], ...]  # the keywords that fired most
    never_shown: tuple[str, ...]
    n_docs: int = 0
    per_conversation: Spread = Spread(0.0, 0.0, 0.0)  # chars a conversation (session)
    tokens_per_conversation: Spread | None = None
    saved: int = 0  # chars the conversations held already and were named instead of sent again
    use: Use | None = None  # what the model used of it, from the transcripts (use.py)

    @property
    def memory_saving(self) -> float:
        """Share of chars the conversation memory kept from being sent again."""
        sent = self.chars.average * self.turns
        return self.saved / (sent + self.saved) if sent + self.saved else 0.0

    @property
    def saving(self) -> float:
        """Share of chars saved against loading every doc on every turn."""
        return 1.0 - self.chars.average / self.all_chars if self.all_chars else 0.0

    @property
    def token_saving(self) -> float | None:
        if self.tokens is None or not self.all_tokens:
            return None
        return 1.0 - self.tokens.average / self.all_tokens

    def to_dict(self) -> dict[str, object]:
        return {"sessions": list(self.sessions), "turns": self.turns, "docs": self.n_docs,
                "chars_per_turn": self.chars.to_dict(),
                "tokens_per_turn": self.tokens.to_dict() if self.tokens else None,
                "all_docs": {"chars": self.all_chars, "tokens": self.all_tokens},
                "saving": round(self.saving, 4),
                "token_saving": round(self.token_saving, 4) if self.token_saving is not None else None,
                "shown": [{"path": d.path, "full": d.full, "header": d.header, "left_out": d.left_out}
                          for d in self.docs],
                "chars_per_conversation": self.per_conversation.to_dict(),
                "tokens_per_conversation": self.tokens_per_conversation.to_dict()
                if self.tokens_per_conversation else None,
                "memory": {"saved_chars": self.saved, "saving": round(self.memory_saving, 4)},
                "top_keywords": [{"keyword": k, "hits": n} for k, n in self.keywords],
                "never_shown": list(self.never_shown),
                "use": (self.use or NO_USE).to_dict()}


def doc_tokens(ws: Workspace, count: Callable[[str], int] | None) -> dict[str, tuple[int, int]]:
    """path -> (chars, tokens) of every doc's body; tokens counted once per content (mtime and size) and
    cached in the state. tokens is -1 when there is no counter."""
    store, root = ws.store, ws.config.docs_root
    with store.transaction():
        refresh(ws)
        docs = store.docs()
        cached = store.doc_tokens()
        fresh = []
        out: dict[str, tuple[int, int]] = {}
        for path, doc in docs.items():
            old = cached.get(path)
            if old is not None and old[:2] == (doc.mtime_ns, doc.size) and (old[3] >= 0 or count is None):
                out[path] = (old[2], old[3])
                continue
            text = index.read_doc(root, path)
            body = index.body_of(text, path) if text is not None else ""
            tokens = count(body) if count is not None else -1
            out[path] = (len(body), tokens)
            fresh.append((path, doc.mtime_ns, doc.size, len(body), tokens))
        store.save_doc_tokens(fresh)
    return out


def compute(ws: Workspace, sessions: list[str] | None, count: Callable[[str], int] | None) -> Stats:
    """Figures over the given sessions (None: all of them)."""
    sizes = doc_tokens(ws, count)
    with ws.store.transaction():
        turns = ws.store.turns(sessions)
        names = tuple(sorted({t[0] for t in turns})) or tuple(sessions or ())
        hits: Counter[str] = Counter()
        for name in names:
            for _, _, _, causes in ws.store.all_history(name):
                hits.update(c.split(":", 1)[1] for c in causes.split(CAUSE_SEPARATOR)
                            if c.startswith(("keyword:", "weak-keyword:")))
    if sessions and not turns:
        raise InputError(f"no turns recorded in session {sessions[0]!r}")
    counted = count is not None and all(t >= 0 for _, t in sizes.values())
    chars, tokens = [], []
    per_doc: dict[str, list[int]] = {}
    conversation_chars: dict[str, float] = {}
    conversation_tokens: dict[str, float] = {}
    saved = 0
    for session, _, _, used, shown in turns:
        chars.append(float(used))
        conversation_chars[session] = conversation_chars.get(session, 0.0) + used
        # Each doc's (tier or why left out, chars[, chars named instead of sent again]).
        doc_chars = sum(v[1] for v in shown.values() if v[0] in ("HOT", "WARM"))
        saved += sum(v[2] for v in shown.values() if len(v) > 2)
        if counted:
            estimate = (used - doc_chars) / CHARS_PER_TOKEN
            for path, v in shown.items():
                if v[0] in ("HOT", "WARM"):
                    body_chars, body_tokens = sizes.get(path, (0, 0))
                    estimate += v[1] * (body_tokens / body_chars if body_chars else 1 / CHARS_PER_TOKEN)
            tokens.append(estimate)
            conversation_tokens[session] = conversation_tokens.get(session, 0.0) + estimate
        for path, v in shown.items():
            slot = per_doc.setdefault(path, [0, 0, 0])
            slot[0 if v[0] == "HOT" else 1 if v[0] == "WARM" else 2] += 1
    docs = tuple(DocStats(p, *v) for p, v in sorted(per_doc.items(), key=lambda kv: (-kv[1][0], -kv[1][1], kv[0])))
    shown_ever = {p for p, v in per_doc.items() if v[0] or v[1]}
    return Stats(names, len(turns), Spread.of(chars), Spread.of(tokens) if counted else None,
                 sum(c for c, _ in sizes.values()),
                 sum(t for _, t in sizes.values()) if counted else None, docs, tuple(hits.most_common(10)),
                 tuple(sorted(set(sizes) - shown_ever)), len(sizes), Spread.of(list(conversation_chars.values())),
                 Spread.of(list(conversation_tokens.values())) if counted else None, saved, compute_use(ws, turns))


# -- attention over time ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Series:
    path: str
    scores: tuple[float, ...]  # one per turn, turns[0] first


@dataclass(frozen=True)
class Chart:
    session: str
    turns: tuple[int, ...]
    series: tuple[Series, ...]
    hot: float
    warm: float


def chart(ws: Workspace, session: str, n_docs: int, last: int | None, implied: bool = False) -> Chart:
    """Each doc's score turn by turn (0 where the history has no row: the doc was COLD and dropped), for the
    n_docs docs whose scores summed highest, over the last `last` turns. implied: `session` is only the
    default (see Store.resolve_session)."""
    with ws.store.transaction():
        session = ws.store.resolve_session(session, implied)
        rows = ws.store.all_history(session)
        sess = ws.store.session(session)
        total = sess.turn
        # The history keeps the turns that changed a score beyond decay; the rule tells the others again.
        stories = decay_stories(ws, rows, sess.scores, total)
    if not rows:
        raise InputError(f"no turns recorded in session {session!r}")
    first = max(1, total - last + 1) if last else 1
    turns = tuple(range(first, total + 1))
    scores: dict[str, dict[int, float]] = {}
    for path, story in stories.items():
        for turn, score, _ in story:
            if turn >= first:
                scores.setdefault(path, {})[turn] = score
    weight = {p: sum(v.values()) for p, v in scores.items()}
    chosen = sorted(scores, key=lambda p: (-weight[p], p))[:n_docs]
    cfg = ws.config
    return Chart(session, turns, tuple(Series(p, tuple(scores[p].get(t, 0.0) for t in turns)) for p in chosen),
                 cfg.hot.threshold, cfg.warm.threshold)
