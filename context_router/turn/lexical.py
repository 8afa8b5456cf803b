"""Evidence from the docs' text: a BM25 ranking of every doc against the turn, from SQLite's FTS5 index.

The index (store/state.py) holds four fields per doc, weighted path 3, title 4, headings 2, body 1: what a doc is
called says more than one of its sentences. FTS5's porter tokenizer stems both sides; identifiers are split
before indexing ("DebounceHandler" is also "debounce handler"), so "debouncing" meets it.

The conversation is the query, not just the prompt: each turn's own ranking is kept (top LIMIT docs) and the
last ones are added with falling weights, so a follow-up that names nothing still ranks the doc the
conversation is on first, and a prompt with a clear subject of its own outweighs them.

Admission is relative, never an absolute score tuned on one corpus: the conversation's best doc and the
prompt's own best doc are HOT (a HOT doc costs its best sections, not its page: a margin over the second,
which whole pages needed, only lost answers); docs within WARM_SHARE of the best are WARM, scaled by their
share. A hub page is never HOT on text alone.
"""

from __future__ import annotations

from ..fences import is_fence
from ..records import DOC_SUFFIXES, doc_stem, record
from .attention import FLOOR, Signal
from .sections import split as split_sections
from .words import (
    GENERIC_NAMES,
    bigrams,
    content_words,
    joined_name,
    name_parts,
    split_identifier,
    split_words,
    tokens_of,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from typing import Any


FIELD_WEIGHTS = (3.0, 4.0, 2.0, 1.0)  # path, title, headings, body
SECTION_WEIGHTS = (3.0, 1.0)  # a section's heading, its text
LIMIT = 30  # docs kept per turn's ranking
MAX_TERMS = 24  # the prompt's first content words that make the query: a turn's cost stays bounded
HISTORY_WEIGHTS = (0.5, 0.25)  # the previous prompts' rankings, most recent first
TOPICAL_HISTORY = 0.5  # ... times this when the prompt names a topic (names_topic): this prompt first, the last
# ones after, so a prompt on a new topic moves the room within the turn (a follow-up that names none keeps the
# conversation's ranking whole). Replayed on thirteen plain folders through the hook: 75.0% -> 76.1% in context
# at 63,200 chars a conversation (62,000), eight folders up and three down; piped, the answer shown 79.2% ->
# 79.4% at 5,600 chars less; 0.75 / 0.25 / 0: 75.2% / 75.7% / 75.2%; leave-one-corpus-out picks 0.5 on all 13
# folds (76.1%)
WARM_SHARE = 0.6  # docs scoring at least this share of the best are WARM
WARM_MAX = 3  # at most this many docs are made WARM by the text
KEEP_SHARE = 0.5  # a doc HOT last turn stays HOT while the conversation ranks it at least this share of the best
TOPIC_SHARE = 0.05  # a prompt word in at most this share of the docs (or TOPIC_MIN_DOCS) names a topic; a prompt
# with none ("ok whats the exact command") does not, and its own ranking does not unkeep the conversation's doc (piped,
# answer shown: .claude folders 97.1% -> 99.0%, plain 82.3% -> 82.7%; 0.1: 99.0% / 82.4%, 0.2: 98.1% / 82.3%;
# through the hook no turn changes)
TOPIC_MIN_DOCS = 2  # ... a word in at most this many docs names one in a small folder, whatever its share
KEEP_OWN_SHARE = 0.3  # ... and this prompt's own ranking gives it at least this share of its best doc
LEADERS = 4  # docs made HOT by holding one of this prompt's best sections, at least ... (4, not 3, since such a doc
# shows one part through a hook: replayed on the seventeen plain folders, 77.6% -> 77.9% in context at 59,081 ->
# 59,674 chars a conversation, 12 turns won and 8 lost; 5: 77.9% at 59,917; leave-one-corpus-out picks 4 on 14
# of 17 folds, the left-out corpora 77.7%)
LEADER_ROOM = 5000  # ... and one per this many chars of the turn's budget (5 at 25,000: see leaders())
LEADER_SHARE = 0.7  # a section at least this share of the prompt's best section leads its doc to HOT
SPARSE_LEADERS = 2  # while fewer docs than this hold a section within LEADER_SHARE of the best ...
SPARSE_SHARE = 0.4  # ... the docs of the next best sections down to this share lead too. Tried as a new user would
# on a note app's help vault, "can I sync my vault between my phone and laptop without paying?" showed one page
# (backups: its section 22.5, the sync pages' 14.2 and 13.4) in 1,119 of 10,000 chars. Replayed on twenty-one
# plain folders through the hook: 77.2% -> 77.7% in context (10 turns won, 2 lost), 60,067 -> 61,011 chars a
# conversation, noise 58.4% -> 59.1%; `.claude/` folders 99.0% both at 24,473 -> 27,664 chars; piped 10 turns
# more in context, none fewer (the answer shown 80.9% -> 81.1%). 0.6 / 0.5 / 0.3: 77.4% / 77.6% / 77.7%, three
# leaders at 0.5: 77.7% at 61,528; leave-one-corpus-out over 0.6, 0.5, 0.4 and 0.3 picks 0.4 on all 21 folds
SECTION_LED = "lexical:section"  # the reason of a doc made HOT so
KEPT = "lexical:kept"  # ... and of a doc the conversation keeps HOT (step)
SECTION_LIMIT = 60  # sections kept per turn's ranking
SECTION_EXTRA = 3000  # sections a turn may read for the words in most docs that the sections' query adds: a
# package manager's 207 pages hold "workspace" in 609 of 1,635 sections, and at 1,000 its sections were ranked
# without it. Replayed on twenty-one plain folders through the hook: 76.7% -> 76.9% in context (7 turns won, 3
# lost); 5,000 or unbounded 77.1%, but at 1,000 generated docs whose template words are in most sections a
# turn's text search took 2 ms -> 2.8 ms at 3,000, 4.7 ms at 5,000 (at 10,000 docs such a word is in more
# sections than either, and a turn reads no more)
SECTION_SHARE = 1.0  # weight of a doc's best section in the doc's rank
DOC_SHARE = 1.0  # weight of the doc's whole text beside it


# A prompt's word the docs hold in at most NEAR_MAX_DOCS docs ("massive picture" where the docs say "large
# image") is looked up among the words near it (store/near.py); the first NEAR_PER_WORD of those that the docs
# hold make a second query at NEAR_WEIGHT of the prompt's. Measured: a word the docs hold in more docs, or a
# heavier second query, lost turns; near words for every word of the prompt lost more (docs/relevance.md).
NEAR_MAX_DOCS = 1
NEAR_PER_WORD = 2
NEAR_WEIGHT = 0.5
NEAR_LOOKED = 6  # near words a turn counts in the docs, per rare word (a count reads the word's postings)
NEAR_RARE = 6  # rare words of a prompt looked up: a turn counts at most NEAR_RARE x NEAR_LOOKED words


FIELDS_VERSION = 42  # how fields() writes a doc's text and splits its sections, and which files are docs (5: .mdx too;
# 6: without HTML comments; 7: long tables cut between rows; 8: a `.md` page that opens with an import read as
# MDX, without a leading `<head>`; 9: links without their targets; 10: `.markdown` files too, names without
# their order numbers, titles that are a tag or the `## ` heading a doc opens with, a README's banner between
# rules kept as text; 11: a title's table-of-contents label, a front matter `name`, front matter YAML rejects
# read as `key: value` lines; 12: a title's entities as their characters, struck out text as its text, a front
# matter value that starts with `@` as its text, a `.md` page with an import anywhere read as MDX, MDX comments,
# a page's own table of contents left out; 13: include lines read as the files they name; 14: a page's script
# and style blocks left out, an underlined title read as a `# ` title, lines
# that are one Hugo shortcode left out; 15: a line of three backticks with a backtick after them opens no code
# block, a page titled by its one `###` heading sectioned by the headings under it; 16: link reference
# definitions and lines that are one Liquid tag left out, headings indented up to three spaces, a page sectioned
# by `# ` headings read a level lower, no part ending inside an indented code block; 17: a container's marker
# lines, `:::tip` and `:::`, and Docusaurus's highlight comments in code left out; 18: Hugo's `{{< param >}}` read as
# its front matter value; 19: a changelog whose name goes on, `CHANGELOG-API.md`, a hub; 20: a release's notes named by
# its version in a folder of them a hub, a file name with spaces a title; 21: Quarto's and R Markdown's files
# too, Quarto's include lines read as the files they name; 22: a changelog entry named by its date a hub; 23:
# Chinese and Japanese text also as its pairs of characters, in the index and the vectors; 24: a Notion export's
# page ids out of the names; 25: reStructuredText pages, a change's fragment named by its ticket a hub; 26: headings
# of one name with nothing between them one section; 27: a WARM header cut inside a code block closes it; 28: a
# page that points at another, an alias's or a moved page's, a hub; 29: MyST include blocks read as their files, a
# Sphinx page's includes from its repository, `change_log` a hub; 30: `breaking-changes` a hub; 31: a table's row
# of badges out of a WARM header; 32: a Sphinx page's objects as headings, its code blocks inside directives
# fenced; 33: a Sphinx page's objects as `####` headings, its labels no anchors, a heading's `<small>` aside no word
# of it, a changelog folder's own page, a "what's new" page and `changelog_*/` fragments hubs, a home page's
# front matter its text, a title under an attribute list; 34: a Sphinx page whose lines are mostly toctree entries a
# hub; 35: MDC's block lines, `::note` and `::`, no text; 36: Grafana's `{{< docs/shared >}}` read as its file; 37: a
# reStructuredText title with text right under it; 38: Hugo's include shortcodes read as their files; 39: a log's
# name a hub only when the page logs releases; 40: Python Markdown's `/// tip` block markers no text; 41: a lookup
# table of names a hub; 42: a log's release named by its number, `Release 36`, and a page in a releases folder
# whose headings name releases, hubs; a name of stop words alone, `how-to`, no keyword); the index is built anew
# when it changes


def fields(path: str, title: str, body: str) -> tuple[str, str, str, str]:
    """(path, title, headings, body) as indexed: identifiers gain their split parts, generic file names and
    the extension say nothing about a doc and are left out of its path; the text is what a reader reads."""
    text = readable(body)
    return _path_words(path), _with_parts(title), _with_parts(_headings(text)), _with_parts(text)


def readable(text: str) -> str:
    """The text as a reader of the rendered page reads it: a link shows its text, not its target, and a
    reference definition (`[id]: https://...`) shows nothing. A table of emoji whose every row links back to
    `#table-of-contents` is no page about tables of contents (tried on a site's docs as a new user would: it
    won every such prompt). Replayed on thirteen plain folders: through the hook 74.7% -> 74.8% in context, at
    62,400 chars a conversation (62,700); piped, the answer shown 78.1% -> 77.6% (10 turns won, 15 lost, each
    a part of the same docs). Plain string scanning: the hook path never imports re."""
    if "](" not in text and "]:" not in text:
        return text
    return "\n".join(_without_targets(line) if "](" in line else line for line in text.split("\n")
                     if "]:" not in line or not _is_definition(line))


def _is_definition(line: str) -> bool:
    """Whether a line is a link reference definition: `[id]: target`, indented at most three spaces."""
    rest = line.lstrip(" ")
    if len(line) - len(rest) > 3 or not rest.startswith("[") or rest.startswith("[^"):
        return False
    close = rest.find("]:")
    return close > 1 and "]" not in rest[1:close] and bool(rest[close + 2:].strip())


def _without_targets(line: str) -> str:
    """A line with each inline link's `(target)` after its `[text]` taken out; a target left open stays."""
    out: list[str] = []
    start = 0
    while (mark := line.find("](", start)) >= 0:
        depth, end = 0, -1
        for k in range(mark + 1, len(line)):
            depth += {"(": 1, ")": -1}.get(line[k], 0)
            if depth == 0:
                end = k
                break
        if end < 0:
            break
        out.append(line[start:mark + 1])
        start = end + 1
    return "".join(out) + line[start:]


_SUFFIXES = frozenset(s.lstrip(".") for s in DOC_SUFFIXES)  # a doc's extension says nothing about it


def _path_words(path: str) -> str:
    """A path's words. A number in it is kept only joined to its name (bx-018.md: "bx018"): a bare "018" would
    make any prompt with an 018 in it (gdplot018) evidence for this doc, turn after turn."""
    words = [w for w in split_words(path) if w not in GENERIC_NAMES and w not in _SUFFIXES and not w.isdigit()]
    for part in path.split("/"):
        tokens = tokens_of(doc_stem(part))
        pieces = [p for t in tokens for p in split_identifier(t)]
        compact = joined_name(pieces)
        if compact and compact not in words:
            words.append(compact)
    return " ".join(words)


def _headings(body: str) -> str:
    return "\n".join(line.lstrip("#").strip() for line in _heading_lines(body))


def section_fields(title: str, body: str) -> tuple[tuple[int, tuple[str, str]], ...]:
    """(number, (heading path, text)) of each section (sections.split) that has text: the heading path is the
    doc's title and the headings above the section, so "Tasks > Caching" reads as what the section is about."""
    out: list[tuple[int, tuple[str, str]]] = []
    parent = ""
    for n, sec in enumerate(split_sections(body)):
        if sec.level == 2:
            parent = sec.title
        path = [title, parent if sec.level == 3 else "", sec.title]
        heading = " > ".join(p for p in path if p)
        if sec.text.strip():
            out.append((n, (_with_parts(readable(heading)), _with_parts(readable(sec.text)))))
    return tuple(out)


def _heading_lines(body: str) -> list[str]:
    out: list[str] = []
    fenced = False
    for line in body.splitlines():
        if line.startswith(("```", "~~~")) and is_fence(line):
            fenced = not fenced
        elif not fenced and line.startswith("#"):
            out.append(line)
    return out


def _with_parts(text: str) -> str:
    """The text, then the parts of every identifier in it that splits (once each): the tokenizer keeps
    `DebounceHandler` whole, and a prompt says "debounce handler"."""
    extra: dict[str, None] = {}
    for token in set(tokens_of(text)):
        pairs = bigrams(token)
        if pairs:  # Chinese or Japanese: its pairs of characters, as a prompt's are searched (words.bigrams)
            extra[" ".join(pairs)] = None
            continue
        if "_" in token or (token.isalpha() and (token.islower() or token[1:].islower() or token.isupper())):
            continue  # snake_case is split by the tokenizer itself; a plain word (most of any text) has no parts
        parts = split_identifier(token)
        words = name_parts(parts)  # a name's number is no word of its own (words.name_parts)
        if len(parts) > 1 and words:
            extra[" ".join(words)] = None
    return text + ("\n" + "\n".join(sorted(extra)) if extra else "")


def query_words(prompt: str) -> list[str]:
    """The prompt's first content words: what the turn searches the text for (its cost stays bounded)."""
    return content_words(prompt)[:MAX_TERMS]


def unranked_phrases(said: Sequence[str], counts: Mapping[str, int], n_docs: int) -> list[str]:
    """The prompt's words without the phrases whose words the prompt says too, one of them ranking the docs on its
    own (words.dotted; a hyphened name's one-letter part is no word of it): a phrase speaks where its words are in
    most pages (a runtime's `http` and `request`); beside a word that ranks, it counted that word twice (dotted
    names searched as phrases whatever their words, replayed through the hook on six plain folders: 69.4% ->
    68.3% in context; a tutorial's `hero.team_id`)."""
    have = set(said)
    return [w for w in said if " " not in w or not (
        all(p in have for p in w.split()) and any(can_rank(p, counts, n_docs) for p in w.split()))]


def query(words: Sequence[str], counts: Mapping[str, int], n_docs: int) -> str | None:
    """The FTS5 query of the words that can rank docs (counts: how many docs' text holds each): in some doc,
    and in at most half of them. FTS5's bm25 gives a word in more than half of the docs no weight (its IDF is
    clamped to almost 0), but scoring it still reads its whole posting list: at 10,000 docs "service" or
    "logs" would cost more than the rest of the turn."""
    return _or([w for w in words if can_rank(w, counts, n_docs)])


def sections_query(said: Sequence[str], doc_counts: Mapping[str, int], n_docs: int,
                   sec_counts: Mapping[str, int], n_secs: int) -> str | None:
    """The FTS5 query that ranks sections: the words that rank docs, then those in most docs but in at most
    half of the sections, rarest first, while the sections they are in add up to at most SECTION_EXTRA. A
    prompt's subject that most pages mention ("validators" in a validation library's docs) still tells the
    sections about it from the rest; scoring a word reads all its sections, so a word of every doc's template
    ("logs", "check") does not cost a turn more as the repo grows. sec_counts may be counted only as far as
    SECTION_EXTRA + 1, and n_secs as far as twice that: a word over the budget is left out either way."""
    words = [w for w in said if can_rank(w, doc_counts, n_docs)]
    spare = SECTION_EXTRA
    for word in sorted((w for w in said if w not in words and can_rank(w, sec_counts, n_secs)),
                       key=lambda w: (sec_counts[w], w)):
        if sec_counts[word] > spare:
            break
        words.append(word)
        spare -= sec_counts[word]
    return _or(words)


def common_words(said: Sequence[str], counts: Mapping[str, int], n_docs: int) -> list[str]:
    """The words in the docs that cannot rank them, being in most of them: sections_query counts their sections."""
    return [w for w in said if counts.get(w, 0) > 0 and not can_rank(w, counts, n_docs)]


def can_rank(word: str, counts: Mapping[str, int], n_docs: int) -> bool:
    """Whether a word can rank docs: in some doc's text, and in at most half of them (query())."""
    return 0 < counts.get(word, 0) and counts[word] * 2 <= n_docs


def names_topic(said: Sequence[str], counts: Mapping[str, int], n_docs: int) -> bool:
    """Whether a prompt names a topic: one of its words is in few docs (at most TOPIC_SHARE of them, or two).
    counts: how many docs hold each word. Two, not one: in a folder of 22 pages, "socks" in two of them did not
    name a topic, and the conversation's timeout pages held the room (the four `.claude/` folders, under 40 docs
    each, replayed: the same answers, through the hook 26,797 -> 26,499 chars a conversation, piped 92,047 ->
    89,516; three docs: 26,578 and one answer fewer in the turn's output; the plain folders, of 63 docs and more,
    are not touched)."""
    return any(0 < counts.get(w, 0) <= max(TOPIC_MIN_DOCS, TOPIC_SHARE * n_docs) for w in said)


def rare_words(said: Sequence[str], counts: Mapping[str, int]) -> list[str]:
    """The prompt's words that the docs hold in at most NEAR_MAX_DOCS docs: their near words are looked up."""
    return [w for w in said if counts.get(w, 0) <= NEAR_MAX_DOCS][:NEAR_RARE]


def near_words(rare: Sequence[str], said: Sequence[str], near: Mapping[str, Sequence[str]],
               counts: Mapping[str, int], n_docs: int) -> list[str]:
    """For each rare word of the prompt, its first NEAR_PER_WORD near words that can rank docs (counts: how
    many docs hold each) and that the prompt does not say itself."""
    out: list[str] = []
    for word in rare:
        taken = 0
        for other in near.get(word, ()):
            if taken >= NEAR_PER_WORD:
                break
            if other not in said and other not in out and can_rank(other, counts, n_docs):
                out.append(other)
                taken += 1
    return out


RANK_PIECES = 500  # pieces of a part ranked as they are; of more, only those that hold a query word's start
WORD_START = 5  # chars of a query word that a piece must hold to be ranked (a stem's: "passphrases", "passphrase")


def narrowed(texts: Sequence[str], queries: Sequence[str | None]) -> list[int]:
    """The indices of the pieces of a part worth ranking for these FTS5 queries (a stretch's paragraphs): all of
    them, or, of more than RANK_PIECES, those that hold the start of one of the queries' words. A part of a
    megabyte (one YAML block of 28,000 paragraphs) cost a turn 0.26 s to rank whole; a piece without any query
    word would not match anyway."""
    if len(texts) <= RANK_PIECES:
        return list(range(len(texts)))
    starts = {w.strip().lower()[:WORD_START] for q in queries if q for w in q.split('"')[1::2] if w.strip()}
    return [i for i, t in enumerate(texts) if any(s in t.lower() for s in starts)]


def lighter(ranking: Mapping[Any, float], extra: Mapping[Any, float]) -> dict[Any, float]:
    """A ranking with a second query's added at NEAR_WEIGHT."""
    out = dict(ranking)
    for key, score in extra.items():
        out[key] = out.get(key, 0.0) + NEAR_WEIGHT * score
    return out


def remembered(memory: Any) -> set[str]:
    """The docs the last prompts' rankings name (the conversation's part of this turn's ranking)."""
    rankings = memory.get("rankings", ()) if isinstance(memory, dict) else ()
    return {p for ranking in rankings[:len(HISTORY_WEIGHTS)] if isinstance(ranking, dict) for p in ranking}


def _or(words: Sequence[str]) -> str | None:
    return " OR ".join('"' + w.replace('"', "") + '"' for w in words) if words else None


@record
class LexicalTurn:
    signals: tuple[Signal, ...]
    memory: dict[str, list[Any]]  # this turn's and the previous ones' rankings and words, for the next turn
    sections: dict[str, dict[int, float]]  # path -> section number -> relevance to the conversation
    relevance: dict[str, float]  # path -> the doc's rank in the conversation (this prompt's and the last ones')


def combine(own: Mapping[Any, float], history: Sequence[Mapping[Any, float]], scale: float = 1.0
            ) -> dict[Any, float]:
    """The conversation's ranking: this prompt's, plus the previous ones' with falling weights (x scale)."""
    out = dict(own)
    for weight, past in zip((w * scale for w in HISTORY_WEIGHTS), history, strict=False):
        for key, score in past.items():
            out[key] = out.get(key, 0.0) + weight * score
    return out


def blend(docs: Mapping[str, float], sections: Mapping[tuple[str, int], float]) -> dict[str, float]:
    """A doc's rank for the turn: its whole text's, plus its best section's (each as a share of the turn's
    best): a page whose one section is about the question beats a page that mentions every word of it once."""
    top_doc = max(docs.values(), default=0.0)
    top_sec = max(sections.values(), default=0.0)
    best: dict[str, float] = {}
    for (path, _), score in sections.items():
        best[path] = max(best.get(path, 0.0), score)
    out = {p: DOC_SHARE * s / top_doc for p, s in docs.items()} if top_doc > 0 else {}
    if top_sec > 0:
        for path, score in best.items():
            out[path] = out.get(path, 0.0) + SECTION_SHARE * score / top_sec
    return out


def leaders(budget: int) -> int:
    """How many docs this prompt's best sections may make HOT: a turn with more room shows the best sections of
    more docs. Replayed piped (25,000 chars) on thirteen plain folders, with the parts' bars lowered as the room
    grows (tiers.bar): the answer shown 77.7% -> 79.2% (the bars alone 78.3%; 7 leaders 78.9%), nine folders up
    and two down, at 10% more chars; through the hook (10,000) nothing changes."""
    return max(LEADERS, budget // LEADER_ROOM)


def _section_leaders(secs: Mapping[tuple[str, int], float], hubs: frozenset[str], most: int = LEADERS
                     ) -> list[str]:
    """The docs that hold this prompt's best sections (at least LEADER_SHARE of the best one), best first, at
    most `most`: the turn's answer is in a section, whichever doc holds it; while fewer than SPARSE_LEADERS docs
    do, the next ones down to SPARSE_SHARE of the best."""
    top = max(secs.values(), default=0.0)
    ranked = [(path, score) for (path, _), score in sorted(secs.items(), key=lambda kv: (-kv[1], kv[0]))
              if path not in hubs]
    out: list[str] = []
    for share, upto in ((LEADER_SHARE, most), (SPARSE_SHARE, SPARSE_LEADERS)):
        for path, score in ranked:
            if score < share * top or len(out) >= upto:
                break
            if path not in out:
                out.append(path)
    return out


def _best(scores: Mapping[str, float], hubs: frozenset[str] = frozenset()) -> str | None:
    """The best doc; a hub page (an index, a table of contents) is passed over: it mentions everything, so
    breadth alone must not make it HOT."""
    ranked = sorted(((p, s) for p, s in scores.items() if p not in hubs), key=lambda kv: (-kv[1], kv[0]))
    return ranked[0][0] if ranked and ranked[0][1] > 0 else None


def step(said: Sequence[str], docs: Mapping[str, float], secs: Mapping[tuple[str, int], float],
         hubs: frozenset[str], memory: Mapping[str, Sequence[Any]], hot: float, warm: float,
         held: frozenset[str] = frozenset(), topical: bool = True, most_leaders: int = LEADERS) -> LexicalTurn:
    """This turn's signals from the text, and the rankings to remember. said: the prompt's query words; docs:
    the text index's best docs for them (path -> bm25); secs: its best sections ((path, part) -> bm25); hubs:
    which of those docs and the remembered ones are hub pages; held: the docs HOT before this turn."""
    own = blend(docs, secs)
    memory = memory if isinstance(memory, dict) else {}  # a memory this version did not write starts afresh
    history = [dict(m) for m in memory.get("rankings", ())][:len(HISTORY_WEIGHTS)]
    sec_history = [dict(m) for m in memory.get("sections", ())][:len(HISTORY_WEIGHTS)]
    scale = TOPICAL_HISTORY if topical else 1.0
    combined = combine(own, history, scale)
    signals: list[Signal] = []
    hot_paths = {p for p in (_best(combined, hubs), _best(own, hubs)) if p is not None}
    for path in sorted(hot_paths):
        signals.append(Signal(path, FLOOR, 1.0, "lexical:best"))
    led = [p for p in _section_leaders(secs, hubs, most_leaders) if p not in hot_paths]
    signals += [Signal(p, FLOOR, 1.0, SECTION_LED) for p in led]
    hot_paths.update(led)
    ranked = sorted(combined.items(), key=lambda kv: (-kv[1], kv[0]))
    if ranked:
        best = ranked[0][1]
        # The doc the conversation is on stays while the talk is still about it: a follow-up's own words ("and
        # how do I test that?") may rank another doc first without moving the conversation off it. It earns its
        # place again from this prompt's own ranking; a prompt that matches nothing, or names no topic
        # (names_topic), keeps the conversation's.
        own_best = max(own.values(), default=0.0)
        kept = sorted(p for p, score in ranked if p in held and p not in hot_paths and p not in hubs
                      and score >= KEEP_SHARE * best
                      and (own_best <= 0 or not topical or own.get(p, 0.0) >= KEEP_OWN_SHARE * own_best))
        signals += [Signal(p, FLOOR, 1.0, KEPT) for p in kept]
        hot_paths.update(kept)
        ceiling = hot - 0.01
        n = 0
        for path, score in ranked:
            share = score / best if best > 0 else 0.0
            if n >= WARM_MAX or share < WARM_SHARE:
                break
            # A hub (a changelog, an index) ranks for every prompt: its breadth makes it neither HOT nor WARM.
            # Tried as a new user would on a collector's monorepo, its 295,000-char changelog was WARM on most
            # turns (fourteen plain folders: the same answers in context through the hook, 97 chars a
            # conversation less; piped the answer shown 82.2% -> 82.4%).
            if path in hot_paths or path in hubs:
                continue
            signals.append(Signal(path, FLOOR, warm + share * (ceiling - warm), f"lexical:{share:.2f}"))
            n += 1
    keep = len(HISTORY_WEIGHTS)
    words = [list(said), *memory.get("words", ())][:keep]
    by_doc: dict[str, dict[int, float]] = {}
    for (path, n), score in combine(secs, sec_history, scale).items():
        by_doc.setdefault(path, {})[n] = score
    return LexicalTurn(tuple(signals), {"rankings": [own, *history][:keep], "words": words,
                                        "sections": [secs, *sec_history][:keep]}, by_doc, combined)


def section_query(prompt: str, memory: Mapping[str, Sequence[Any]] | None) -> str | None:
    """The query that ranks a cut doc's sections: the prompt's words, then the last prompts' (a follow-up
    asks about the part of the doc the conversation is on)."""
    words = content_words(prompt)[:MAX_TERMS]
    for past in (memory or {}).get("words", ()):
        words += [w for w in past if w not in words]
    return _or(words)


