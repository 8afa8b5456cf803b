"""Words as the relevance steps compare them: identifiers split, stop and filler words out, stems.

Shared by the keyword matcher (inflections: "Budgets" meets the keyword "budget"), the text index's query
(lexical.py) and the semantic layer's vectors. Stems come from the Snowball English stemmer (PyStemmer's C
build of it when installed).
"""

from __future__ import annotations

from functools import lru_cache

from ..records import DOC_SUFFIXES, doc_stem

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence
    from typing import Any

# ASCII punctuation and spaces -> space, so an ASCII text splits into its word tokens with str.split().
_ASCII_SEPARATORS = str.maketrans({chr(c): " " for c in range(128) if not (chr(c).isalnum() or chr(c) == "_")})


def is_word_char(ch: str) -> bool:
    return ch.isalnum() or ch == "_"


def unspaced(ch: str) -> bool:
    """Whether a character is of a script written without spaces between words: Chinese's and Japanese's (kana
    and the unified ideographs)."""
    return "\u3040" <= ch <= "\u30ff" or "\u3400" <= ch <= "\u9fff" or "\uf900" <= ch <= "\ufaff"


def bigrams(token: str) -> list[str]:
    """A token with Chinese or Japanese in it as the words a search matches: each run of those as its pairs of
    neighbouring characters (a run of one: itself), any other run whole (`Dubbo`), in order, each once; [] for
    a token with none. Such text has no spaces, so the tokenizer keeps a sentence as one word, which no prompt
    says (as bigram indexing does). Tried as a new user would on Chinese docs: "怎么配置注册中心的超时？"
    found no doc."""
    if token.isascii() or not any(map(unspaced, token)):
        return []
    out: dict[str, None] = {}
    run, other = "", ""
    for ch in token + " ":
        if unspaced(ch) or ch.isspace():
            if other:
                out[other] = None
                other = ""
        if unspaced(ch):
            run += ch
            continue
        if len(run) == 1:
            out[run] = None
        out.update((run[i:i + 2], None) for i in range(len(run) - 1))
        run = ""
        other += ch.strip()
    return list(out)


def searched(token: str) -> list[str]:
    """A token as a search matches it: itself, or the pairs of characters of its Chinese or Japanese (bigrams)."""
    return bigrams(token) or [token]


def tokens_of(text: str) -> list[str]:
    """The maximal runs of word characters, in order. Split at ASCII punctuation and any space first; only a
    piece that still holds another character (a dash, a curly quote) is walked character by character: a doc
    with one such character anywhere was walked whole, three quarters of indexing time on a repo of long
    design docs."""
    pieces = text.translate(_ASCII_SEPARATORS).split()
    if text.isascii():
        return pieces
    out: list[str] = []
    for piece in pieces:
        letters = piece.replace("_", "")
        if piece.isascii() or not letters or letters.isalnum():
            out.append(piece)
            continue
        start = -1
        for i, ch in enumerate(piece):
            if ch.isalnum() or ch == "_":
                if start < 0:
                    start = i
            elif start >= 0:
                out.append(piece[start:i])
                start = -1
        if start >= 0:
            out.append(piece[start:])
    return out


STOPWORDS = frozenset("""
a about above after again all also am an and any are as at be been before being below between both but by can
could did do does doing down during each few for from further had has have having he her here hers him his how
i if in into is it its itself just me more most my no nor not now of off on once only or other our out over own
please same she should so some such than that the their them then there these they this those through to too
under until up very was we were what when where which while who whom why will with would you your yours tell
know let lets get gets getting got make show give need want think thing things like use used using one two way
also back go seem seems seemed
""".split()) | frozenset(
    # What is left of a contraction ("doesn't" is "doesn" and "t"): tried as a new user would on an API framework's
    # docs, "doesn" met a heading "Doesn't HTML5 support PUT and DELETE forms?" and took a HOT place.
    "doesn don isn aren wasn weren won wouldn shouldn couldn didn hasn haven hadn mustn needn ll ve".split())

