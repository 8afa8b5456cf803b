from hypothesis import given
from hypothesis import strategies as st

from context_router.turn.keywords import doc_keywords, index_key, match_all


def hits(keywords: dict[str, list[str]], prompt: str) -> dict[str, list[str]]:
    return match_all(keywords, prompt)


def test_index_key_is_the_rarest_then_longest_token():
    assert index_key("rtx 5090") == "5090"
    assert index_key("systems/legion.md") == "legion"  # stems: "system" and "legion" tie on length
    assert index_key("retried budgets", {"retri": 5}) == "budget"
    assert index_key("kavi service", {"servic": 10000, "kavi": 1}) == "kavi"  # counts are by stem
    assert index_key("++") == ""


def test_word_boundaries():
    kw = {"port.md": ["port"], "api.md": ["api"]}
    assert hits(kw, "this is important") == {}
    assert hits(kw, "we use fastapi here") == {}
    assert hits(kw, "which port does the API use?") == {"port.md": ["port"], "api.md": ["api"]}
    assert hits(kw, "port: 80, (api)") == {"port.md": ["port"], "api.md": ["api"]}


def test_case_insensitive_and_phrases_across_whitespace():
    kw = {"legion.md": ["rtx 5090"]}
    assert hits(kw, "the RTX\n\t  5090 is hot") == {"legion.md": ["rtx 5090"]}
    assert hits(kw, "the rtx5090") == {}
    assert hits(kw, "rtx 50900") == {}


def test_keywords_with_punctuation():
    kw = {"a.md": ["pipe-to-orin", "c++", "systems/legion.md"]}
    assert hits(kw, "check pipe-to-orin now") == {"a.md": ["pipe-to-orin"]}
    assert hits(kw, "pipe to orin") == {}
    assert hits(kw, "I write C++ daily") == {"a.md": ["c++"]}
    assert hits(kw, "open systems/legion.md please") == {"a.md": ["systems/legion.md"]}


def test_one_keyword_many_files_and_order():
    kw = {"b.md": ["gpu"], "a.md": ["gpu", "cuda"]}
    assert hits(kw, "cuda on the gpu") == {"a.md": ["cuda", "gpu"], "b.md": ["gpu"]}


def test_doc_keywords_sources():
    kws = doc_keywords("systems/pipe-to-orin.md", "Pipe To Orin", ["Frame Pipe"], ["orin"], auto=True)
    assert kws == ("orin", "frame pipe", "pipe-to-orin", "pipe to orin", "systems/pipe-to-orin.md")
    assert doc_keywords("x/y.md", "Title", [], [], auto=False) == ("x/y.md",)


def test_a_keyword_of_marks_alone_is_no_keyword():
    # Tried as a new user would on a command reference: the pages of the `,` and `?` commands fired on any prompt
    # with a comma or a question mark.
    assert doc_keywords("pages/common/,.md", ",", [], [], auto=True) == ("pages/common/,.md",)
    assert doc_keywords("ios/question-mark.md", "?", ["??"], [",", "c++"], auto=True) == (
        "c++", "question-mark", "question mark", "ios/question-mark.md")
    docs = {"pages/common/,.md": list(doc_keywords("pages/common/,.md", ",", [], [], auto=True)),
            "q.md": list(doc_keywords("q.md", "?", [], [], auto=True))}
    assert hits(docs, "how do I extract a tar archive, keeping permissions?") == {}
    # Nor is a name or title that is one stopword (the `do` command's page); one chosen stays
    assert doc_keywords("pages/common/do.md", "do", [], [], auto=True) == ("pages/common/do.md",)
    assert doc_keywords("do.md", "Do", ["do"], [], auto=True) == ("do", "do.md")
    # ... or stopwords alone: a web server's `how-to/_index.md`, titled "How To", was HOT for every "how to ..."
    assert doc_keywords("templates/how-to/_index.md", "How To", [], [], auto=True) == ("templates/how-to/_index.md",)
    assert hits({"templates/how-to/_index.md": ["templates/how-to/_index.md"]}, "how to enable http/3?") == {}


def test_non_ascii_keywords():
    kw = {"k.md": ["köln"], "z.md": ["数据"]}
    assert hits(kw, "Wir fahren nach KÖLN.") == {"k.md": ["köln"]}
    assert hits(kw, "查看 数据 表") == {"z.md": ["数据"]}


def test_inflections_match_but_separators_stay_exact():
    kw = {"b.md": ["budget"], "r.md": ["retry policy"], "p.md": ["pipe-to-orin"], "port.md": ["port"]}
    assert hits(kw, "Budgets for next year") == {"b.md": ["budget"]}
    assert hits(kw, "the retries policies") == {"r.md": ["retry policy"]}
    assert hits(kw, "check pipes-to-orin") == {"p.md": ["pipe-to-orin"]}
    assert hits(kw, "pipes to orin") == {}
    assert hits(kw, "which ports are open, importantly?") == {"port.md": ["port"]}
    assert hits(kw, "this is important") == {}


