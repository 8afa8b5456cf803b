"""Host adapters: run one turn for an editor hook, and install the hook into the host's settings.

A hook runs before every prompt, so it never fails the prompt: whatever goes wrong, it prints nothing on
stdout, one line on stderr and exits 0 (for Claude Code, exit 2 would block the user's prompt). It imports
only what a turn needs; see router.py.
"""

from __future__ import annotations

import os
import sys

from ..errors import CtxError, InputError
from ..store.files import write_atomic

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, BinaryIO, TextIO

ENV_SESSION = "CTX_SESSION"
MAX_SESSION_CHARS = 200
HOOK_COMMAND = "ctx hook claude"


def _options(args: list[str]) -> dict[str, str]:
    """The few options a hook takes (--config, --session, --docs), parsed without typer for speed."""
    out: dict[str, str] = {}
    it = iter(args)
    for arg in it:
        name, _, value = arg.partition("=")
        if name not in ("--config", "--session", "--docs"):
            raise InputError(f"unknown hook option {arg!r}")
        if not value:
            value = next(it, "")
            if not value:
                raise InputError(f"{name} needs a value")
        out[name[2:]] = value
    return out


def parse_claude_payload(raw: bytes) -> tuple[str, str | None, str | None]:
    """(prompt, session_id, cwd) from Claude Code's UserPromptSubmit JSON; InputError when it is unusable."""
    from .. import fastjson

    try:
        data = fastjson.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise InputError("hook input is not UTF-8 text") from None
    except ValueError as exc:  # json.JSONDecodeError included
        raise InputError(f"hook input is not valid JSON ({exc})") from None
    if not isinstance(data, dict):
        raise InputError("hook input is not a JSON object")
    prompt = data.get("prompt")
    if not isinstance(prompt, str):
        raise InputError("hook input has no string 'prompt'")
    prompt = _valid_text(prompt)
    session = data.get("session_id")
    cwd = data.get("cwd")
    return (prompt, _valid_text(session[:MAX_SESSION_CHARS]) if isinstance(session, str) and session else None,
            cwd if isinstance(cwd, str) and cwd else None)


FORGET_SOURCES = ("compact", "clear")  # SessionStart sources after which the conversation holds nothing ctx sent


def claude_forget_event(raw: bytes) -> tuple[bool, str | None, str | None] | None:
    """For Claude Code's SessionStart and PostCompact events: (whether the conversation lost what ctx sent it,
    session_id, cwd); None for any other payload (a prompt). A resumed or started conversation keeps what it
    holds; a compacted or cleared one does not."""
    if b"hook_event_name" not in raw:
        return None
    from .. import fastjson

    try:
        data = fastjson.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("hook_event_name") not in ("SessionStart", "PostCompact"):
        return None
    session, cwd = data.get("session_id"), data.get("cwd")
    lost = data["hook_event_name"] == "PostCompact" or data.get("source") in FORGET_SOURCES
    return (lost, _valid_text(session[:MAX_SESSION_CHARS]) if isinstance(session, str) and session else None,
            cwd if isinstance(cwd, str) and cwd else None)


