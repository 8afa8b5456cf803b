"""Keyword sources (config, front matter, auto) and the matcher.

A keyword fires when it occurs in the prompt case-insensitively with no word character right before or after
it (`port` does not fire on "important", `api` not on "fastapi"); whitespace inside a phrase matches any run
of whitespace. With thousands of docs, one big alternation regex costs tens of ms to compile every turn, so
each keyword is filed under its rarest word token (a SQLite index in the state), a turn looks up only the
prompt's tokens, and only keywords whose every token occurs in the prompt are checked in place.

Word characters are those of `re`'s `\\w` (letters, digits and "_" in any script), tested with str methods:
`re` itself costs several ms to import, which the hook path cannot spare.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping

# ASCII punctuation and spaces -> space, so an ASCII text splits into its word tokens with str.split().
_ASCII_SEPARATORS = str.maketrans({chr(c): " " for c in range(128) if not (chr(c).isalnum() or chr(c) == "_")})


def is_word_char(ch: str) -> bool:
    return ch.isalnum() or ch == "_"


def tokens_of(text: str) -> list[str]:
    """The maximal runs of word characters, in order."""
    if text.isascii():
        return text.translate(_ASCII_SEPARATORS).split()
    out: list[str] = []
    start = -1
    for i, ch in enumerate(text):
        if ch.isalnum() or ch == "_":
            if start < 0:
                start = i
        elif start >= 0:
            out.append(text[start:i])
            start = -1
    if start >= 0:
        out.append(text[start:])
    return out


def normalise(keyword: str) -> str:
    return " ".join(keyword.lower().split())


def doc_keywords(path: str, title: str, front_matter: Iterable[str], configured: Iterable[str],
                 auto: bool) -> tuple[str, ...]:
    """Every keyword of one doc, in a stable order: config, front matter, then auto (stem, title), then path."""
    words: list[str] = [*configured, *front_matter]
    if auto:
        stem = path.rsplit("/", 1)[-1]
        stem = stem[:-3] if stem.endswith(".md") else stem
        words += [stem, stem.replace("-", " ").replace("_", " "), title]
    words.append(path)
    out: list[str] = []
    for word in words:
        kw = normalise(word)
        if kw and kw not in out:
            out.append(kw)
    return tuple(out)


def index_key(keyword: str, counts: Mapping[str, int] | None = None) -> str:
    """The token a keyword is filed under: its rarest word among all keywords (`counts`), then its longest.

    A keyword can only fire when all its words are in the prompt, so any one of them finds it; the rarest one
    keeps the lookup small ("service" in 10,000 "<name> service" keywords must not be the key).
    """
    tokens = tokens_of(keyword)
    if not tokens:
        return ""
    counts = counts or {}
    return min(tokens, key=lambda t: (counts.get(t, 0), -len(t), t))


def token_counts(keywords: Iterable[str]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for kw in keywords:
        for token in set(tokens_of(kw)):
            counts[token] = counts.get(token, 0) + 1
    return counts


def prompt_tokens(prompt: str) -> set[str]:
    return set(tokens_of(prompt.lower()))


def occurs(keyword: str, text: str) -> bool:
    """Whether a normalised keyword occurs in a normalised text (lower case, single spaces) between word
    boundaries: no word character right before it if it starts with one, none right after if it ends with one."""
    check_start = is_word_char(keyword[0])
    check_end = is_word_char(keyword[-1])
    i = text.find(keyword)
    while i >= 0:
        end = i + len(keyword)
        if (not check_start or i == 0 or not is_word_char(text[i - 1])) and \
                (not check_end or end == len(text) or not is_word_char(text[end])):
            return True
        i = text.find(keyword, i + 1)
    return False


def match(candidates: Iterable[tuple[str, str]], prompt: str, tokens: set[str] | None = None
          ) -> dict[str, list[str]]:
    """path -> the keywords that fire on the prompt, from (keyword, path) candidates looked up by token."""
    tokens = prompt_tokens(prompt) if tokens is None else tokens
    text = normalise(prompt)
    fired: dict[str, bool] = {}
    hits: dict[str, list[str]] = {}
    for kw, path in sorted(candidates):
        if kw not in fired:
            fired[kw] = all(t in tokens for t in tokens_of(kw)) and occurs(kw, text)
        if fired[kw]:
            hits.setdefault(path, []).append(kw)
    return hits


def match_all(keywords_by_path: Mapping[str, Iterable[str]], prompt: str) -> dict[str, list[str]]:
    """Match against an in-memory keyword table (the store keeps the same table indexed by token)."""
    tokens = prompt_tokens(prompt)
    counts = token_counts(kw for kws in keywords_by_path.values() for kw in kws)
    cands = [(kw, path) for path, kws in keywords_by_path.items() for kw in kws
             if index_key(kw, counts) in tokens or index_key(kw, counts) == ""]
    return match(cands, prompt, tokens)
