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

from functools import lru_cache

from .words import STOPWORDS, doc_name, is_word_char, searched, stem, tokens_of, unspaced

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Collection, Iterable, Mapping

def normalise(keyword: str) -> str:
    return " ".join(keyword.lower().split())


def sourced_keywords(path: str, title: str, front_matter: Iterable[str], configured: Iterable[str],
                     auto: bool, derived: Iterable[str] = ()) -> tuple[tuple[str, bool], ...]:
    """Every keyword of one doc with whether it is derived, in a stable order: as doc_keywords, then the
    config's derived keywords (`ctx init`'s: nobody chose them, so a hit by one alone never makes a doc HOT).
    A keyword both chosen and derived counts as chosen."""
    chosen = doc_keywords(path, title, front_matter, configured, auto)
    picked = set(chosen)
    extra = tuple(dict.fromkeys(kw for kw in map(normalise, derived) if has_word(kw) and kw not in picked))
    return (*((kw, False) for kw in chosen), *((kw, True) for kw in extra))


def doc_keywords(path: str, title: str, front_matter: Iterable[str], configured: Iterable[str],
                 auto: bool) -> tuple[str, ...]:
    """Every keyword of one doc, in a stable order: config, front matter, then auto (stem, title), then path.

    A generic file name (README.md, SKILL.md, index.md) names its folder's doc: the folder's name is the
    keyword, as five SKILL.md files must not all answer to "skill"."""
    words: list[str] = [*configured, *front_matter]
    if auto:
        name = doc_name(path)
        # A name or title of stopwords alone (a command reference's `do.md`, `if.md`; a `how-to/` folder's page)
        # would fire on any sentence: tried as a new user would on a web server's docs, a guides folder's
        # `how-to/_index.md` was HOT for every "how to ..." prompt.
        words += [w for w in (name, name.replace("-", " ").replace("_", " "), title)
                  if not all(t in STOPWORDS for t in tokens_of(w.lower()))]
    words.append(path)
    # dict keys keep the first occurrence's order and de-duplicate in linear time (a doc may carry
    # thousands of front matter keywords)
    return tuple(dict.fromkeys(kw for kw in map(normalise, words) if has_word(kw)))


def has_word(keyword: str) -> bool:
    """Whether a keyword holds a word: one of marks alone would fire on every prompt that has them. Tried as a new
    user would on a command reference: its pages for the `,` and `?` commands, named and titled so, were HOT
    for any prompt with a comma or a question mark."""
    return any(map(is_word_char, keyword))


def keyword_tokens(keyword: str) -> list[str]:
    """The stems of a keyword's words: what it is filed and looked up under (Chinese and Japanese by their pairs
    of characters, as the prompt's: words.bigrams)."""
    return [stem(t) for token in tokens_of(keyword) for t in searched(token)]


def index_key(keyword: str, counts: Mapping[str, int] | None = None) -> str:
    """The stem a keyword is filed under: its rarest word among all keywords (`counts`), then its longest.

    A keyword can only fire when all its words are in the prompt, so any one of them finds it; the rarest one
    keeps the lookup small ("service" in 10,000 "<name> service" keywords must not be the key).
    """
    tokens = keyword_tokens(keyword)
    if not tokens:
        return ""
    counts = counts or {}
    return min(tokens, key=lambda t: (counts.get(t, 0), -len(t), t))


