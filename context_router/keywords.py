"""Keyword sources (config, front matter, auto) and the matcher.

A keyword fires when it occurs in the prompt case-insensitively with no word character right before or after
it (`port` does not fire on "important", `api` not on "fastapi"); whitespace inside a phrase matches any run
of whitespace. With thousands of docs, one big alternation regex costs tens of ms to compile every turn, so
the matcher keys each keyword by its rarest-looking word token and only runs a regex for keywords whose every
token occurs in the prompt.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

_TOKEN = re.compile(r"\w+")

# Token -> [(keyword, (path, ...)), ...]; the "" token holds keywords with no word character at all.
KeywordMap = dict[str, list[tuple[str, tuple[str, ...]]]]


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


def build_map(keywords_by_path: Mapping[str, Iterable[str]]) -> KeywordMap:
    by_keyword: dict[str, list[str]] = {}
    for path in sorted(keywords_by_path):
        for kw in keywords_by_path[path]:
            by_keyword.setdefault(kw, []).append(path)
    kmap: KeywordMap = {}
    for kw in sorted(by_keyword):
        tokens = _TOKEN.findall(kw)
        key = max(tokens, key=lambda t: (len(t), t)) if tokens else ""
        kmap.setdefault(key, []).append((kw, tuple(by_keyword[kw])))
    return kmap


def _pattern(keyword: str) -> re.Pattern[str]:
    body = r"\s+".join(re.escape(part) for part in keyword.split())
    if re.match(r"\w", keyword):
        body = r"(?<!\w)" + body
    if re.search(r"\w$", keyword):
        body += r"(?!\w)"
    return re.compile(body, re.IGNORECASE)


def match(kmap: KeywordMap, prompt: str) -> dict[str, list[str]]:
    """path -> the keywords of that path that fire on the prompt (in keyword order)."""
    lowered = prompt.lower()
    tokens = set(_TOKEN.findall(lowered))
    hits: dict[str, list[str]] = {}
    candidates = [entry for token in tokens for entry in kmap.get(token, ())]
    candidates += kmap.get("", [])
    for kw, paths in sorted(candidates):
        if not all(t in tokens for t in _TOKEN.findall(kw)):
            continue
        if _pattern(kw).search(prompt) is None:
            continue
        for path in paths:
            hits.setdefault(path, []).append(kw)
    return hits
