"""Host adapters: run one turn for an editor's prompt hook, in the host's own JSON in and out.

A hook runs before every prompt, so it never fails the prompt: whatever goes wrong, it prints nothing but the
host's JSON on stdout (for most hosts nothing at all), one line on stderr and exits 0 (for Claude Code, exit 2
would block the user's prompt). It imports only what a turn needs; see router.py. Installing a hook into a
host's settings is install.py's.

| host | its event | session id | context goes back as |
|---|---|---|---|
| claude (Claude Code) | UserPromptSubmit; SessionStart compact | session_id | hookSpecificOutput.additionalContext |
| gemini (Gemini CLI) | BeforeAgent; SessionStart clear | session_id | hookSpecificOutput.additionalContext |
| codex (Codex CLI) | UserPromptSubmit | session_id | hookSpecificOutput.additionalContext |
| cline (Cline) | UserPromptSubmit | taskId | contextModification, with cancel false |
| plain | the prompt as text | - | the markdown as text |
"""

from __future__ import annotations

import os
import sys

from ..errors import CtxError, InputError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, BinaryIO, TextIO

HOSTS = ("claude", "gemini", "codex", "cline", "plain")
ENV_SESSION = "CTX_SESSION"
MAX_SESSION_CHARS = 200

# What a payload asks of the hook: a turn for its prompt, a turn for text the host says nobody typed (MACHINE:
# served read-only), forgetting what the conversation was sent (it was compacted or cleared), putting back what
# the compacted conversation needs (RESTORE), or nothing (an event ctx does not act on).
TURN, MACHINE, FORGET, RESTORE, IGNORE = "turn", "machine", "forget", "restore", "ignore"
# Claude Code's `source` of a prompt no person wrote: `system` (a background task's notification, a message
# from another session, an auto-continuation) is served read-only like a task notification; `poll_event` fires
# before the event is delivered, so nothing is answered. Payloads without `source` are read by their text.
CLAUDE_MACHINE, CLAUDE_UNDELIVERED = ("system",), ("poll_event",)


def _options(args: list[str]) -> dict[str, str]:
    """The few options a hook takes (--config, --session, --docs, --dry-run), parsed without typer for speed.
    --dry-run is how `ctx doctor` tries an installed hook: the turn is shown and nothing is saved."""
    out: dict[str, str] = {}
    it = iter(args)
    for arg in it:
        name, _, value = arg.partition("=")
        if name == "--dry-run" and not value:
            out["dry-run"] = "1"
            continue
        if name not in ("--config", "--session", "--docs"):
            raise InputError(f"unknown hook option {arg!r}")
        if not value:
            value = next(it, "")
            if not value:
                raise InputError(f"{name} needs a value")
        out[name[2:]] = value
    return out


def _json_object(raw: bytes) -> dict[str, Any]:
    from .. import fastjson

    try:
        data = fastjson.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise InputError("hook input is not UTF-8 text") from None
    except ValueError as exc:  # json.JSONDecodeError included
        raise InputError(f"hook input is not valid JSON ({exc})") from None
    if not isinstance(data, dict):
        raise InputError("hook input is not a JSON object")
    return data


def _prompt(value: Any) -> str:
    if not isinstance(value, str):
        raise InputError("hook input has no string 'prompt'")
    return _valid_text(value)


def _session(value: Any) -> str | None:
    return _valid_text(value[:MAX_SESSION_CHARS]) if isinstance(value, str) and value else None