# Words of conversation, not of topic: kept out of the text query so "ok cool, now what?" asks for nothing, and
# "how does X work?" asks for X (a section "How partial validation works" is not what it means).
FILLER = frozenset("""
ok okay cool great thanks thank thx yes yeah yep nope hmm hi hey hello sure right alright fine nice good well
perfect awesome worked
again still really actually maybe perhaps probably just already anyway though gonna wanna kinda sorta pls
something anything everything stuff bit lot lots much many
work works happen happens difference mean means explain exactly
""".split())

# File names that say nothing of their doc (skills/pdf-report/SKILL.md is about the pdf report).
# `_index.md` is a Hugo or Zola section's page.
GENERIC_NAMES = frozenset({"readme", "index", "_index", "skill", "skills", "claude", "agents", "agent", "main",
                           "overview", "notes", "doc", "docs", "reference", "guide", "summary", "changelog"})


def doc_name(path: str) -> str:
    """A doc's name as people say it: its file name without `.md`, or its folder's name for a generic file
    name (skills/pdf-report/SKILL.md is "pdf-report"); "" for a generic name at the top (CLAUDE.md)."""
    parts = path.split("/")
    stem = doc_stem(parts[-1])
    if stem.lower() in GENERIC_NAMES:
        return doc_stem(parts[-2]) if len(parts) > 1 else ""
    return stem


def split_identifier(token: str) -> list[str]:
    """The parts of a camelCase, PascalCase or snake_case identifier ("DebounceHandler" -> Debounce, Handler;
    "HTTPServer" -> HTTP, Server); a plain word is its own single part."""
    if token.isalpha() and (token[1:].islower() or token.isupper()):
        return [token]  # a plain word (most of any text): nothing to split
    parts: list[str] = []
    for piece in token.split("_"):
        if not piece:
            continue
        start = 0
        for i in range(1, len(piece)):
            prev, ch = piece[i - 1], piece[i]
            nxt = piece[i + 1] if i + 1 < len(piece) else ""
            if (prev.islower() and ch.isupper()) or (prev.isupper() and ch.isupper() and nxt.islower()) or \
                    (prev.isalpha() != ch.isalpha()):
                parts.append(piece[start:i])
                start = i
        parts.append(piece[start:])
    return parts


def split_words(text: str) -> list[str]:
    """Lower-case word tokens with identifiers split into their parts (the whole identifier is dropped)."""
    out: list[str] = []
    for token in tokens_of(text):
        out += [p.lower() for p in split_identifier(token)]
    return out


def content_words(text: str) -> list[str]:
    """The words of a prompt that say what it is about: split, without stop and filler words, in order,
    each once."""
    seen: set[str] = set()
    out: list[str] = []
    # "back up": the docs may say "backup". After the prompt's own words, so that a long prompt's query
    # (its first words, lexical.MAX_TERMS) keeps the words it has.
    compounds: list[str] = []
    prev = ""  # the word before, as a particle after it may make one word with it
    chunks = text.split()
    for i, chunk in enumerate(chunks):
        candidates: list[str] = []
        pieces: list[str] = []
        bare = chunk.strip(_EDGES).lower()
        if (bare in _DOCS_WORDS and _says_where(chunks, i)) or _points_at_project(chunks, i):
            prev = bare
            continue
        if bare in PARTICLES and len(prev) > 1 and prev.isalpha() and prev != bare and (
                prev in PARTICLES or prev not in STOPWORDS):
            compounds.append(prev + bare)
        prev = bare
        for token in tokens_of(chunk):
            pairs = bigrams(token)
            if pairs:  # a run of Chinese or Japanese is searched as its pairs of characters (bigrams)
                candidates += [p.lower() for p in pairs if len(p) > 1]
                continue
            parts = split_identifier(token)
            pieces += parts
            # The whole identifier is kept beside its parts: docs may spell it either way.
            candidates += [token.lower()] + ([p.lower() for p in name_parts(parts)] if len(parts) > 1 else [])
        compact = joined_name(pieces)
        if compact:  # "bx-018" also as the doc name's one word (lexical.fields)
            candidates.append(compact)
        phrase = hyphened(chunk)
        if phrase:
            candidates.append(phrase)
        phrase = dotted(chunk)
        if phrase:
            compounds.append(phrase)  # after the prompt's words, as the compounds: a query of code keeps its words
        for word in candidates:
            if len(word) > 1 and word not in STOPWORDS and word not in FILLER and word not in seen:
                seen.add(word)
                out.append(word)
    out += [w for w in dict.fromkeys(compounds) if w not in seen and w not in STOPWORDS]
    # A developer's short word ("param", "deps") is also searched as the word docs write ("parameter"), after
    # the prompt's own words, as the compounds are.
    return out + [w for w in dict.fromkeys(SHORT_WORDS.get(w, "") for w in out) if w and w not in out]


