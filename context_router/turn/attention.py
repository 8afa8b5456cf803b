"""The score update of one turn: decay, keyword hits, co-activation, pins. Pure.

Scores live in a plain dict: only files ever hit carry a score, so a turn touches tens of entries even over
10,000 docs, and numpy's ~100 ms import would cost more than it saves on the hook path.
"""

from __future__ import annotations

from ..records import FileScore, decayed, record, replace

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence

# Below this a score counts as zero and the file is dropped from the session: 0.70 ** 20.
ZERO = 0.0008


@record
class Signal:
    """A later layer's say on one doc's score, applied after co-activation and before pins."""

    path: str
    kind: str  # "floor": raise the score to at least `value`; "zero": drop it to 0 (unless hit this turn)
    value: float
    cause: str  # recorded as the cause, e.g. "semantic:0.42", "freeze:3", "thaw:3"


FLOOR = "floor"
ZERO_SIGNAL = "zero"


@record
class Update:
    scores: dict[str, FileScore]
    causes: dict[str, tuple[str, ...]]  # path -> what changed its score this turn, in order
    hit: frozenset[str]


def clamp(x: float) -> float:
    return 0.0 if x < 0.0 else 1.0 if x > 1.0 else x


def update(previous: Mapping[str, FileScore], turn: int, hits: Mapping[str, list[str]],
           known: Callable[[str], bool], decay_rate: Callable[[str], float],
           related: Callable[[str], tuple[str, ...]], coactivation: float,
           pins: Mapping[str, float], signals: Sequence[Signal] = (), coactivation_ceiling: float = 1.0) -> Update:
    """One turn over `previous` scores.

    hits: path -> keywords that fired; pins: path -> score floor; known: whether a path is in the index;
    coactivation_ceiling: co-activation never lifts a doc above this (1.0 in keyword mode, as claude-cognitive).
    """
    scores: dict[str, FileScore] = {}
    causes: dict[str, list[str]] = {}

    def note(path: str, cause: str) -> None:
        said = causes.setdefault(path, [])
        if cause not in said:  # two layers may give the same cause (the goal's and the prompt's cosine)
            said.append(cause)

    for path, fs in previous.items():
        if not known(path):
            continue
        # Positional, not replace(): a turn may decay thousands of scores that can rank.
        scores[path] = FileScore(fs.score * decay_rate(path), fs.last_hit_turn, fs.hits)
        causes[path] = ["decay"]

    for path, kws in hits.items():
        scores[path] = FileScore(1.0, turn, len(kws))
        for kw in kws:
            note(path, f"keyword:{kw}")

    if coactivation > 0:
        for source in sorted(hits):
            for target in related(source):
                if target == source or not known(target):
                    continue
                fs = scores.get(target, FileScore(0.0))
                if fs.score >= coactivation_ceiling:
                    continue
                scores[target] = replace(fs, score=min(coactivation_ceiling, clamp(fs.score + coactivation)))
                note(target, f"coactivation:{source}")

    for sig in signals:
        if not known(sig.path):
            continue
        fs = scores.get(sig.path, FileScore(0.0))
        if sig.kind == ZERO_SIGNAL and sig.path not in hits and fs.score > 0:
            scores[sig.path] = replace(fs, score=0.0)
            note(sig.path, sig.cause)
        elif sig.kind == FLOOR and fs.score < sig.value:
            # Evidence this turn lifted it: that is a hit, as `ctx status` shows it (its keyword hits stay).
            scores[sig.path] = replace(fs, score=clamp(sig.value), last_hit_turn=turn)
            note(sig.path, sig.cause)

    for path, floor in pins.items():
        if not known(path):
            continue
        fs = scores.get(path, FileScore(0.0))
        if fs.score < floor:
            scores[path] = replace(fs, score=floor)
            note(path, "pin")

    final = {}
    for path, fs in scores.items():
        if fs.score < ZERO:
            if previous.get(path) is not None:
                note(path, "zero")
            continue
        final[path] = replace(fs, score=clamp(fs.score))
    return Update(final, {p: tuple(c) for p, c in causes.items()}, frozenset(hits))


FOREVER = 1 << 62  # a score that never decays below a line


def last_turn_at(score: float, rate: float, turn: int, line: float) -> int:
    """The last turn at which a score set to `score` at `turn` is still at or above `line` (turn - 1: never)."""
    if score < line:
        return turn - 1
    if rate >= 1.0:
        return FOREVER
    k = 0
    while score * rate >= line:
        score *= rate
        k += 1
    return turn + k


def story(rows: Sequence[tuple[int, float, str]], rate: float, last: int) -> list[tuple[int, float, str]]:
    """A doc's history turn by turn up to turn `last`: the recorded rows (turn, score, causes), and between and
    after them the turns that only decayed it, told again by the rule (the history keeps no row for those):
    "decay" while the score stays above zero, then "decay\tzero" once and nothing more."""
    out: list[tuple[int, float, str]] = []
    for i, (turn, score, causes) in enumerate(rows):
        out.append((turn, score, causes))
        end = rows[i + 1][0] if i + 1 < len(rows) else last + 1
        if i + 1 < len(rows) and rows[i + 1][0] == turn:
            continue
        for t in range(turn + 1, end):
            score = decayed(score, rate, 1)
            if score < ZERO:
                if out[-1][1] > 0.0:
                    out.append((t, 0.0, "decay\tzero"))
                break
            out.append((t, score, "decay"))
    return out
