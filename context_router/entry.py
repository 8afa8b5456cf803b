"""The `ctx` entry point: hook turns go straight to the hook adapter, everything else to the typer app.

The split keeps typer (~75 ms to import) and rich off the path that runs before every editor prompt.
"""

from __future__ import annotations

import os
import sys

from .faces.hooks import HOSTS as HOOK_HOSTS  # a few names: no cost to the path that is not a hook


def _is_hook(args: list[str]) -> bool:
    """A hook turn (not a request for its help, which typer gives)."""
    return len(args) >= 2 and args[0] == "hook" and args[1] in HOOK_HOSTS and \
        "--help" not in args and "-h" not in args


def _split_debug(args: list[str]) -> tuple[list[str], bool]:
    """(the arguments without --debug, whether it was given). --debug is global, yet people put it after the
    command (`ctx route --debug ...`), where the command's parser would call it unknown; after `--` it is a
    prompt word."""
    end = args.index("--") if "--" in args else len(args)
    if "--debug" not in args[:end]:
        return args, False
    return [a for a in args[:end] if a != "--debug"] + args[end:], True


def main(argv: list[str] | None = None) -> int:
    args, debug = _split_debug(sys.argv[1:] if argv is None else argv)
    if _is_hook(args):
        return _hook(args[1:])
    from .faces.cli import run

    return run(["--debug", *args] if debug else args)


def _hook(args: list[str]) -> int:
    """A hook turn: answered by the resident server when one runs (faces/serve.py), else here. A hook never
    shows a traceback: the prompt must go through."""
    from .faces import serve

    if sys.stdin is None or not serve.enabled():
        from .faces.hooks import run_hook

        return run_hook(args[0], args[1:])
    raw = sys.stdin.buffer.read()
    code = serve.served(args, raw)
    if code is not None:
        return code
    import io

    from .faces.hooks import run_hook

    return run_hook(args[0], args[1:], io.BytesIO(raw))


def script() -> None:
    """Run as the `ctx` command. A hook turn ends without the interpreter's teardown (about 3 ms of module
    and garbage clean-up per prompt): by then its output is written and its state committed and closed."""
    code = main()
    if _is_hook(_split_debug(sys.argv[1:])[0]):
        for stream in (sys.stdout, sys.stderr):
            try:
                if stream is not None:
                    stream.flush()
            except (OSError, ValueError):
                pass  # the editor stopped reading: nothing left to do
        os._exit(code)
    try:
        if sys.stdout is not None:
            sys.stdout.flush()
    except BrokenPipeError:  # `ctx status | head -1`: the reader is done, and so are we, quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    sys.exit(code)