# "where are the docs for retries", "what do the docs say about it": the prompt points at the docs, it does not
# ask about them. Tried as a new user would on a service mesh's docs: "docs", in a fifth of its pages ("see the
# docs"), ranked a short page that says it first and left the retries page out.
_DOCS_WORDS = frozenset({"docs", "doc", "documentation"})
_POINTING = frozenset({"for", "on", "about", "say", "says", "said", "mention", "mentions", "cover", "covers",
                       "explain", "explains", "describe", "describes", "recommend", "recommends", "suggest",
                       "suggests", "use", "uses", "show", "shows", "talk", "talks"})
_POINTED_FROM = frozenset({"in", "per", "to", "from", "read", "check", "see", "checked", "searched"})


def _says_where(chunks: Sequence[str], i: int) -> bool:
    """Whether chunks[i], a word for the docs, points at them: "the docs for X", "the docs say", "in the docs"."""
    after = chunks[i + 1].strip(_EDGES).lower() if i + 1 < len(chunks) else ""
    before = [c.strip(_EDGES).lower() for c in chunks[max(0, i - 2):i]]
    return after in _POINTING or (len(before) == 2 and before[1] in ("the", "your", "our")
                                  and before[0] in _POINTED_FROM)


# The project itself, pointed at: "what does this project do?", "how does the repo work?". The word names no topic
# of its docs: tried as a new user would, on four docs folders that prompt made HOT the pages that say "project"
# most (contributing guides, a list of the project's people, a command reference's `gradle-projects` page).
PROJECT_WORDS = frozenset({"project", "repo", "repository", "codebase"})
_PROJECT_POINTERS = frozenset({"this", "the", "our", "your", "my"})
# ... and nothing else asked of it than what it is: its landing page answers (landing_page)
OVERVIEW_WORDS = frozenset({"overview", "summary", "summarize", "summarise", "describe", "tour", "purpose", "goal",
                            "goals", "intro", "introduction", "idea"})
# The names of a docs folder's landing page, at its top, first found first
# (Home.md: a wiki's; a site whose home page is a template's stub has its getting-started page)
LANDING_NAMES = ("readme", "index", "_index", "home", "overview", "introduction", "intro", "about", "getting-started",
                 "quickstart")


def _points_at_project(chunks: Sequence[str], i: int) -> bool:
    """Whether chunks[i] is the project pointed at ("this project", "the repo")."""
    return (i > 0 and chunks[i].strip(_EDGES).lower() in PROJECT_WORDS
            and chunks[i - 1].strip(_EDGES).lower() in _PROJECT_POINTERS)


def about_the_project(prompt: str) -> str | None:
    """The words a prompt points at the project with ("this project"), when it asks nothing else of it than
    what it is ("what does this project do?", "give me an overview of the repo"); else None."""
    chunks = prompt.split()
    at = next((i for i in range(len(chunks)) if _points_at_project(chunks, i)), None)
    if at is None or not set(content_words(prompt)) <= OVERVIEW_WORDS:
        return None
    return " ".join(c.strip(_EDGES).lower() for c in chunks[at - 1:at + 1])


