"""The pure stages of a turn: attention, evidence (keywords, text, semantic), the tier plan, rendering."""
