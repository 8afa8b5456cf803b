"""`ctx doctor`: what ctx finds from here (config, docs, index, watcher, hook) and what to fix. Changes no
session: its test turn is a dry run."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import time
from dataclasses import dataclass
from typing import Any

from .. import config as config_mod
from ..errors import CtxError
from ..router import TurnRequest, run_turn
from ..store import index
from ..store.state import watch_alive
from ..workspace import Workspace, refresh, with_workspace
from . import hooks, install

TEST_PROMPT = "what does this project do?"


@dataclass(frozen=True)
class Check:
    level: str  # "ok", "note" (worth knowing, no problem), "warning" or "error"
    message: str
    fix: str | None = None  # the command (or step) that fixes it


WATCH_FROM = 1000  # docs from which `ctx doctor` mentions `ctx watch`


def diagnose(cwd: str, config_option: str | None = None, docs_option: str | None = None) -> list[Check]:
    out: list[Check] = []
    try:
        path = config_mod.discover(config_option, cwd)
    except CtxError as exc:
        return [Check("error", str(exc), "pass --config an existing file, or unset $CTX_CONFIG")]
    if path is None:
        out.append(Check("warning", f"no ctx config.yaml from {cwd} up to the repository root: the hook does "
                                    "nothing here, and `ctx route` uses the defaults with this folder as docs",
                         "ctx init DOCS (or ctx init --from-claude-cognitive .claude/keywords.json)"))
    else:
        why = "from --config or $CTX_CONFIG" if (config_option or os.environ.get(config_mod.ENV_CONFIG)) else \
            f"the nearest one from {cwd}"
        out.append(Check("ok", f"config: {path} ({why})"))
    try:
        out += with_workspace(_workspace_checks, config_option, docs_option, cwd, create=False)
    except CtxError as exc:
        out.append(Check("error", str(exc), "ctx check (names the key and line)"))
        return out
    out += _hook_checks(cwd)
    out += _mcp_checks(cwd)
    return out


def _workspace_checks(ws: Workspace) -> list[Check]:
    cfg, store = ws.config, ws.store
    try:
        found = index.scan(cfg.docs_root).files
    except CtxError as exc:  # the folder is named here, once, as the problem it is
        return [Check("error", str(exc), "set `docs:` in the config, or pass --docs")]
    out = [Check("ok", f"docs folder: {cfg.docs_root}")]
    with store.transaction():
        cached = store.listing()
        indexed = store.doc_count()
    stale = sum(1 for p, st in found.items() if cached.get(p) != st) + sum(1 for p in cached if p not in found)
    # The index also lists the files it skipped (binary or unreadable .md), so each is sniffed once: they are
    # no docs, and `ctx status` does not count them either.
    skipped = f" ({len(cached) - indexed:,} .md files skipped: binary or unreadable)" if len(cached) > indexed else ""
    if not found:
        out.append(Check("warning", "no *.md docs in the docs folder", "point `docs:` at your docs"))
    elif not cached:
        out.append(Check("ok", f"index: not built yet; the first turn indexes {len(found):,} files"))
    elif stale:
        out.append(Check("warning", f"index: {stale} of {len(found)} files changed since it was built; the "
                                    f"next turn reads them", "ctx status (indexes them now)"))
    else:
        out.append(Check("ok", f"index: {indexed:,} docs, current{skipped}"))
    if watch_alive(store.folder):
        out.append(Check("ok", "watcher: `ctx watch` is running; turns trust its index"))
    elif len(found) >= WATCH_FROM:
        # A note, not a problem: the hook's resident server observes the folder between turns, and a turn that
        # stats 10,000 docs is as fast as one that trusts a watcher (docs/performance.md). Tried as a new user
        # would on a load tester's docs (1,032), `ctx doctor` found "1 problem" in a sound setup.
        out.append(Check("note", f"watcher: none; a hook turn's resident server observes the docs between turns, "
                                 f"other turns stat all {len(found):,} docs to notice edits",
                         "ctx watch (beside the editor) keeps the index current for every turn"))
    else:
        out.append(Check("ok", f"watcher: none (not needed under {WATCH_FROM:,} docs)"))
    start = time.perf_counter()
    with store.transaction():
        refresh(ws, seconds=cfg.index_budget_ms / 1000)
    result = run_turn(ws, TurnRequest(TEST_PROMPT, session="doctor", host="claude", dry_run=True))
    elapsed = (time.perf_counter() - start) * 1000
    shown = ", ".join(f"{e.path} ({e.tier})" for e in result.plan.entries[:3]) or "nothing"
    # The prompt is said: tried as a new user would, "showed community/project-management.md (HOT)" read as a
    # wrong answer to a question nobody had asked.
    out.append(Check("ok", f"test turn (dry run, hook budget {result.plan.stats.budget:,}): \"{TEST_PROMPT}\" "
                           f"in {elapsed:.0f} ms showed {shown}"))
    return out


def _hook_checks(cwd: str) -> list[Check]:
    """Each host's hook that is installed here (and Claude Code's user-level one), tried once as the host runs
    it; one warning when no host has it."""
    out: list[Check] = []
    root = install.project_root(cwd)
    places = [(host, path) for host in install.HOOK_HOSTS for path in install.hook_paths(host, root)]
    places.insert(2, ("claude", install.hook_path("claude", root, global_=True)))
    found = False
    for host, path in places:
        name = install.HOST_NAMES[host]
        try:
            command, others = install.find_hook(host, path)
        except CtxError as exc:
            out.append(Check("error", str(exc), f"fix or remove {path}"))
            continue
        out += [Check("warning", f"another context router's hook is installed in {path}: {other}; both inject "
                                 f"context", f"ctx hook install {host} --replace") for other in others]
        if command is None:
            continue
        found = True
        if host == "cline" and not os.access(path, os.X_OK):
            out.append(Check("error", f"hook for {name} in {path} is not executable: Cline passes it over",
                             f"chmod +x {shlex.quote(path)}"))
            continue
        level, detail = probe_hook(host, command, path, root)
        fix = None if level == "ok" else f"ctx hook install {host} (writes a command that runs whatever the PATH)"
        out.append(Check(level, f"hook: installed for {name} in {path}; {detail}", fix))
        out += _trust_checks(host, path, root)
    if not found:
        # A note, not a problem: `ctx route` piped into a prompt, or over MCP, needs no hook.
        out.append(Check("note", "hook: not installed for Claude Code, Gemini CLI, Codex CLI or Cline",
                         "ctx hook install claude (or gemini, codex, cline)"))
    else:
        out.append(_server_check())
    return out


def _server_check() -> Check:
    from . import serve

    if not serve.enabled():
        return Check("ok", "hook server: off ($CTX_SERVE=0 here): every hook turn runs in its own process")
    pid = serve.running()
    if pid is None:
        return Check("ok", "hook server: not running; the next hook turn starts it (`ctx serve`)")
    return Check("ok", f"hook server: running (pid {pid}), answering this ctx's hook turns; `ctx serve --stop`")


def _trust_checks(host: str, path: str, root: str) -> list[Check]:
    """Whether the host will run the hook at all: one it would skip is an error, with the one step that fixes
    it."""
    from . import trust

    if host not in ("codex", "gemini"):
        return []
    try:
        verdict = trust.codex_verdict(root, path) if host == "codex" else trust.gemini_verdict(root)
    except CtxError as exc:
        return [Check("warning", f"hook: cannot tell whether {install.HOST_NAMES[host]} trusts it: {exc}")]
    if verdict.runs is None:  # nothing says it is skipped
        unknown = f"whether {install.HOST_NAMES[host]} trusts it cannot be told here"
        return [Check("ok", f"hook: {verdict.why or unknown}")]
    if verdict.runs:
        return [Check("ok", f"hook: {install.HOST_NAMES[host]} trusts it")]
    return [Check("error", f"hook: {verdict.why}", verdict.fix)]


def _mcp_checks(cwd: str) -> list[Check]:
    """Each host's MCP entry for ctx that is here, its server started once."""
    out: list[Check] = []
    root = install.project_root(cwd)
    tried: dict[tuple[str, ...], tuple[str, str]] = {}
    for host in install.MCP_HOSTS:
        path = install.mcp_path(host, root)
        try:
            argv = install.find_mcp(host, root)
        except CtxError as exc:
            out.append(Check("error", str(exc), f"fix or remove {path}"))
            continue
        if argv is None:
            continue
        if tuple(argv) not in tried:
            tried[tuple(argv)] = probe_mcp(argv, root)
        level, detail = tried[tuple(argv)]
        missing = install.mcp_sdk_missing() if level != "ok" else None
        fix = missing or f"ctx mcp install {host} (writes a command that runs whatever the PATH)"
        out.append(Check(level, f"MCP server: in {path} for {install.HOST_NAMES[host]}; {detail}",
                         None if level == "ok" else fix))
    return out


