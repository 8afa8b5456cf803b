"""The error tree. Each error knows its exit code; the CLI catches them at the edge."""

from __future__ import annotations

EXIT_OK = 0
EXIT_FAILURE = 1
EXIT_USAGE = 2


class CtxError(Exception):
    """A failure the user should see as one line on stderr."""

    exit_code = EXIT_FAILURE


class UsageError(CtxError):
    """Bad usage, config or input (exit 2)."""

    exit_code = EXIT_USAGE


class ConfigError(UsageError):
    """The config file is malformed or holds a bad value."""


class InputError(UsageError):
    """A bad prompt, path or hook payload."""


class DocsError(UsageError):
    """The docs folder is missing or not a folder."""


class StateError(CtxError):
    """The state database could not be read or written."""


class ConfigDeferred(CtxError):
    """A hook turn left a big changed config to the background indexer: the turn shows nothing yet."""
