"""What part of a prompt a person typed.

Claude Code also runs the hook for text nobody typed: a background agent's `<task-notification>` report,
system reminders, the output of a local command. Such blocks (long machine text with ids and paths) must
not move attention the way a user's words do, so they are cut out before matching; a prompt that is nothing
else is served read-only. Plain string search: `re` costs milliseconds to import on the hook path.
"""

from __future__ import annotations

MACHINE_TAGS = ("task-notification", "system-reminder", "local-command-stdout", "local-command-stderr",
                "command-name", "command-message", "command-args", "bash-stdout", "bash-stderr", "bash-input",
                "user-prompt-submit-hook")


def human_part(text: str) -> str:
    """The text without its machine blocks."""
    if "<" not in text:
        return text
    out = text
    for tag in MACHINE_TAGS:
        opening, closing = f"<{tag}>", f"</{tag}>"
        while True:
            start = out.find(opening)
            if start < 0:
                break
            end = out.find(closing, start)
            # An unclosed block runs to the end: what follows its opening tag is the machine's too.
            out = out[:start] + (out[end + len(closing):] if end >= 0 else "")
    return out