def test_generic_file_names_take_their_folder_name():
    assert doc_keywords("skills/pdf-report/SKILL.md", "PDF report", [], [], auto=True) == (
        "pdf-report", "pdf report", "skills/pdf-report/skill.md")
    assert doc_keywords("CLAUDE.md", "Project notes", [], [], auto=True) == ("project notes", "claude.md")
    assert doc_keywords("api/README.md", "", [], [], auto=True) == ("api", "api/readme.md")


def test_weak_keywords():
    from context_router.turn.keywords import is_weak

    assert is_weak("test", 1) and is_weak("services", 1)  # common words, inflected too
    assert is_weak("kestrel", 3) and not is_weak("kestrel", 2)  # shared by three docs
    assert not is_weak("test runner", 1)  # a phrase says more than its words
    assert is_weak("in", 1) and is_weak("do", 1)  # a doc named after a stopword (in.md) fires on any sentence
    assert not is_weak("ls", 1) and not is_weak("tar", 1)


def test_the_keywords_that_fire_are_those_match_finds():
    from context_router.turn.keywords import fired, match

    cands = [("retry budget", "a.md"), ("port", "b.md"), ("api", "c.md"), ("retry budget", "d.md")]
    prompt = "What are the retried budgets on that port?"
    assert fired(["retry budget", "port", "api"], prompt) == ["retry budget", "port"]
    assert match(cands, prompt) == {"a.md": ["retry budget"], "b.md": ["port"], "d.md": ["retry budget"]}


def test_a_keyword_more_docs_own_than_warm_shows_is_broad():
    from context_router.turn.keywords import is_broad

    assert is_broad(9, 8) and not is_broad(8, 8) and not is_broad(1, 8)


def test_a_broad_keyword_lifts_only_the_owners_the_text_ranks_the_best_first():
    from context_router.turn.keywords import broad_lifts

    owners = {"shared": [f"d{i}.md" for i in range(400)]}
    relevance = {"d7.md": 0.2, "d3.md": 0.9, "x.md": 1.0, "d5.md": 0.0, "d9.md": 0.5}
    assert broad_lifts(owners, relevance, 2) == {"d3.md": ["shared"], "d9.md": ["shared"]}
    assert broad_lifts(owners, {}, 8) == {}  # a keyword that tells four hundred docs apart from nothing


@given(st.dictionaries(st.sampled_from(["k1", "k2", "k3"]),
                       st.lists(st.sampled_from([f"d{i}.md" for i in range(60)]), max_size=60), max_size=3),
       st.dictionaries(st.sampled_from([f"d{i}.md" for i in range(80)]), st.floats(0.0, 5.0), max_size=40),
       st.integers(0, 12))
def test_broad_lifts_are_bounded_by_the_cap_and_the_ranking(owners, relevance, cap):
    from context_router.turn.keywords import broad_lifts

    lifts = broad_lifts(owners, relevance, cap)
    for kw, paths in owners.items():
        lifted = [p for p, kws in lifts.items() if kw in kws]
        assert len(lifted) <= cap
        assert all(p in paths and relevance[p] > 0 for p in lifted)
        passed_over = [p for p in set(paths) if p not in lifted and relevance.get(p, 0.0) > 0]
        # every owner left out ranks no better than every one lifted (or the cap was reached)
        assert not passed_over or len(lifted) == cap
        assert all(relevance[q] <= min((relevance[p] for p in lifted), default=float("inf")) for q in passed_over)


@given(st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=1, max_size=14))
def test_the_fallback_stemmer_gives_the_same_stems(word):
    # Where PyStemmer cannot be built, snowballstemmer's pure-Python stemmer runs: a state indexed with one
    # must read the same with the other.
    from snowballstemmer.english_stemmer import EnglishStemmer

    from context_router.turn.words import stem

    assert stem(word) == EnglishStemmer().stemWord(word)


def test_a_name_written_as_code_fires_only_its_own_keyword():
    """Tried as a new user would on a router's docs: "useNavigation state" fired `usenavigate` and made its page
    HOT first (both stem to "usenavig"); "useMatch" fired `usematches`. A word written as prose still fires an
    inflected keyword."""
    from context_router.turn.keywords import fired

    names = ["usenavigate", "usenavigation", "usematches", "max_payload", "budget", "retry"]
    assert fired(names, "useNavigation state") == ["usenavigation"]
    assert fired(names, "useNavigate with replace") == ["usenavigate"]
    assert fired(names, "useMatch with a pattern") == []
    assert fired(names, "max_payloads and budgets, retried") == ["budget", "retry"]
