"""The real clients, pinned, installed with npm into the session's temp folder, each run in its non-interactive
mode with a fresh HOME against the loopback model server, on a project made of docs-sample with ctx's hooks
installed by `ctx hook install`. Skipped without node and npm, or when npm cannot install (no network).

    python -m pytest tests/e2e --e2e -v        # CTX_E2E_NPM=FOLDER keeps the npm installs between runs
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from ..conftest import REPO, SAMPLE_CONFIG, SAMPLE_DOCS
from .model_server import ModelServer

CLIENTS = {"claude": "@anthropic-ai/claude-code@2.1.337", "gemini": "@google/gemini-cli@0.61.0",
           "codex": "@openai/codex@0.171.0"}
NPM_TIMEOUT_S = 900
RUN_TIMEOUT_S = 180
MARK = "The RTX 4090 throttles above 83 C; the rack fan curve was raised in March."
BOX = "ATTENTION STATE"
ALREADY = "the whole doc is already in this conversation"
PROMPT = "is the gpu on lighthouse throttling?"
VERSIONS: dict[str, str] = {}
HOOK_MS: dict[str, list[float]] = {}
CTX = str(Path(sys.executable).parent / "ctx")
TIMED = Path(__file__).with_name("timed_hook.py")


def pytest_terminal_summary(terminalreporter: Any) -> None:
    if VERSIONS:
        terminalreporter.write_line("client versions: " + ", ".join(f"{k} {v}" for k, v in VERSIONS.items()))
    for client, ms in HOOK_MS.items():
        terminalreporter.write_line(f"{client}: ctx's hook added {statistics.median(ms):.0f} ms a call (median of "
                                    f"{len(ms)}, min {min(ms):.0f}, max {max(ms):.0f}), measured inside the client")


@pytest.fixture(scope="session")
def npm_bin(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if shutil.which("node") is None or shutil.which("npm") is None:
        pytest.skip("node and npm are not on PATH: the real clients are not run")
    prefix = Path(os.environ.get("CTX_E2E_NPM") or tmp_path_factory.mktemp("npm"))
    bin_dir = prefix / "node_modules" / ".bin"
    home = prefix / "npm-home"  # npm's cache and config stay in the temp folder too
    home.mkdir(parents=True, exist_ok=True)
    if not all(_runs(bin_dir / c, home) for c in CLIENTS):  # an install stopped half way leaves a stub behind
        res = subprocess.run(["npm", "install", "--prefix", str(prefix), "--no-fund", "--no-audit", "--no-save",
                              "--fetch-retries", "1", "--fetch-timeout", "60000",
                              *CLIENTS.values()], capture_output=True, text=True, timeout=NPM_TIMEOUT_S,
                             env={**os.environ, "HOME": str(home), "npm_config_cache": str(home / "cache")})
        if res.returncode != 0:
            lines = res.stderr.strip().splitlines() or ["?"]
            why = next((line for line in lines if " code " in line or "errno" in line.lower()), lines[0])
            pytest.skip(f"npm could not install the clients (no network?): {why}")
        broken = [c for c in CLIENTS if not _runs(bin_dir / c, home)]
        if broken:
            pytest.skip(f"npm installed {', '.join(broken)} without a program that runs (a native package left out?)")
    return bin_dir


def _runs(program: Path, home: Path) -> bool:
    """Whether the installed client starts: `--version` exits 0 (with the temp folder as HOME)."""
    try:
        return subprocess.run([str(program), "--version"], capture_output=True, timeout=60,
                              env={**os.environ, "HOME": str(home)}).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


@pytest.fixture(scope="session")
def server() -> Iterator[ModelServer]:
    with ModelServer() as srv:
        yield srv


@dataclass
class Turn:
    code: int
    out: str
    err: str
    requests: list[dict[str, Any]]
    model: list[dict[str, Any]]  # the requests for the conversation's model (not counting, not routing)

    @property
    def last(self) -> dict[str, Any]:
        return self.model[-1]["body"] if self.model else {}


MODEL_PATHS = {"claude": "/v1/messages", "gemini": "streamGenerateContent", "codex": "/v1/responses"}


@dataclass
class World:
    """A fresh HOME and project, the clients on PATH, the model server as API and proxy."""

    root: Path
    server: ModelServer
    npm_bin: Path
    home: Path = field(init=False)
    project: Path = field(init=False)

    def __post_init__(self) -> None:
        self.home = self.root / "home"
        self.project = self.root / "project"
        (self.home / ".gemini").mkdir(parents=True)
        (self.home / ".codex").mkdir(parents=True)
        (self.home / ".gemini" / "settings.json").write_text(json.dumps({
            "security": {"auth": {"selectedType": "gemini-api-key"}}, "privacy": {"usageStatisticsEnabled": False},
            "telemetry": {"enabled": False}, "general": {"enableAutoUpdate": False,
                                                         "enableAutoUpdateNotification": False}}))
        (self.home / ".codex" / "config.toml").write_text(
            'model = "fake-model"\nmodel_provider = "fake"\ncheck_for_update_on_startup = false\n\n'
            f'[model_providers.fake]\nname = "fake"\nbase_url = "{self.server.url}/v1"\nwire_api = "responses"\n'
            'env_key = "FAKE_OPENAI_KEY"\n\n[analytics]\nenabled = false\n')
        shutil.copytree(SAMPLE_DOCS, self.project / "docs-sample")
        shutil.copy(SAMPLE_CONFIG, self.project / "config.yaml")
        subprocess.run(["git", "init", "-q", str(self.project)], check=True, env=self.env())

    def env(self, **extra: str) -> dict[str, str]:
        keep = {k: v for k, v in os.environ.items()
                if not k.startswith(("ANTHROPIC", "GEMINI", "GOOGLE", "OPENAI", "CODEX", "CLAUDE", "CTX_"))}
        proxy = self.server.url  # anything else a client reaches for is refused, not sent out
        return {**keep, "HOME": str(self.home), "PATH": f"{Path(CTX).parent}{os.pathsep}{self.npm_bin}{os.pathsep}"
                f"{os.environ.get('PATH', '/usr/bin:/bin')}",
                "HTTPS_PROXY": proxy, "HTTP_PROXY": proxy, "https_proxy": proxy, "http_proxy": proxy,
                "NO_PROXY": "127.0.0.1,localhost", "no_proxy": "127.0.0.1,localhost", "NO_COLOR": "1", "CI": "1",
                "ANTHROPIC_BASE_URL": self.server.url, "ANTHROPIC_API_KEY": "sk-ant-test",
                "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "DISABLE_AUTOUPDATER": "1",
                "DISABLE_TELEMETRY": "1", "DISABLE_ERROR_REPORTING": "1",
                "GEMINI_API_KEY": "test-key", "GOOGLE_GEMINI_BASE_URL": self.server.url,
                "FAKE_OPENAI_KEY": "sk-test", "CTX_E2E_TIMES": str(self.root / "hook-times.jsonl"),
                # the hook's resident server, started by the clients' first hook turn, keeps its socket here
                "CTX_SERVE_DIR": str(self.root / "serve"), **extra}

    def stop_server(self) -> None:
        """Stop the resident server the clients' hook turns started, by its own pid."""
        for pid_file in (self.root / "serve").glob("serve-*.pid"):
            try:
                os.kill(int(pid_file.read_text()), signal.SIGTERM)
            except (OSError, ValueError):
                pass

    def run(self, client: str, argv: list[str], **extra: str) -> Turn:
        """One client run, stopped by its process group's id if it outlives the timeout."""
        n = len(self.server.requests)
        proc = subprocess.Popen(argv, cwd=self.project, env=self.env(**extra), stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
        try:
            out, err = proc.communicate(timeout=RUN_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            out, err = proc.communicate()
            pytest.fail(f"{argv[0]} did not finish in {RUN_TIMEOUT_S} s: {err[-400:]}")
        finally:
            try:  # what the client left running (a hook, a helper) goes with it
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        time.sleep(0.1)
        requests = self.server.since(n)
        model = [r for r in requests if MODEL_PATHS[client] in r["path"]]
        return Turn(proc.returncode, out, err, requests, model)

    def ctx(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([CTX, *args], cwd=self.project, env=self.env(), capture_output=True, text=True,
                              timeout=RUN_TIMEOUT_S)

    def version(self, client: str) -> str:
        res = subprocess.run([str(self.npm_bin / client), "--version"], env=self.env(), capture_output=True,
                             text=True, timeout=60)
        return (res.stdout.strip() or res.stderr.strip()).splitlines()[-1]

    def timed(self, client: str) -> None:
        """Have the installed hooks record how long each ctx call takes, as the client runs it."""
        for name in (".claude/settings.local.json", ".claude/settings.json", ".gemini/settings.json",
                     ".codex/hooks.json"):
            path = self.project / name
            if path.exists():
                text = path.read_text().replace(f'"{CTX} hook ', f'"{sys.executable} {TIMED} {CTX} hook ')
                path.write_text(text)

    def hook_times(self) -> list[float]:
        path = self.root / "hook-times.jsonl"
        return [json.loads(line)["ms"] for line in path.read_text().splitlines()] if path.exists() else []


@pytest.fixture
def world(tmp_path: Path, server: ModelServer, npm_bin: Path) -> Iterator[World]:
    server.usage = 50
    made = World(tmp_path, server, npm_bin)
    try:
        yield made
    finally:
        made.stop_server()


def walk(obj: Any) -> Iterator[str]:
    if isinstance(obj, dict):
        for value in obj.values():
            yield from walk(value)
    elif isinstance(obj, list):
        for value in obj:
            yield from walk(value)
    elif isinstance(obj, str):
        yield obj


def count(body: Any, needle: str) -> int:
    return sum(s.count(needle) for s in walk(body))


def record_version(world: World, client: str) -> None:
    VERSIONS.setdefault(client, world.version(client))
    print(f"{client} {VERSIONS[client]}")


__all__ = ["ALREADY", "BOX", "HOOK_MS", "MARK", "PROMPT", "REPO", "Turn", "World", "count", "record_version"]
