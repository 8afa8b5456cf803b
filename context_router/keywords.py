"""Keyword sources (config, front matter, auto) and the matcher.

A keyword fires when it occurs in the prompt case-insensitively with no word character right before or after
it (`port` does not fire on "important", `api` not on "fastapi"); whitespace inside a phrase matches any run
of whitespace. With thousands of docs, one big alternation regex costs tens of ms to compile every turn, so
each keyword is filed under its longest word token (a SQLite index in the state), a turn looks up only the
prompt's tokens, and a regex runs only for keywords whose every token occurs in the prompt.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

_TOKEN = re.compile(r"\w+")

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


def tokens_of(keyword: str) -> list[str]:
    return _TOKEN.findall(keyword)


def index_key(keyword: str, counts: Mapping[str, int] | None = None) -> str:
    """The token a keyword is filed under: its rarest word among all keywords (`counts`), then its longest.

    A keyword can only fire when all its words are in the prompt, so any one of them finds it; the rarest one
    keeps the lookup small ("service" in 10,000 "<name> service" keywords must not be the key).
    """
    tokens = _TOKEN.findall(keyword)
    if not tokens:
        return ""
    counts = counts or {}
    return min(tokens, key=lambda t: (counts.get(t, 0), -len(t), t))


def token_counts(keywords: Iterable[str]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for kw in keywords:
        for token in set(_TOKEN.findall(kw)):
            counts[token] = counts.get(token, 0) + 1
    return counts


def prompt_tokens(prompt: str) -> set[str]:
    return set(_TOKEN.findall(prompt.lower()))


def _pattern(keyword: str) -> re.Pattern[str]:
    body = r"\s+".join(re.escape(part) for part in keyword.split())
    if re.match(r"\w", keyword):
        body = r"(?<!\w)" + body
    if re.search(r"\w$", keyword):
        body += r"(?!\w)"
    return re.compile(body, re.IGNORECASE)


def match(candidates: Iterable[tuple[str, str]], prompt: str, tokens: set[str] | None = None
          ) -> dict[str, list[str]]:
    """path -> the keywords that fire on the prompt, from (keyword, path) candidates looked up by token."""
    tokens = prompt_tokens(prompt) if tokens is None else tokens
    fired: dict[str, bool] = {}
    hits: dict[str, list[str]] = {}
    for kw, path in sorted(candidates):
        if kw not in fired:
            fired[kw] = all(t in tokens for t in _TOKEN.findall(kw)) and _pattern(kw).search(prompt) is not None
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
