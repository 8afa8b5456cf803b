"""gitignore matching without regular expressions, in time polynomial in the pattern and the path.

A regex engine that backtracks (Python's, and so pathspec's) takes time exponential in the wildcards of one
segment: a `.gitignore` line of twenty `*` held a turn for minutes on one long file name. Here a segment's
glob is matched by the greedy two-pointer method (a `*` only ever resumes from the last one seen), and the
`**` of a pattern are tried over the path's slashes with memoised results, so no pattern can stall a scan.

The semantics are pathspec's GitIgnoreSpec (the last pattern that matches decides; a pattern that matches
the path itself outranks one that matches only a folder above it), with git's rule that no wildcard or
bracket expression matches a `/`.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

STAR = 0  # a `*` token; every other token matches exactly one character
_LEAD, _MID, _END, _SEG = range(4)  # leading `**/`, `/**/` inside, trailing `/**`, a segment's glob
NO, UNDER, FULL = 0, 1, 2  # no match; a folder above the path matches; the path itself matches


class _Bracket:
    """A bracket expression (`[a-z]`, `[!0-9]`): one character, never a `/`."""

    __slots__ = ("chars", "ranges", "negate")

    def __init__(self, body: str, negate: bool):
        self.negate = negate
        chars, ranges = set(), []
        i = 0
        while i < len(body):
            if i + 2 < len(body) and body[i + 1] == "-":
                if body[i] > body[i + 2]:
                    raise ValueError("reversed range")  # git drops such a pattern
                ranges.append((body[i], body[i + 2]))
                i += 3
            else:
                chars.add(body[i])
                i += 1
        self.chars = frozenset(chars)
        self.ranges = tuple(ranges)

    def __call__(self, ch: str) -> bool:
        if ch == "/":
            return False
        inside = ch in self.chars or any(lo <= ch <= hi for lo, hi in self.ranges)
        return inside != self.negate


def _tokens(glob: str) -> list[object]:
    """A segment's glob as tokens: STAR, a literal character, a _Bracket or "?" (any one but `/`)."""
    out: list[object] = []
    i, n = 0, len(glob)
    while i < n:
        ch = glob[i]
        i += 1
        if ch == "\\":
            if i == n:
                raise ValueError("escape at the end")
            out.append(glob[i])
            i += 1
        elif ch == "*":
            out.append(STAR)
        elif ch == "?":
            out.append(_Bracket("/", True))
        elif ch == "[":
            j = i + 1 if i < n and glob[i] in "!^" else i
            j += 1 if j < n and glob[j] == "]" else 0
            j = glob.find("]", j)
            if j < 0:
                raise ValueError("unclosed bracket")  # pathspec drops such a pattern
            negate = glob[i] in "!^"
            out.append(_Bracket(glob[i + negate:j], negate))
            i = j + 1
        else:
            out.append(ch)
    return out


def _one(token: object, ch: str) -> bool:
    return token == ch if isinstance(token, str) else token(ch)  # type: ignore[operator]


def glob_match(tokens: list[object], name: str) -> bool:
    """Whether the tokens match the whole of `name` (one path segment). Greedy, resuming only from the last
    `*`: O(len(tokens) * len(name)) at worst, whatever the number of stars."""
    t = s = 0
    star, mark = -1, 0
    while s < len(name):
        if t < len(tokens) and tokens[t] is not STAR and _one(tokens[t], name[s]):
            t += 1
            s += 1
        elif t < len(tokens) and tokens[t] is STAR:
            star, mark = t, s
            t += 1
        elif star >= 0:
            t, mark = star + 1, mark + 1
            s = mark
        else:
            return False
    while t < len(tokens) and tokens[t] is STAR:
        t += 1
    return t == len(tokens)