def sole_word(prompt: str) -> str | None:
    """The prompt's few content words beyond what asks for an overview, as a name ("what is mypy?" -> "mypy",
    "what is react router" -> "react router"); else None."""
    said = [w for w in content_words(prompt) if w not in OVERVIEW_WORDS]
    return " ".join(said) if 0 < len(said) <= NAME_WORDS else None


NAME_WORDS = 2  # a project's name, said alone, is at most so many words
PROJECT_SHARE = 0.5  # a prompt's sole word in at least this share of the docs is the project's name


def names_the_project(name: str, title: str, share: float) -> bool:
    """Whether what a prompt says alone is the project's name: words of its landing page's title ("Welcome to
    mypy documentation!", "React Router Home"), or a word of most docs (share: of the docs that hold it; an HTTP
    client's landing page is titled "Introduction" by its site's nav). Tried as a new user would on a type
    checker's docs: "what is mypy" printed nothing, as every page says "mypy"; on a router's, "what is react
    router" showed an adapter's API page first."""
    titled = set(content_words(title))
    return all(w in titled for w in name.split()) or (" " not in name and share >= PROJECT_SHARE)


LANDING_MIN_BYTES = 200  # a smaller landing page is a stub (a site's redirect to its first section): no answer


def landing_page(sizes: Mapping[str, int], says: Callable[[str], bool] = lambda path: True) -> str | None:
    """The docs' landing page among these (path -> bytes): a README, index or overview at the top of the docs,
    not a stub nor a page whose text `says` nothing; else the English folder's (a site whose every language has
    a folder: `en/getting-started.mdx`, the others left out as translations), else the guide's (a VitePress
    site's home page is a component, `<Home />`, and its guide's index the getting-started page)."""
    for folder in LANDING_FOLDERS:
        top = {doc_stem(p[len(folder):]).lower(): p for p in sorted(sizes, reverse=True)
               if p.startswith(folder) and "/" not in p[len(folder):] and sizes[p] >= LANDING_MIN_BYTES}
        found = next((top[name] for name in LANDING_NAMES if name in top and says(top[name])), None)
        if found:
            return found
    return None


LANDING_FOLDERS = ("", "en/", "guide/")  # where a landing page is looked for, in this order


def landing_candidates() -> list[str]:
    """The paths a landing page may have, to ask the index which it holds."""
    return [f"{folder}{n}{s}" for folder in LANDING_FOLDERS for name in LANDING_NAMES
            for n in dict.fromkeys((name, name.upper(), name.capitalize())) for s in DOC_SUFFIXES]


def hyphened(chunk: str) -> str | None:
    """A hyphened name with a one-letter part ("v-if", "x-forwarded-for", "team-a"), which the query would drop,
    as the phrase of its parts ("v if"): the text index reads it so, one part after the other. Matching it reads
    the postings of its parts, a word most docs hold too ("if"): about 40 ms more on such a turn at 10,000
    docs (a generated repo, whole `ctx route` processes), where the name would otherwise find nothing."""
    pieces = chunk.strip(_EDGES).split("-")
    if len(pieces) < 2 or not all(p.isalnum() for p in pieces):
        return None
    if not any(len(p) == 1 and p.isalpha() for p in pieces):
        return None  # the parts the query keeps name it ("built-in" is "built")
    return " ".join(pieces).lower()


def dotted(chunk: str) -> str | None:
    """A dotted name ("http.request", "fs.mkdir()", "Session.merge") as the phrase of its parts ("http request"):
    the text index reads it so, one part after the other, where each part alone is in most pages of a reference.
    Tried as a new user would on a runtime's API reference: "what options does http.request accept?" searched
    only "accept" ("http", "request" and "options" are in half its pages) and showed a contributor guide's
    "Accepting modifications", not the `http.request(options[, callback])` section."""
    pieces = chunk.strip(_EDGES).split("(", 1)[0].split(".")
    if len(pieces) < 2 or not all(p and p.replace("_", "").isalnum() and not p.isdigit() for p in pieces):
        return None
    if pieces[-1].lower() in FILE_TYPES or any(len(p) == 1 for p in pieces):
        return None  # a file's name (`pixi.toml`, `app.py`), a host's (`example.com`), "e.g."
    return " ".join(pieces).lower()