# -- trying what is installed, as the host would run it ------------------------------------------------------

PROBE_TIMEOUT_S = 20


def probe_env(host: str | None, project: str, **extra: str) -> dict[str, str]:
    """A minimal environment: HOME, the stable folders as PATH (not this shell's: an editor started elsewhere
    has none of its virtual environment), and the project folder a host names."""
    # CTX_SERVE=0: the probe runs the turn in its own process and leaves no resident server behind
    env = {"PATH": os.pathsep.join(install.stable_path()), "HOME": os.path.expanduser("~"), "CTX_SERVE": "0",
           **extra}
    project_env = hooks.PROJECT_ENV.get(host or "")
    if project_env:
        env[project_env] = project
    return env


def sample_payload(host: str, project: str, prompt: str = TEST_PROMPT) -> bytes:
    """A prompt event shaped as the host sends it."""
    stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    base = {"session_id": "ctx-doctor", "transcript_path": None, "cwd": project}
    shapes: dict[str, dict[str, Any]] = {
        "claude": {**base, "permission_mode": "default", "hook_event_name": "UserPromptSubmit", "prompt": prompt},
        "gemini": {**base, "hook_event_name": "BeforeAgent", "timestamp": stamp, "prompt": prompt},
        "codex": {**base, "turn_id": "ctx-doctor-1", "hook_event_name": "UserPromptSubmit", "model": "",
                  "permission_mode": "default", "prompt": prompt},
        "cline": {"clineVersion": "", "hookName": "UserPromptSubmit", "timestamp": stamp, "taskId": "ctx-doctor",
                  "workspaceRoots": [project], "userId": "", "userPromptSubmit": {"prompt": prompt,
                                                                                  "attachments": []}},
    }
    return json.dumps(shapes[host]).encode()