class Pattern:
    """One gitignore line, compiled."""

    __slots__ = ("include", "parts", "any_of", "needle")

    def __init__(self, include: bool, parts: list[tuple[int, object, bool]], any_of: tuple[str, int] | None):
        self.include = include  # False for a `!` line: a match takes the path back
        self.parts = parts  # (kind, tokens or dir flag, whether a `/` comes first)
        self.any_of = any_of  # a pattern that is one test: (what the path must hold, the match it gives)
        # The longest run of plain characters in the pattern: a path that does not hold it matches nowhere, and
        # most paths are told so by one substring search (a repo's ignore file of 50 lines cost `ctx init` half
        # its time on 7,400 docs, matching every line through the memoised walk).
        self.needle = max((run for kind, arg, _ in parts if kind == _SEG and isinstance(arg, list)
                           for run in _literal_runs(arg)), key=len, default="")

    def match(self, path: str) -> int:
        if self.any_of is not None:
            needle, kind = self.any_of
            return kind if (needle in path if needle else path) else NO
        if self.needle not in path:
            return NO
        slashes = [i for i, ch in enumerate(path) if ch == "/"]
        memo: dict[tuple[int, int], int] = {}

        def at(k: int, pos: int) -> int:
            # Memoised: each `**` tries every slash, but each (part, place) is worked out once.
            key = (k, pos)
            found = memo.get(key)
            if found is None:
                found = memo[key] = self._from(k, pos, path, slashes, at)
            return found

        return at(0, 0)

    def _from(self, k: int, pos: int, path: str, slashes: list[int], at: Callable[[int, int], int]) -> int:
        """How parts[k:] match the path from `pos`; a run of segments is followed in a loop, so the recursion
        goes only as deep as the pattern's `**`."""
        while True:
            kind, arg, slash = self.parts[k]
            if kind == _LEAD:  # `(.+/)?`: here, or after any slash past the first character
                return max([at(k + 1, pos), *(at(k + 1, q + 1) for q in slashes if q >= pos + 1)])
            if kind == _MID:  # `(/.+)?` before the next segment's slash: that slash may be any later one
                if pos < len(path) and path[pos] == "/":
                    return max([at(k + 1, pos), *(at(k + 1, q) for q in slashes if q >= pos + 2)])
                return at(k + 1, pos)
            if kind == _END:  # a trailing `/**`: anything inside
                return (UNDER if arg else FULL) if pos < len(path) and path[pos] == "/" else NO
            if slash:
                if pos >= len(path) or path[pos] != "/":
                    return NO
                pos += 1
            end = path.find("/", pos)
            end = len(path) if end < 0 else end
            if arg is None:  # a lone `*`: a name of one character or more
                if end == pos:
                    return NO
            elif not glob_match(arg, path[pos:end]):  # type: ignore[arg-type]
                return NO
            if k + 1 == len(self.parts):
                return FULL if end == len(path) else UNDER
            k, pos = k + 1, end


def _literal_runs(tokens: list[object]) -> list[str]:
    """The runs of literal characters in a segment's tokens (`*.de.md` -> `.de.md`)."""
    runs, run = [], ""
    for token in tokens:
        if isinstance(token, str):
            run += token
        else:
            runs.append(run)
            run = ""
    return [*runs, run]


def compile_line(line: str) -> Pattern | None:
    """A gitignore line as a Pattern; None for a blank line, a comment, or a line git would not use."""
    if not line.endswith("\\ "):
        line = line.rstrip()
    if not line or line.startswith("#") or line == "/":
        return None
    include = not line.startswith("!")
    segs = (line if include else line[1:]).split("/")
    is_dir = not segs[-1]
    # pathspec's normal form: a leading `/` anchors; a single name matches at any depth; a trailing `/` or
    # `/**` means what is inside; consecutive `**` are one.
    if not segs[0]:
        del segs[0]
    elif len(segs) == 1 or (len(segs) == 2 and not segs[1]):
        if segs[0] != "**":
            segs.insert(0, "**")
    if not segs:
        return None
    if not segs[-1]:
        segs[-1] = "**"
    segs = [s for i, s in enumerate(segs) if not (i and s == "**" and segs[i - 1] == "**")]
    if segs == ["**"]:
        return Pattern(include, [], ("/", UNDER) if is_dir else ("", FULL))
    if segs == ["**", "*"]:
        return Pattern(include, [], ("", FULL))
    if segs == ["**", "*", "**"]:
        return Pattern(include, [], ("/", UNDER if is_dir else FULL))
    parts: list[tuple[int, object, bool]] = []
    last = len(segs) - 1
    need_slash = False
    try:
        for i, seg in enumerate(segs):
            if seg == "**":
                if i == 0:
                    parts.append((_LEAD, None, False))
                elif i < last:
                    parts.append((_MID, None, False))
                    need_slash = True
                else:
                    parts.append((_END, is_dir, False))
                continue
            parts.append((_SEG, None if seg == "*" else _tokens(seg), need_slash))
            need_slash = True
    except ValueError:
        return None
    return Pattern(include, parts, None)


class Spec:
    """The patterns of the ignore files, in order."""

    def __init__(self, lines: Iterable[str]):
        self.patterns = [p for p in map(compile_line, lines) if p is not None]

    def match_file(self, path: str) -> bool:
        """Whether the path ("dir/" for a folder) is ignored: the last pattern that matches it itself decides,
        else the last that matches a folder above it."""
        best, include = NO, False
        for pattern in reversed(self.patterns):
            kind = pattern.match(path)
            if kind > best:
                best, include = kind, pattern.include
                if kind == FULL:
                    break
        return include