def _folder(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def parse_payload(host: str, raw: bytes) -> tuple[str, str, str | None, str | None, str | None]:
    """(what to do, prompt, session id, the folder the host runs in, the transcript it names) from a host's
    hook input.

    Gemini CLI and Codex CLI send every event to the same command shape; a compaction or a clear means the
    conversation lost what ctx sent it (FORGET), other events are none of ctx's business (IGNORE)."""
    if host == "plain":
        try:
            return TURN, raw.decode("utf-8"), None, None, None
        except UnicodeDecodeError:
            raise InputError("hook input is not UTF-8 text") from None
    data = _json_object(raw)
    if host == "cline":
        roots = data.get("workspaceRoots")
        cwd = _folder(roots[0]) if isinstance(roots, list) and roots else None
        session = _session(data.get("taskId"))
        event = data.get("hookName")
        if event == "PreCompact":
            return FORGET, "", session, cwd, None
        if event not in (None, "UserPromptSubmit", "prompt_submit"):
            return IGNORE, "", session, cwd, None
        submitted = data.get("userPromptSubmit")
        return TURN, _prompt(submitted.get("prompt") if isinstance(submitted, dict) else None), session, cwd, None
    session, cwd, event = _session(data.get("session_id")), _folder(data.get("cwd")), data.get("hook_event_name")
    transcript = _folder(data.get("transcript_path"))
    prompt_event = "BeforeAgent" if host == "gemini" else "UserPromptSubmit"
    if event != prompt_event and event is not None:
        return lost_event(host, event, data), "", session, cwd, transcript
    prompt = _prompt(data.get("prompt"))
    if host == "gemini" and prompt.strip() in GEMINI_COMPRESS:
        return IGNORE, "", session, cwd, transcript
    if host == "claude" and data.get("source") in CLAUDE_UNDELIVERED:
        return IGNORE, "", session, cwd, transcript
    kind = MACHINE if host == "claude" and data.get("source") in CLAUDE_MACHINE else TURN
    return kind, prompt, session, cwd, transcript


# Gemini CLI's /compress and its other names: `gemini -p /compress` sends the command on to BeforeAgent as a
# prompt (and to the model): no turn runs on it.
GEMINI_COMPRESS = ("/compress", "/summarize", "/compact")


def lost_event(host: str, event: Any, data: dict[str, Any]) -> str:
    """What an event other than the prompt asks, per host, in the order the real clients fire them.

    Claude Code fires SessionStart `compact` after compaction, whether it ran before the prompt (`/compact`) or
    between the prompt's hook and the model request (auto-compaction): what the hook answers then reaches the
    request for the user's prompt once, so ctx sends back what the last turn showed (RESTORE). Codex CLI fires
    PostCompact and SessionStart `compact` before the prompt's hook: forgetting is enough. Gemini CLI fires
    PreCompress whether or not it compresses (`auto` on every turn, `manual` on a `/compress` that in
    `gemini -p` compresses nothing): what its history holds is read from its session file at the prompt
    (gemini.py), so PreCompress is ignored."""
    source = data.get("source")
    if event == "SessionStart":  # startup and resume keep what the conversation holds
        if host == "claude" and source == "compact":
            return RESTORE
        lost = ("clear",) if host == "gemini" else ("clear", "compact")
        return FORGET if source in lost else IGNORE
    if (host, event) in (("codex", "PostCompact"), ("claude", "PostCompact")):
        return FORGET
    return IGNORE


def _valid_text(text: str) -> str:
    """JSON may carry lone surrogates (\\ud800), which cannot be stored or printed: replace them."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8", "replace").decode("utf-8")
    return text


ENV_PROJECT = "CLAUDE_PROJECT_DIR"
# The project folder a host names in the hook's environment, when the hook may run from elsewhere.
PROJECT_ENV = {"claude": ENV_PROJECT, "gemini": "GEMINI_PROJECT_DIR"}


def find_project(workdir: str, opts: dict[str, str], project_env: str | None = ENV_PROJECT
                 ) -> tuple[str, str | None, bool] | None:
    """(the folder a hook turn runs from, the config to use, whether the user chose it): the config found from
    the hook's cwd up, else from the project folder the host names in `project_env`; None when there is none
    and the user set no default (--config, --docs, $CTX_CONFIG). Found once, then handed to the turn."""
    from ..config import ENV_CONFIG, discover

    if opts.get("config") or opts.get("docs") or os.environ.get(ENV_CONFIG):
        return workdir, opts.get("config"), True
    project = os.environ.get(project_env) if project_env else None
    for folder in (workdir, project if project and os.path.isdir(project) else None):
        found = discover(None, folder) if folder is not None else None
        if found is not None and folder is not None:
            return folder, found, False
    return None


def host_output(host: str, context: str, event: str | None = None) -> str:
    """The host's answer with `context` in it (for plain, the text itself); `event` names the event answered
    when it is not the prompt's."""
    from ..fastjson import dumps_str

    if host == "plain":
        return context
    if host == "cline":
        return f'{{"cancel": false, "contextModification": {dumps_str(context)}, "errorMessage": ""}}'
    event = event or ("BeforeAgent" if host == "gemini" else "UserPromptSubmit")
    return f'{{"hookSpecificOutput": {{"hookEventName": "{event}", "additionalContext": {dumps_str(context)}}}}}'


def run_hook(host: str, args: list[str], stdin: BinaryIO | None = None, stdout: TextIO | None = None,
             stderr: TextIO | None = None) -> int:
    """`ctx hook HOST`: always exit 0; the host's answer on stdout, or nothing; problems as one stderr line.

    A closed stream is None in sys: no input is an empty prompt, no stdout means nothing to answer, no stderr
    means problems go unsaid; none of them is a traceback. Cline is always answered (`cancel: false`, with
    context or without): its hooks are expected to answer."""
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

    context, event = "", None
    try:
        if host not in HOSTS:
            raise InputError(f"unknown hook host {host!r} (expected one of: {', '.join(HOSTS)})")
        opts = _options(args)
        raw = stdin.read()
        if _heard_tool(host, raw, opts):
            return 0  # an after-tool event is answered by silence: the host shows nothing of it
        kind, prompt, session_id, cwd, transcript = parse_payload(host, raw)
        if kind in (TURN, MACHINE) and not prompt.strip():
            kind = IGNORE  # an empty prompt does not advance the turn and shows nothing
        if kind != IGNORE:
            context = _serve(host, kind, opts, prompt, session_id, cwd, warn, transcript)
            event = "SessionStart" if kind == RESTORE else None
    except CtxError as exc:
        warn(str(exc))
    except Exception as exc:  # the prompt must go through whatever happened
        warn(f"internal error: {type(exc).__name__}: {exc}")
    if context or host == "cline":
        try:
            stdout.write(host_output(host, context, event))
            stdout.flush()
        except (OSError, ValueError):
            pass  # the host stopped reading: there is nobody left to answer
    return 0


def _heard_tool(host: str, raw: bytes, opts: dict[str, str]) -> bool:
    """Whether the payload was the host's after-tool event (then noted for the next turn: toolhook.py)."""
    from .toolhook import TOOL_EVENTS, is_tool_event, note_tool_event

    if not is_tool_event(host, raw):
        return False
    data = _json_object(raw)
    if data.get("hook_event_name") != TOOL_EVENTS[host]:
        return False
    session = opts.get("session") or os.environ.get(ENV_SESSION) or _session(data.get("session_id")) or "default"
    note_tool_event(host, data, opts, session, lambda folder: find_project(folder, opts, PROJECT_ENV.get(host)))
    return True


def _serve(host: str, kind: str, opts: dict[str, str], prompt: str, session_id: str | None, cwd: str | None,
           warn: Any, transcript: str | None = None) -> str:
    """The context for a turn (or "" after forgetting, or when there is nothing to show)."""
    session = opts.get("session") or os.environ.get(ENV_SESSION) or session_id or "default"
    workdir = cwd or os.getcwd()
    if not os.path.isdir(workdir):
        raise InputError(f"hook cwd is not a folder: {cwd}")
    project = find_project(workdir, opts, PROJECT_ENV.get(host))
    if project is None:
        return ""  # no ctx config for this project: the hook stays out of the way (`ctx doctor` says why)
    folder, config, chosen = project
    if kind == FORGET:
        from ..router import forget_session

        forget_session(session, config, opts.get("docs"), folder, warn)
        return ""
    if kind == RESTORE:
        return _restore(host, session, opts, config, folder, chosen, warn)
    if host == "gemini" and "dry-run" not in opts:
        from .gemini import held_turns

        _forget_unheld(session, held_turns(transcript, workdir), config, opts.get("docs"), folder, warn)
    from ..router import TurnRequest, route

    result = route(TurnRequest(prompt, session=session, host=host, contained=not chosen, machine=kind == MACHINE,
                               dry_run="dry-run" in opts), config, opts.get("docs"), folder, warn)
    for notice in result.notices:
        warn(notice)
    return result.text


def _forget_unheld(session: str, held: frozenset[int] | None, config: str | None, docs: str | None, folder: str,
                   warn: Any) -> int:
    """Forget what the prompt's request will not hold: all that was sent at turns other than `held`, or all
    of it when the host's history could not be read (then the turn sends what it needs)."""
    from ..workspace import with_workspace

    def forget(ws: Any) -> int:
        with ws.store.transaction():
            return int(ws.store.forget_sent(ws.store.resolve_session(session), keep=held))

    return with_workspace(forget, config, docs, folder, warn)


def _restore(host: str, session: str, opts: dict[str, str], config: str | None, folder: str, chosen: bool,
             warn: Any) -> str:
    """The conversation was compacted: forget what it was sent and send again what the last turn showed, so
    that what that turn named as "already in this conversation" is in the model's request."""
    from ..router import TurnRequest, route

    result = route(TurnRequest("", session=session, host=host, contained=not chosen, restore=True,
                               dry_run="dry-run" in opts), config, opts.get("docs"), folder, warn)
    for notice in result.notices:
        warn(notice)
    return result.text
