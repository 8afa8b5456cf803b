"""ctx: an attention-based context router for markdown doc repos."""

__version__ = "0.5.0"
