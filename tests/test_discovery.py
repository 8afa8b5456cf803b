"""Finding the project: the config from the working folder up to the repository root, other tools' configs
passed over, a hook with no config out of the way, and a state folder that git ignores."""

from __future__ import annotations

import json
from pathlib import Path

from .conftest import write_docs
from .test_hooks import hook, payload


def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    write_docs(root / "docs", {"systems/harbor.md": "# Harbor\n\nThe ingest host.\n"})
    (root / "config.yaml").write_text("docs: docs\nrate_limit: {turns_per_minute: 0}\n", encoding="utf-8")
    (root / "src" / "app").mkdir(parents=True)
    return root


def test_a_subfolder_finds_the_projects_config(ctx, tmp_path, monkeypatch):
    root = repo(tmp_path)
    monkeypatch.chdir(root / "src" / "app")
    assert "HOT] systems/harbor.md" in ctx("route", "harbor").out
    assert "turn 1" in ctx("explain", "systems/harbor.md").out


def test_another_tools_config_yaml_is_passed_over(ctx, tmp_path, monkeypatch):
    root = repo(tmp_path)
    (root / "src" / "config.yaml").write_text("title: My site\ntheme: minimal\n", encoding="utf-8")
    monkeypatch.chdir(root / "src")
    res = ctx("route", "harbor")
    assert res.code == 0 and "HOT] systems/harbor.md" in res.out


def test_the_search_stops_at_the_repository_root(ctx, tmp_path, monkeypatch):
    root = repo(tmp_path)
    inner = root / "vendor" / "lib"
    (inner / ".git").mkdir(parents=True)
    write_docs(inner, {"x.md": "# X\n"})
    monkeypatch.chdir(inner)
    res = ctx("route", "harbor")  # the inner repository has no config: the defaults, its own folder's docs
    assert res.code == 0 and "harbor" not in res.out


def test_a_hook_turn_from_a_subfolder_routes_with_the_projects_config(tmp_path):
    root = repo(tmp_path)
    code, out, err = hook("claude", payload("is harbor up?", root / "src" / "app"))
    assert (code, err) == (0, "") and "systems/harbor.md" in json.loads(out)["hookSpecificOutput"]["additionalContext"]


def test_a_hook_with_no_config_does_nothing_and_leaves_nothing(tmp_path, monkeypatch):
    monkeypatch.delenv("CTX_STATE")
    project = tmp_path / "plain"
    (project / ".git").mkdir(parents=True)
    write_docs(project, {"notes.md": "# Notes\n\nharbor\n"})
    assert hook("claude", payload("harbor", project)) == (0, "", "")
    assert not (project / ".ctx").exists()


def test_claude_project_dir_is_where_the_hook_looks_next(tmp_path, monkeypatch):
    root = repo(tmp_path)
    elsewhere = tmp_path / "elsewhere"
    (elsewhere / ".git").mkdir(parents=True)
    monkeypatch.setenv("CLAUDE_PROJECT_DIR", str(root))
    code, out, _ = hook("claude", payload("harbor", elsewhere))
    assert code == 0 and "systems/harbor.md" in out


def test_the_state_folder_ignores_itself(ctx, tmp_path, monkeypatch):
    monkeypatch.delenv("CTX_STATE")
    root = repo(tmp_path)
    monkeypatch.chdir(root)
    assert ctx("route", "harbor").code == 0
    assert (root / ".ctx" / ".gitignore").read_text() == "*\n"


def test_a_config_in_flow_style_is_ctx_config(ctx, tmp_path, monkeypatch):
    root = repo(tmp_path)
    (root / "config.yaml").write_text(
        '{"docs": "docs", "keywords": {"systems/harbor.md": ["ingest box"]}, "rate_limit": {"turns_per_minute": 0}}\n',
        encoding="utf-8")
    code, out, err = hook("claude", payload("is the ingest box up?", root / "src" / "app"))
    assert (code, err) == (0, "") and "HOT] systems/harbor.md" in json.loads(out)["hookSpecificOutput"][
        "additionalContext"]
    (root / "config.yaml").write_text("# ctx\n---\n{docs: docs,\n  keywords: {systems/harbor.md: [ingest box]}}\n",
                                      encoding="utf-8")
    monkeypatch.chdir(root / "src")
    assert "HOT] systems/harbor.md" in ctx("route", "the ingest box").out


def test_another_tools_config_in_flow_style_is_passed_over(ctx, tmp_path, monkeypatch):
    root = repo(tmp_path)
    for text in ('{"title": "My site", "theme": {"docs": "x"}}\n', '{\n  "title": "a: b",\n  "theme": "minimal"\n}\n'):
        (root / "src" / "config.yaml").write_text(text, encoding="utf-8")
        monkeypatch.chdir(root / "src")
        res = ctx("route", "harbor")
        assert res.code == 0 and "HOT] systems/harbor.md" in res.out, text