def token_counts(keywords: Iterable[str]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for kw in keywords:
        for token in set(keyword_tokens(kw)):
            counts[token] = counts.get(token, 0) + 1
    return counts


def prompt_tokens(prompt: str) -> set[str]:
    return {stem(t) for token in tokens_of(prompt.lower()) for t in searched(token)}


def stem_text(text: str, exact: frozenset[str] = frozenset()) -> str:
    """A normalised text (lower case, single spaces) with every word replaced by its stem and every other
    character kept, so "budgets, ports" reads "budget, port" and "pipe-to-orin" keeps its hyphens. exact: the
    words that match only as written, left out (a mark no stem matches)."""
    def one(word: str) -> str:
        return "\x01" if word in exact else stem(word)

    out: list[str] = []
    for chunk in text.split(" "):
        if chunk.isalnum():
            out.append(one(chunk))
            continue
        piece: list[str] = []
        start = -1
        for i, ch in enumerate(chunk):
            if is_word_char(ch):
                if start < 0:
                    start = i
            else:
                if start >= 0:
                    piece.append(one(chunk[start:i]))
                    start = -1
                piece.append(ch)
        if start >= 0:
            piece.append(one(chunk[start:]))
        out.append("".join(piece))
    return " ".join(out)


def occurs(keyword: str, text: str) -> bool:
    """Whether a normalised keyword occurs in a normalised text (lower case, single spaces) between word
    boundaries: no word character right before it if it starts with one, none right after if it ends with one
    (Chinese and Japanese, written without spaces, have no boundaries to check)."""
    check_start = is_word_char(keyword[0]) and not unspaced(keyword[0])
    check_end = is_word_char(keyword[-1]) and not unspaced(keyword[-1])
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
    """path -> the keywords that fire on the prompt, from (keyword, path) candidates looked up by stem.

    A keyword fires where it occurs between word boundaries as written, or with any of its words inflected
    ("budget" on "Budgets", "retry" on "retried"); the characters between its words still match exactly.
    """
    pairs = sorted(candidates)
    on = set(fired(dict.fromkeys(kw for kw, _ in pairs), prompt, tokens))
    hits: dict[str, list[str]] = {}
    for kw, path in pairs:
        if kw in on:
            hits.setdefault(path, []).append(kw)
    return hits


def fired(keywords: Iterable[str], prompt: str, tokens: set[str] | None = None) -> list[str]:
    """The keywords among these that fire on the prompt (as `match` fires them), in the order given."""
    tokens = prompt_tokens(prompt) if tokens is None else tokens
    text = normalise(prompt)
    stemmed: str | None = None
    # A name written as code (`useNavigation`, `max_payload`) is that name, not an inflection of another: tried as
    # a new user would on a router's docs, "useNavigation state" fired `usenavigate` (both stem to "usenavig").
    exact = frozenset(t.lower() for t in tokens_of(prompt) if _code_name(t))
    out: list[str] = []
    for kw in keywords:
        if not all(t in tokens for t in keyword_tokens(kw)):
            continue
        if not occurs(kw, text):
            stemmed = stem_text(text, exact) if stemmed is None else stemmed
            if not occurs(stem_text(kw), stemmed):
                continue
        out.append(kw)
    return out


def _code_name(token: str) -> bool:
    """Whether a word is written as code: an inner capital after a small letter (`useNavigation`), or `_` inside."""
    return "_" in token.strip("_") or any(a.islower() and b.isupper() for a, b in zip(token, token[1:], strict=False))


# -- weak keywords: they lift a doc, but do not make it HOT on their own -------------------------------------

WEAK_OWNERS = 3  # a keyword of this many docs or more tells them apart from nothing
# Words so common in software docs that, alone, they name no particular doc; and the verbs a prompt asks with:
# tried as a new user would on a site generator's docs, its function pages titled "Add" were HOT for "how do I
# add a custom 404 page?" (the verbs replayed on thirteen plain folders: no turn changed).
COMMON_WORDS = """
api app application auth backend bank base build cache check cli client code common config configuration
core data database db debug default deploy deployment dev doc docs error event file frontend guide handler
health helper index issue job log main manager message model module network note overview page process
project queue readme report request response run schema script security server service session setup skill
state status storage system table task test tool type ui update user util value view web workflow
add append apply call change close create delete find first get install last len list load make merge move
new next open print read remove replace return save send set show sort split start stop use write
""".split()


@lru_cache(maxsize=1)
def _common_stems() -> frozenset[str]:
    # Stopwords too: a doc named after one (a command reference's in.md, do.md) would fire on any sentence.
    return frozenset(stem(w) for w in (*COMMON_WORDS, *STOPWORDS))


def is_weak(keyword: str, owners: int) -> bool:
    """Whether a keyword says little: shared by many docs, or a single common word."""
    words = keyword_tokens(keyword)
    return owners >= WEAK_OWNERS or (len(words) == 1 and words[0] in _common_stems())


def split_weak(hits: Mapping[str, list[str]], derived: Collection[tuple[str, str]] = (),
               common: Collection[str] = ()) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    """(strong hits, weak hits): a doc is a weak hit when every keyword that fired on it is weak, derived
    ((keyword, path) pairs nobody chose) or common in the docs' text."""
    owners: dict[str, int] = {}
    for kws in hits.values():
        for kw in kws:
            owners[kw] = owners.get(kw, 0) + 1
    strong_hits: dict[str, list[str]] = {}
    weak_hits: dict[str, list[str]] = {}
    for path, kws in hits.items():
        weak = all(is_weak(kw, owners[kw]) or (kw, path) in derived or kw in common for kw in kws)
        (weak_hits if weak else strong_hits)[path] = kws
    return strong_hits, weak_hits


def is_broad(owners: int, cap: int) -> bool:
    """Whether a keyword is owned by more docs than a tier can show (`cap`): saying it tells the turn nothing
    about which of them to show, so it lifts only owners that other evidence already ranks (broad_lifts)."""
    return owners > cap


def broad_lifts(owners: Mapping[str, Iterable[str]], relevance: Mapping[str, float], cap: int
                ) -> dict[str, list[str]]:
    """path -> the broad keywords that lift it: of each broad keyword's owners (`owners`: keyword -> the owners
    asked about), only those the turn's text ranking scored (`relevance`), the best `cap` of them. A keyword
    that a thousand docs share then costs the few docs the ranking names, never a walk over the thousand."""
    out: dict[str, list[str]] = {}
    for kw, paths in sorted(owners.items()):
        scored = sorted((p for p in set(paths) if relevance.get(p, 0.0) > 0.0), key=lambda p: (-relevance[p], p))
        for path in scored[:max(cap, 0)]:
            out.setdefault(path, []).append(kw)
    return out


def match_all(keywords_by_path: Mapping[str, Iterable[str]], prompt: str) -> dict[str, list[str]]:
    """Match against an in-memory keyword table (the store keeps the same table indexed by token)."""
    tokens = prompt_tokens(prompt)
    counts = token_counts(kw for kws in keywords_by_path.values() for kw in kws)
    cands = [(kw, path) for path, kws in keywords_by_path.items() for kw in kws
             if index_key(kw, counts) in tokens or index_key(kw, counts) == ""]
    return match(cands, prompt, tokens)