# The last part of a dotted word that makes it a file's or a host's name, not an API's
FILE_TYPES = frozenset("""
toml yaml yml json jsonc json5 md mdx txt rst ini cfg conf env lock csv tsv xml html htm css scss svg png jpg gif
py pyi js mjs cjs ts tsx jsx rs go rb java kt c h cpp hpp cs php sh bash zsh ps1 sql so dll exe tmpl tpl j2 log
com org net io dev ai app co uk eu de
""".split())


_EDGES = "\"'`()[]{}<>.,;:!?*"  # what wraps a word in a prompt: quotes, code marks, brackets, a full stop
# The particles of the verbs docs write as one word ("back up" a database, the "backup" guide; "set up", "log in",
# "time out", "roll back", "fail over"): a prompt's verb and particle are also searched as that word, which counts
# only where the docs hold it.
PARTICLES = frozenset({"up", "in", "out", "off", "down", "over", "back"})
# A developer's short words and the words docs write for them. Tried as a new user would on a router's docs:
# "how do I make a route param optional?" found nothing, and "parameter" found "Optional parameters".
SHORT_WORDS = {
    "param": "parameter", "params": "parameters", "arg": "argument", "args": "arguments", "env": "environment",
    "envs": "environments", "repo": "repository", "repos": "repositories", "dir": "directory",
    "dirs": "directories", "dep": "dependency", "deps": "dependencies", "db": "database", "dbs": "databases",
    "msg": "message", "msgs": "messages", "perf": "performance", "prod": "production", "impl": "implementation",
    "spec": "specification", "specs": "specifications", "req": "request", "reqs": "requests", "resp": "response",
    "pkg": "package", "pkgs": "packages", "lib": "library", "libs": "libraries", "attr": "attribute",
    "attrs": "attributes", "func": "function", "funcs": "functions", "var": "variable", "vars": "variables",
    "cert": "certificate", "certs": "certificates", "cmd": "command", "cmds": "commands", "opt": "option",
    "opts": "options", "auth": "authentication", "authz": "authorization", "tmp": "temporary",
    "async": "asynchronous", "k8s": "kubernetes", "i18n": "internationalization", "conf": "configuration",
    "config": "configuration", "info": "information", "dev": "development", "docs": "documentation",
}


def name_parts(parts: list[str]) -> list[str]:
    """An identifier's parts that are words of their own. A number after letters is the name's ("018" of
    gdplot018, "3" of python3): alone it would name every doc with that number, so it is left out; a number
    first is a quantity with its unit ("24" of 24h, "10" of 10ms) and is kept."""
    return [p for i, p in enumerate(parts) if not (i and p.isdigit())]


def joined_name(pieces: list[str]) -> str | None:
    """A name with a number in it written as one word ("bx-018", "my_doc_01" -> "bx018", "mydoc01"): how a
    doc's path holds its numbers, so that a number counts only with the name it belongs to."""
    if len(pieces) < 2 or not any(p.isdigit() for p in pieces) or all(p.isdigit() for p in pieces):
        return None
    return "".join(pieces).lower()


@lru_cache(maxsize=1)
def _english() -> Any:
    # PyStemmer's C stemmer (a dependency): 30 times faster than snowballstemmer's pure-Python one, with the
    # same stems. Taken straight from PyStemmer: snowballstemmer's package, which would hand it out, costs
    # every hook process 0.6 ms more to import. snowballstemmer where PyStemmer cannot be built.
    try:
        import Stemmer
    except ImportError:
        import snowballstemmer

        return snowballstemmer.stemmer("english")
    return Stemmer.Stemmer("english")


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """The Snowball English stem of a lower-case word; memoised, as a prompt repeats the last ones' words."""
    return str(_english().stemWord(word))
