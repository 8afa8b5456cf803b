"""Shared fixtures: state always under tmp_path, a private copy of docs-sample per test."""

from __future__ import annotations

import io
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from context_router.entry import main
from context_router.faces.install import hook_command, portable

REPO = Path(__file__).resolve().parents[1]
# Where `ctx hook install claude` writes this ctx's command: the shared settings when it is the `ctx` every shell
# finds, else (a virtual environment's, as in a checkout) the local ones.
CLAUDE_SETTINGS = ".claude/settings.json" if portable(hook_command("claude")) else ".claude/settings.local.json"
SAMPLE_DOCS = REPO / "docs-sample"
SAMPLE_CONFIG = REPO / "config.yaml"


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--e2e", action="store_true", help="also run tests/e2e: the real clients (node and npm)")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if config.getoption("--e2e"):
        return
    skip = pytest.mark.skip(reason="the real clients run with --e2e (python -m pytest tests/e2e --e2e)")
    for item in items:
        if item.nodeid.startswith("tests/e2e/"):
            item.add_marker(skip)


@pytest.fixture(autouse=True)
def isolated_state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    state = tmp_path / "state" / "state.db"
    monkeypatch.setenv("CTX_STATE", str(state))
    monkeypatch.setenv("CTX_SERVE", "0")  # every hook turn in its own process, unless a test starts a server
    for name in ("CTX_CONFIG", "CTX_SESSION", "CODEX_HOME", "GEMINI_CLI_TRUSTED_FOLDERS_PATH",
                 "GEMINI_CLI_TRUST_WORKSPACE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))  # the hosts' user files (trusted folders) are the test's
    monkeypatch.chdir(tmp_path)
    return state


@pytest.fixture
def sample(tmp_path: Path) -> Path:
    """A copy of docs-sample and its config (without the rate limit); returns the config path."""
    root = tmp_path / "project"
    shutil.copytree(SAMPLE_DOCS, root / "docs-sample")
    text = SAMPLE_CONFIG.read_text(encoding="utf-8") + "rate_limit: {turns_per_minute: 0}\n"
    (root / "config.yaml").write_text(text, encoding="utf-8")
    return root / "config.yaml"


@dataclass
class Result:
    code: int
    out: str
    err: str


@pytest.fixture
def ctx(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch):
    """Run the `ctx` entry point in-process: ctx("route", "prompt", stdin=b"...") -> Result."""

    def run(*args: str, stdin: bytes = b"") -> Result:
        capsys.readouterr()
        fake = io.TextIOWrapper(io.BytesIO(stdin), encoding="utf-8")
        monkeypatch.setattr(sys, "stdin", fake)
        code = main(list(args))
        captured = capsys.readouterr()
        return Result(code, captured.out, captured.err)

    return run


def write_docs(root: Path, docs: dict[str, str]) -> None:
    for rel, text in docs.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
