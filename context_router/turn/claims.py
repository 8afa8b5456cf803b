"""Evidence from the agent's own work: the files it read or edited since the last prompt lift the docs about
them. Pure: the router hands in the files, which docs claim them (front matter `paths:`/`globs:`, config
`paths`) and which docs' text names them (the text index's answer to `name_queries`).

A doc about the file being edited is what "why does this test fail now?" is about, though the prompt names
nothing: the best of them are HOT. When the prompt points elsewhere (a keyword names another doc) the prompt
decides what is HOT, and the agent's files lift their docs to WARM only. The lift is evidence like any
other: set once, then it decays with the doc's rate.
"""

from __future__ import annotations

from .attention import FLOOR, Signal
from .words import GENERIC_NAMES, is_word_char

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

MAX_FILES = 8  # the most recent distinct files that count (edits first): older work is the past turn's story
PER_FILE = 2  # docs lifted for one file
HOT_DOCS = 2  # docs the agent's work may make HOT in one turn
MAX_DOCS = 5  # docs it lifts at all
CODE_ROOTS = frozenset({"src", "lib", "app", "pkg", "source", "packages", "internal", "cmd"})
EXTENSION_CHARS = 6


def words_of(text: str) -> list[str]:
    out: list[str] = []
    word = ""
    for ch in text.lower():
        if is_word_char(ch) and ch != "_":
            word += ch
        elif word:
            out.append(word)
            word = ""
    return [*out, word] if word else out


def _phrase(words: Sequence[str]) -> str:
    return '"' + " ".join(words) + '"'


def name_queries(path: str) -> tuple[list[str], list[str]]:
    """FTS5 phrase queries for the ways a doc names a project file: (the file itself, most specific first:
    its path `src/search/parser.py`, its module `search.parser` or `search/parser`, its file name `parser.py`;
    its folder `src/search/`). A generic file name (`index.ts`, `main.py`) is named only by its path."""
    parts = [p for p in path.split("/") if p]
    if not parts:
        return [], []
    name = parts[-1]
    stem, dot, ext = name.rpartition(".")
    if not dot or not stem or len(ext) > EXTENSION_CHARS:
        stem, ext = name, ""
    own = [words_of(path)]
    folders = parts[:-1]
    inner = folders[1:] if folders and folders[0] in CODE_ROOTS else folders
    generic = stem.lower() in GENERIC_NAMES or stem.lower() in ("init", "__init__", "mod", "lib")
    if inner and not generic:
        own.append(words_of("/".join([*inner, stem])))
    if ext and not generic and words_of(stem):
        own.append(words_of(name))
    folder = words_of("/".join(folders))
    queries = list(dict.fromkeys(_phrase(w) for w in own if w))
    return queries, [_phrase(folder)] if len(folder) >= 2 and _phrase(folder) not in queries else []


def recent_files(touched: Sequence[tuple[str, str]]) -> list[tuple[str, str]]:
    """(path, read|edit) of the distinct files, edited ones first, the most recent first within each."""
    latest: dict[str, tuple[int, bool]] = {}
    for i, (path, kind) in enumerate(touched):
        latest[path] = (i, latest.get(path, (0, False))[1] or kind == "edit")
    ranked = sorted(latest.items(), key=lambda kv: (not kv[1][1], -kv[1][0], kv[0]))
    return [(p, "edit" if edited else "read") for p, (_, edited) in ranked][:MAX_FILES]


def signals(files: Sequence[tuple[str, str]], claimed: Mapping[str, Sequence[str]],
            named: Mapping[str, Sequence[str]], near: Mapping[str, Sequence[str]], hot: float, warm: float,
            prompt_docs: frozenset[str] = frozenset()) -> tuple[Signal, ...]:
    """The lifts of one turn. files: recent_files' answer; claimed / named / near: file -> the docs that claim
    it / name it / name its folder, best first; prompt_docs: the docs the prompt's own keywords name. The docs
    that claim the file may be HOT; where none does, the docs that name it; one that names a file another doc
    claims is WARM, and one that only names its folder is WARM where no doc claims the file."""
    lifted: dict[str, tuple[str, bool]] = {}
    for path, kind in files:
        cause = f"{'edited' if kind == 'edit' else 'read'}:{path}"
        strong = list(claimed.get(path, ())) or list(named.get(path, ()))
        weak = [*named.get(path, ()), *(() if claimed.get(path) else near.get(path, ()))]
        docs = [(d, True) for d in strong] + [(d, False) for d in dict.fromkeys(weak) if d not in strong]
        for doc, about in [(d, a) for d, a in docs if d not in lifted][:PER_FILE]:
            lifted[doc] = (cause, about)
        if len(lifted) >= MAX_DOCS:
            break
    kept = list(lifted.items())[:MAX_DOCS]
    elsewhere = bool(prompt_docs - {doc for doc, _ in kept})  # a doc the prompt names that no lift here holds
    ceiling = hot - 0.01
    out: list[Signal] = []
    n_hot = 0
    for doc, (cause, about) in kept:
        if about and n_hot < HOT_DOCS:
            n_hot += 1
            value = ceiling if elsewhere else 1.0
        else:
            value = (warm + ceiling) / 2
        out.append(Signal(doc, FLOOR, value, cause))
    return tuple(out)
