from pathlib import Path

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from context_router import config
from context_router.errors import ConfigError


def load(tmp_path: Path, text: str) -> config.Config:
    path = tmp_path / "config.yaml"
    path.write_text(text, encoding="utf-8")
    return config.load(str(path))


def test_defaults_without_a_file(tmp_path):
    cfg = config.load(None, cwd=str(tmp_path))
    assert cfg.budget_chars == 25000
    assert (cfg.hot.threshold, cfg.hot.max_files) == (0.8, 4)
    assert (cfg.warm.threshold, cfg.warm.max_files, cfg.warm.lines) == (0.25, 8, 25)
    assert cfg.decay_default == 0.7 and cfg.coactivation == 0.35 and cfg.auto_keywords
    assert cfg.budget_for("claude") == 10000


def test_full_schema_and_relative_docs(tmp_path):
    cfg = load(tmp_path, """
docs: mydocs
budget_chars: 9000
decay: {default: 0.6, prefixes: {"systems/": 0.85, "systems/core/": 0.95}}
keywords: {systems/legion.md: [legion, RTX 5090]}
related: {systems/legion.md: [./integrations/pipe.md]}
pinned: {overview.md: hot, notes.md: warm}
hosts: {claude: {budget_chars: 20000}}
""")
    assert cfg.docs_root == str(tmp_path / "mydocs")
    assert cfg.decay_for("systems/core/x.md") == 0.95
    assert cfg.decay_for("systems/x.md") == 0.85
    assert cfg.decay_for("other.md") == 0.6
    assert cfg.related["systems/legion.md"] == ("integrations/pipe.md",)
    assert cfg.pinned == {"overview.md": "hot", "notes.md": "warm"}
    assert cfg.budget_for("claude") == 9000  # the smaller of host and config
    assert cfg.state_dir == str(tmp_path / ".ctx")


def test_hosts_budgets_and_history(tmp_path):
    cfg = config.load(None, cwd=str(tmp_path))
    assert {h: cfg.budget_for(h) for h in ("claude", "gemini", "codex", "cline", "plain", None)} == \
        {"claude": 10000, "gemini": 10000, "codex": 10000, "cline": 10000, "plain": 25000, None: 25000}
    assert cfg.host_history == {"claude": True, "gemini": True, "codex": True, "cline": False, "plain": False}
    cfg = load(tmp_path, "hosts: {codex: {history: false}, gemini: {budget_chars: 4000}, zed: {budget_chars: 3000},"
                         " cline: }")
    assert (cfg.host_history["codex"], cfg.budget_for("codex")) == (False, 10000)  # the rest of codex's defaults
    assert (cfg.host_history["gemini"], cfg.budget_for("gemini")) == (True, 4000)
    assert (cfg.host_history["zed"], cfg.budget_for("zed")) == (False, 3000)  # a host ctx does not know: no history
    assert (cfg.host_history["cline"], cfg.budget_for("cline")) == (False, 10000)


def test_pinned_as_list(tmp_path):
    assert load(tmp_path, "pinned: [a.md, b.md]").pinned == {"a.md": "warm", "b.md": "warm"}


