from context_router.keywords import doc_keywords, index_key, match_all


def hits(keywords: dict[str, list[str]], prompt: str) -> dict[str, list[str]]:
    return match_all(keywords, prompt)


def test_index_key_is_the_rarest_then_longest_token():
    assert index_key("rtx 5090") == "5090"
    assert index_key("systems/legion.md") == "systems"
    assert index_key("kavi service", {"service": 10000, "kavi": 1}) == "kavi"
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


def test_non_ascii_keywords():
    kw = {"k.md": ["köln"], "z.md": ["数据"]}
    assert hits(kw, "Wir fahren nach KÖLN.") == {"k.md": ["köln"]}
    assert hits(kw, "查看 数据 表") == {"z.md": ["数据"]}
