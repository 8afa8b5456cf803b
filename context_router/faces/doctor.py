"""`ctx doctor`: what ctx finds from here (config, docs, index, watcher, hook) and what to fix. Changes no
session: its test turn is a dry run."""

from __future__ import annotations

import os
import time
from dataclasses import dataclass

from .. import config as config_mod
from ..errors import CtxError
from ..router import TurnRequest, Workspace, refresh, run_turn, with_workspace
from ..store import index
from ..store.state import watch_alive
from . import install

TEST_PROMPT = "what does this project do?"


@dataclass(frozen=True)
class Check:
    level: str  # "ok", "warning" or "error"
    message: str
    fix: str | None = None  # the command (or step) that fixes it


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
    return out


def _workspace_checks(ws: Workspace) -> list[Check]:
    cfg, store = ws.config, ws.store
    out = [Check("ok", f"docs folder: {cfg.docs_root}")]
    try:
        found = index.scan(cfg.docs_root).files
    except CtxError as exc:
        return [*out, Check("error", str(exc), "set `docs:` in the config, or pass --docs")]
    with store.transaction():
        cached = store.listing()
    stale = sum(1 for p, st in found.items() if cached.get(p) != st) + sum(1 for p in cached if p not in found)
    if not found:
        out.append(Check("warning", "no *.md docs in the docs folder", "point `docs:` at your docs"))
    elif not cached:
        out.append(Check("ok", f"index: not built yet; the first turn indexes {len(found):,} docs"))
    elif stale:
        out.append(Check("warning", f"index: {stale} of {len(found)} docs changed since it was built; the next "
                                    "turn reads them", "ctx status (indexes them now)"))
    else:
        out.append(Check("ok", f"index: {len(found)} docs, current"))
    if watch_alive(store.folder):
        out.append(Check("ok", "watcher: `ctx watch` is running; turns trust its index"))
    elif len(found) >= 1000:
        out.append(Check("warning", f"watcher: none, and a turn stats all {len(found):,} docs to notice edits",
                         "ctx watch (beside the editor)"))
    else:
        out.append(Check("ok", "watcher: none (not needed under 1,000 docs)"))
    start = time.perf_counter()
    with store.transaction():
        refresh(ws, seconds=cfg.index_budget_ms / 1000)
    result = run_turn(ws, TurnRequest(TEST_PROMPT, session="doctor", host="claude", dry_run=True))
    elapsed = (time.perf_counter() - start) * 1000
    shown = ", ".join(f"{e.path} ({e.tier})" for e in result.plan.entries[:3]) or "nothing"
    out.append(Check("ok", f"test turn (dry run, hook budget {result.plan.stats.budget:,}): {elapsed:.0f} ms, "
                           f"showed {shown}"))
    return out


def _hook_checks(cwd: str) -> list[Check]:
    out: list[Check] = []
    installed = []
    for where, global_ in (("project", False), ("user", True)):
        path = install.hook_path("claude", install.project_root(cwd), global_)
        try:
            command, others = install.find_hook("claude", path)
            ours = command is not None
        except CtxError as exc:
            out.append(Check("error", str(exc), f"fix or remove {path}"))
            continue
        if ours:
            installed.append(f"{where} ({path})")
        out += [Check("warning", f"another context router's hook is installed in {path}: {other}; both inject "
                                 "context", "ctx hook install claude --replace") for other in others]
    if installed:
        out.append(Check("ok", f"hook: installed for Claude Code in {', '.join(installed)}"))
    else:
        out.append(Check("warning", "hook: not installed for Claude Code", "ctx hook install claude"))
    return out