@pytest.mark.parametrize("text, message", [
    ("tiers: {hot: {threshold: 1.5}}", "config.yaml:1: tiers.hot.threshold: must be in [0, 1], got 1.5"),
    ("colour: red", "config.yaml:1: colour: unknown key"),
    ("budget_chars: lots", "budget_chars: must be an integer, got a string"),
    ("budget_chars: -5", "budget_chars: must be at least 1, got -5"),
    ("\n\ndecay: {default: 0}", "config.yaml:3: decay.default: must be in (0, 1], got 0"),
    ("decay: {default: 1.2}", "decay.default: must be in (0, 1], got 1.2"),
    ("tiers: {hot: {threshold: 0.2}, warm: {threshold: 0.5}}", "tiers.hot.threshold: must not be below"),
    ("tiers: {warm: {max_files: -1}}", "tiers.warm.max_files: must be at least 0, got -1"),
    ("keywords: [a, b]", "keywords: must be a mapping, got a list"),
    ("pinned: {a.md: lukewarm}", "pinned.a.md: must be warm or hot"),
    ("auto_keywords: maybe", "auto_keywords: must be true or false, got a string"),
    ("docs: [1, 2]: x", "config.yaml:1: invalid YAML"),
    ("a: b\n  c: d\n", "config.yaml:2: invalid YAML"),
    ("- just\n- a list", "must be a mapping, got a list"),
    ("hosts: {codex: {history: sometimes}}", "config.yaml:1: hosts.codex.history: must be true or false, got a string"),
    ("hosts: {cline: {budget_chars: 0}}", "hosts.cline.budget_chars: must be at least 1, got 0"),
    ("hosts: {gemini: {colour: red}}", "hosts.gemini.colour: unknown key (expected one of: budget_chars, history)"),
])
def test_errors_name_the_key_and_line(tmp_path, text, message):
    with pytest.raises(ConfigError) as err:
        load(tmp_path, text)
    assert message in str(err.value)
    assert "\n" not in str(err.value)
    assert err.value.exit_code == 2


def test_discovery_order(tmp_path, monkeypatch):
    (tmp_path / "config.yaml").write_text("budget_chars: 1\n")
    other = tmp_path / "other.yaml"
    other.write_text("budget_chars: 2\n")
    cwd = str(tmp_path)
    assert config.discover(None, cwd) == str(tmp_path / "config.yaml")
    monkeypatch.setenv("CTX_CONFIG", str(other))
    assert config.discover(None, cwd) == str(other)
    assert config.discover("config.yaml", cwd) == str(tmp_path / "config.yaml")
    with pytest.raises(ConfigError, match="config file not found: missing.yaml"):
        config.discover("missing.yaml", cwd)
    monkeypatch.delenv("CTX_CONFIG")
    (tmp_path / "config.yaml").unlink()
    assert config.discover(None, cwd) is None


def test_ctx_yaml_is_found_where_a_sites_config_yaml_took_the_name(tmp_path):
    """A Hugo site's config.yaml is passed over; ctx's own config beside it is ctx.yaml. ctx's config.yaml, where
    there is one, comes first."""
    (tmp_path / ".git").mkdir()
    (tmp_path / "config.yaml").write_text("baseURL: /\ntitle: etcd\n")
    (tmp_path / "docs").mkdir()
    assert config.discover(None, str(tmp_path / "docs")) is None
    (tmp_path / "ctx.yaml").write_text("docs: content\n")
    assert config.discover(None, str(tmp_path / "docs")) == str(tmp_path / "ctx.yaml")
    (tmp_path / "docs" / "config.yaml").write_text("budget_chars: 1\n")
    assert config.discover(None, str(tmp_path / "docs")) == str(tmp_path / "docs" / "config.yaml")


def test_an_error_about_a_key_with_a_line_break_is_one_line(tmp_path):
    from context_router.config import load

    cfg = tmp_path / "config.yaml"
    cfg.write_text('tiers: {"\\n": 1}\n', encoding="utf-8")
    with pytest.raises(ConfigError) as err:
        load(str(cfg))
    assert "\n" not in str(err.value) and "tiers.\\n: unknown key" in str(err.value)


@pytest.mark.parametrize("text, message", [
    ("budjet_chars: 100", "config.yaml:1: budjet_chars: unknown key; did you mean budget_chars? (expected one of:"),
    ("tiers: {hot: {treshold: 0.9}}", "tiers.hot.treshold: unknown key; did you mean threshold? (expected one of:"),
    ("semantic:\n  enabeld: false", "config.yaml:2: semantic.enabeld: unknown key; did you mean enabled?"),
])
def test_a_misspelt_key_gets_the_key_it_meant(tmp_path, text, message):
    with pytest.raises(ConfigError) as err:
        load(tmp_path, text)
    assert message in str(err.value) and "\n" not in str(err.value) and err.value.exit_code == 2