def probe_hook(host: str, command: str, path: str, project: str) -> tuple[str, str]:
    """(level, what happened) when the installed hook runs as the host runs it (through the shell, or Cline's
    file itself), from the project folder, with a minimal environment and a sample prompt, as a dry run."""
    argv = [path, "--dry-run"] if host == "cline" else ["/bin/sh", "-c", f"{command} --dry-run"]
    start = time.perf_counter()
    try:
        res = subprocess.run(argv, input=sample_payload(host, project), capture_output=True, cwd=project,
                             env=probe_env(host, project), timeout=PROBE_TIMEOUT_S)
    except OSError as exc:
        return "error", f"it cannot run: {exc.strerror}"
    except subprocess.TimeoutExpired:
        return "error", f"it did not answer within {PROBE_TIMEOUT_S} s"
    elapsed = (time.perf_counter() - start) * 1000
    said = [line for line in res.stderr.decode("utf-8", "replace").splitlines()
            if line.strip() and not line.startswith("ctx: note:")]
    if res.returncode != 0:
        return "error", f"run outside this shell it fails (exit {res.returncode}" + \
            (f": {said[-1].strip()})" if said else ")")
    answer = res.stdout.decode("utf-8", "replace").strip()
    if answer and not _host_json(host, answer):
        return "error", f"its answer is not {install.HOST_NAMES[host]}'s JSON: {answer[:80]!r}"
    if said:
        return "warning", f"run outside this shell it says: {said[-1].strip()}"
    return "ok", f"run outside this shell it answered in {elapsed:.0f} ms"


def _host_json(host: str, answer: str) -> bool:
    try:
        data = json.loads(answer)
    except ValueError:
        return False
    if host == "cline":
        return isinstance(data, dict) and data.get("cancel") is False
    inner = data.get("hookSpecificOutput") if isinstance(data, dict) else None
    return isinstance(inner, dict) and isinstance(inner.get("additionalContext"), str)


def probe_mcp(argv: list[str], project: str) -> tuple[str, str]:
    """(level, what happened) when the host starts the server: from the project folder, with a minimal
    environment and a throwaway state, asked to initialise once."""
    import select
    import tempfile

    request = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
               "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                          "clientInfo": {"name": "ctx-doctor", "version": "1"}}}
    start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="ctx-doctor-") as tmp:
        env = probe_env(None, project, CTX_STATE=os.path.join(tmp, "state.db"))
        try:
            proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                    cwd=project, env=env)
        except OSError as exc:
            return "error", f"`{install.shell_words(argv)}` cannot start outside this shell: {exc.strerror} " \
                            f"(PATH={env['PATH']})"
        assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
        line = b""
        try:
            proc.stdin.write(json.dumps(request).encode() + b"\n")
            proc.stdin.flush()
            if select.select([proc.stdout], [], [], PROBE_TIMEOUT_S)[0]:
                line = proc.stdout.readline()
        except OSError:
            pass  # it ended before reading: its stderr says why
        finally:
            try:
                proc.stdin.close()
            except OSError:
                pass
            try:
                proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        said = [s for s in proc.stderr.read().decode("utf-8", "replace").splitlines() if s.strip()]
    elapsed = (time.perf_counter() - start) * 1000
    try:
        reply = json.loads(line) if line else None
    except ValueError:
        reply = None
    if isinstance(reply, dict) and isinstance(reply.get("result"), dict):
        return "ok", f"`{install.shell_words(argv)}` started and answered in {elapsed:.0f} ms"
    why = said[-1].strip() if said else f"exit {proc.returncode}" if proc.returncode else "no answer"
    return "error", f"`{install.shell_words(argv)}` did not start: {why}"