def _valid_text(text: str) -> str:
    """JSON may carry lone surrogates (\\ud800), which cannot be stored or printed: replace them."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8", "replace").decode("utf-8")
    return text


ENV_PROJECT = "CLAUDE_PROJECT_DIR"


def find_project(workdir: str, opts: dict[str, str]) -> tuple[str, str | None, bool] | None:
    """(the folder a hook turn runs from, the config to use, whether the user chose it): the config found from
    the hook's cwd up, else from Claude Code's project folder; None when there is none and the user set no
    default (--config, --docs, $CTX_CONFIG). Found once, then handed to the turn."""
    from ..config import ENV_CONFIG, discover

    if opts.get("config") or opts.get("docs") or os.environ.get(ENV_CONFIG):
        return workdir, opts.get("config"), True
    project = os.environ.get(ENV_PROJECT)
    for folder in (workdir, project if project and os.path.isdir(project) else None):
        found = discover(None, folder) if folder is not None else None
        if found is not None and folder is not None:
            return folder, found, False
    return None


def claude_output(context: str) -> str:
    from ..fastjson import dumps_str

    return ('{"hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext": '
            f"{dumps_str(context)}}}}}")


def run_hook(host: str, args: list[str], stdin: BinaryIO | None = None, stdout: TextIO | None = None,
             stderr: TextIO | None = None) -> int:
    """`ctx hook claude|plain`: always exit 0; context on stdout, or nothing; problems as one stderr line.

    A closed stream is None in sys: no input is an empty prompt, no stdout means nothing to answer, no stderr
    means problems go unsaid; none of them is a traceback."""
    stdin = stdin or (sys.stdin.buffer if sys.stdin is not None else None)
    stdout = stdout or sys.stdout
    stderr = stderr or sys.stderr
    if stdin is None or stdout is None:
        return 0

    def warn(message: str) -> None:
        if stderr is not None:
            try:
                print(f"ctx: {message}", file=stderr)
            except (OSError, ValueError):
                pass  # stderr went away: the answer on stdout is all that matters

    try:
        opts = _options(args)
        raw = stdin.read()
        event = claude_forget_event(raw) if host == "claude" else None
        if event is not None:
            _forget(event, opts, warn)
            return 0  # SessionStart and PostCompact add nothing to the conversation
        if host == "claude":
            prompt, session_id, cwd = parse_claude_payload(raw)
        else:
            try:
                prompt, session_id, cwd = raw.decode("utf-8"), None, None
            except UnicodeDecodeError:
                raise InputError("hook input is not UTF-8 text") from None
        if not prompt.strip():
            return 0  # an empty prompt does not advance the turn and shows nothing
        session = opts.get("session") or os.environ.get(ENV_SESSION) or session_id or "default"
        from ..router import TurnRequest, route

        workdir = cwd or os.getcwd()
        if not os.path.isdir(workdir):
            raise InputError(f"hook cwd is not a folder: {cwd}")
        project = find_project(workdir, opts)
        if project is None:
            return 0  # no ctx config for this project: the hook stays out of the way (`ctx doctor` says why)
        folder, config, chosen = project
        result = route(TurnRequest(prompt, session=session, host=host, contained=not chosen), config,
                       opts.get("docs"), folder, warn)
        for notice in result.notices:
            warn(notice)
        if result.text:
            stdout.write(claude_output(result.text) if host == "claude" else result.text)
            stdout.flush()
    except CtxError as exc:
        warn(str(exc))
    except Exception as exc:  # the prompt must go through whatever happened
        warn(f"internal error: {type(exc).__name__}: {exc}")
    return 0


def _forget(event: tuple[bool, str | None, str | None], opts: dict[str, str], warn: Any) -> None:
    """The conversation was compacted or cleared: forget what this session was sent, so the next turn sends
    what it needs again."""
    lost, session_id, cwd = event
    if not lost:
        return
    workdir = cwd or os.getcwd()
    project = find_project(workdir, opts) if os.path.isdir(workdir) else None
    if project is None:
        return
    from ..router import forget_sent, with_workspace

    session = opts.get("session") or os.environ.get(ENV_SESSION) or session_id or "default"
    folder, config, _ = project
    with_workspace(lambda ws: forget_sent(ws, session), config, opts.get("docs"), folder, warn)


# -- installer -----------------------------------------------------------------------------------------------


def settings_path(project: str, global_: bool) -> str:
    base = os.path.expanduser("~") if global_ else project
    return os.path.normpath(os.path.join(base, ".claude", "settings.json"))


def _load_settings(path: str) -> dict[str, Any]:
    import json

    if not os.path.exists(path):
        return {}
    try:
        with open(path, encoding="utf-8") as fh:
            data = json.loads(fh.read() or "{}")
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise InputError(f"cannot read {path}: {exc}") from None
    if not isinstance(data, dict):
        raise InputError(f"{path} does not hold a JSON object")
    return data


def _is_ours(hook: Any) -> bool:
    """Our entry: `ctx hook claude`, or the same with the path of a ctx that is not on PATH."""
    if not isinstance(hook, dict) or not isinstance(hook.get("command"), str):
        return False
    import shlex

    try:
        words = shlex.split(hook["command"])
    except ValueError:
        return False
    return len(words) >= 3 and os.path.basename(words[0]) == "ctx" and words[1:3] == ["hook", "claude"]


def ctx_executable(running: str | None = None) -> str:
    """`ctx` when this ctx is the one on PATH (a settings file the team can share); otherwise the full path
    of this ctx, so a ctx installed in a virtual environment still runs from the editor."""
    import shutil

    running = os.path.realpath(running or sys.argv[0])
    on_path = shutil.which("ctx")
    if os.path.basename(running) != "ctx" or (on_path is not None and os.path.realpath(on_path) == running):
        return "ctx"
    return running


def hook_command(running: str | None = None) -> str:
    import shlex

    executable = ctx_executable(running)
    return HOOK_COMMAND if executable == "ctx" else f"{shlex.quote(executable)} hook claude"


ROUTER_MARKERS = ("context-router", "context_router", "claude-cognitive", "claude_cognitive")


def _is_other_router(hook: Any) -> bool:
    """Another context router's entry (claude-cognitive's `context-router-v2.py`, say): it would inject
    context beside ours."""
    if _is_ours(hook) or not isinstance(hook, dict) or not isinstance(hook.get("command"), str):
        return False
    return any(marker in hook["command"] for marker in ROUTER_MARKERS)


def _prompt_groups(settings: dict[str, Any], path: str) -> list[Any]:
    return _event_groups(settings, path, "UserPromptSubmit")


def _event_groups(settings: dict[str, Any], path: str, event: str) -> list[Any]:
    hooks = settings.setdefault("hooks", {})
    if not isinstance(hooks, dict):
        raise InputError(f"{path}: 'hooks' is not a JSON object")
    groups = hooks.setdefault(event, [])
    if not isinstance(groups, list):
        raise InputError(f"{path}: 'hooks.{event}' is not a list")
    return groups


def _drop_hooks(groups: list[Any], unwanted: Any) -> tuple[list[Any], list[str]]:
    """(the groups without the hooks `unwanted` picks, the commands dropped); a group left empty goes."""
    kept_groups: list[Any] = []
    dropped: list[str] = []
    for group in groups:
        if isinstance(group, dict) and isinstance(group.get("hooks"), list):
            kept = [h for h in group["hooks"] if not unwanted(h)]
            dropped += [h["command"] for h in group["hooks"] if unwanted(h)]
            if len(kept) != len(group["hooks"]):
                if not kept:
                    continue
                group = {**group, "hooks": kept}
        kept_groups.append(group)
    return kept_groups, dropped


HOOK_TIMEOUT_S = 10  # seconds Claude Code lets the hook run before it kills the turn


def install_claude(path: str, command: str = HOOK_COMMAND, replace: bool = False) -> tuple[bool, list[str]]:
    """Merge our UserPromptSubmit hook into a Claude Code settings file.

    (whether it was added, the commands of other context routers: removed with `replace`, else still there).
    """
    import json

    settings = _load_settings(path)
    groups = _prompt_groups(settings, path)
    others: list[str] = []
    changed = False
    if replace:
        groups, others = _drop_hooks(groups, _is_other_router)
        settings["hooks"]["UserPromptSubmit"] = groups
        changed = bool(others)
    else:
        others = [h["command"] for g in groups if isinstance(g, dict) for h in g.get("hooks", []) or []
                  if _is_other_router(h)]
    ours = any(isinstance(g, dict) and any(_is_ours(h) for h in g.get("hooks", []) or []) for g in groups)
    if not ours:
        groups.append({"hooks": [{"type": "command", "command": command, "timeout": HOOK_TIMEOUT_S}]})
        changed = True
    # The same command hears when the conversation is compacted or cleared: what it was sent is gone.
    starts = _event_groups(settings, path, "SessionStart")
    if not any(isinstance(g, dict) and any(_is_ours(h) for h in g.get("hooks", []) or []) for g in starts):
        starts.append({"matcher": "compact|clear",
                       "hooks": [{"type": "command", "command": command, "timeout": HOOK_TIMEOUT_S}]})
        changed = True
    if changed:
        write_atomic(path, json.dumps(settings, indent=2, ensure_ascii=False) + "\n")
    return not ours, others


def installed_in(path: str) -> tuple[bool, list[str]]:
    """(whether our hook is in a settings file, the commands of other context routers there)."""
    settings = _load_settings(path)
    hooks = settings.get("hooks")
    groups = hooks.get("UserPromptSubmit") if isinstance(hooks, dict) else None
    entries = [h for g in groups if isinstance(g, dict) for h in g.get("hooks") or []] \
        if isinstance(groups, list) else []
    return any(_is_ours(h) for h in entries), [h["command"] for h in entries if _is_other_router(h)]


def uninstall_claude(path: str) -> bool:
    """Remove only our hook entry; a settings file left with nothing in it is removed. False when it was not
    there."""
    import json

    settings = _load_settings(path)
    hooks = settings.get("hooks")
    if not isinstance(hooks, dict):
        return False
    removed = False
    for event in ("UserPromptSubmit", "SessionStart"):
        groups = hooks.get(event)
        if not isinstance(groups, list):
            continue
        kept_groups, dropped = _drop_hooks(groups, _is_ours)
        removed = removed or bool(dropped)
        if kept_groups:
            hooks[event] = kept_groups
        else:
            del hooks[event]
    if not removed:
        return False
    if not hooks:
        del settings["hooks"]
    if settings:
        write_atomic(path, json.dumps(settings, indent=2, ensure_ascii=False) + "\n")
    else:
        os.unlink(path)
    return True


def project_root(cwd: str) -> str:
    """Where a project's `.claude/` belongs: the folder of the ctx config found from `cwd`, else the repository
    root above it, else `cwd`."""
    from ..config import discover

    found = discover(None, cwd)
    if found is not None:
        return os.path.dirname(found)
    folder = os.path.abspath(cwd)
    while True:
        if os.path.exists(os.path.join(folder, ".git")):
            return folder
        parent = os.path.dirname(folder)
        if parent == folder:
            return os.path.abspath(cwd)
        folder = parent