def test_a_key_like_none_gets_no_guess(tmp_path):
    with pytest.raises(ConfigError) as err:
        load(tmp_path, "colour: red")
    assert "did you mean" not in str(err.value)


_LETTERS = "abcdefghijklmnopqrstuvwxyz_"


@settings(deadline=None)
@given(key=st.sampled_from(sorted(config.DEFAULTS)), at=st.integers(0, 40), letter=st.sampled_from(_LETTERS),
       edit=st.sampled_from(["drop", "double", "swap", "replace", "insert"]))
def test_one_slip_of_the_finger_is_always_named(key, at, letter, edit):
    i = at % len(key)
    typo = {"drop": key[:i] + key[i + 1:], "double": key[:i] + key[i] + key[i:],
            "swap": key[:i] + key[i + 1:i + 2] + key[i] + key[i + 2:], "replace": key[:i] + letter + key[i + 1:],
            "insert": key[:i] + letter + key[i:]}[edit]
    assume(typo not in config.DEFAULTS)
    with pytest.raises(ConfigError) as err:
        config.normalise({typo: 1})
    assert f"{typo}: unknown key; did you mean {key}? (expected one of:" in str(err.value)


@pytest.mark.parametrize("text, message", [
    ("budget_chars: 100\ntiers: [1, 2\n", "config.yaml:2: invalid YAML: this '[' is never closed (line 3:"),
    ("docs: .\nkeywords: {a.md: [x]\n\n\n# the end\n", "config.yaml:2: invalid YAML: this '{' is never closed"),
    ("docs: 'docs\nbudget_chars: 2\n", "config.yaml:1: invalid YAML: this quote is never closed"),
    ("docs: .\nrelated: {a.md: [b.md}\n", "config.yaml:2: invalid YAML"),
    ("docs: .\n  budget_chars: 2\n", "config.yaml:2: invalid YAML: mapping values are not allowed"),
])
def test_a_yaml_error_names_the_line_to_fix(tmp_path, text, message):
    with pytest.raises(ConfigError) as err:
        load(tmp_path, text)
    assert message in str(err.value) and "\n" not in str(err.value) and err.value.exit_code == 2


def test_ctx_route_names_the_misspelt_key_and_exits_2(ctx, tmp_path):
    (tmp_path / "config.yaml").write_text("docs: .\nbudjet_chars: 9000\n", encoding="utf-8")
    (tmp_path / "a.md").write_text("# A\n", encoding="utf-8")
    res = ctx("route", "a")
    assert res.code == 2 and res.out == ""
    assert res.err.strip().splitlines() == [
        "ctx: error: config.yaml:2: budjet_chars: unknown key; did you mean budget_chars? "
        f"(expected one of: {', '.join(config.DEFAULTS)})"]


@settings(max_examples=100, deadline=None)
@given(st.dictionaries(st.sampled_from([f"d{i}.md" for i in range(60)]), st.lists(st.text(min_size=1), max_size=3)),
       st.lists(st.sampled_from([f"d{i}.md" for i in range(80)]), max_size=120))
def test_a_lazy_part_of_the_config_answers_as_the_whole_and_loads_it_once_when_asked_about_many_docs(entries, asked):
    """The config's keywords and related, as the state keeps them: a turn reads the few docs it asks about; a turn
    that asks about every doc not indexed yet reads the whole once, not one query a doc."""
    loads, lookups = [], []
    lazy = config.Lazy(lambda: loads.append(1) or entries, lambda path: lookups.append(path) or entries.get(path))
    for path in asked:
        assert lazy.get(path, ()) == tuple(entries.get(path, ()))
    assert len(lookups) <= config.Lazy.LOOKUPS and len(loads) <= 1
    assert len(loads) == (len(asked) > config.Lazy.LOOKUPS)
