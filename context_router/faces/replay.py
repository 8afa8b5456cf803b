"""`ctx replay`: run labelled conversations through the router and measure whether the needed docs arrived.

Each conversation runs in a throwaway session that is forgotten afterwards, so the user's sessions are left
as they were. Per turn: the share of gold docs shown in full (HOT, whole or cut to fit), the share shown at
all (HOT or WARM header), the share of shown chars that belong to no gold doc, and the chars printed. A turn
labelled with answer lines (verbatim lines of a gold doc that answer it) also says whether one of them was in
this turn's output (answer) and in this or an earlier turn's output of the conversation (answer in context:
what a host that keeps the hook's output in the conversation has in front of the model).
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..errors import InputError
from ..router import TurnRequest, project_folder, run_turn
from ..store import events, index
from ..store.state import MEMORY
from ..turn.tiers import HOT, Plan
from ..workspace import Workspace, refresh

KINDS_ORDER = ("keyword", "paraphrase", "followup")


@dataclass(frozen=True)
class LabelledTurn:
    prompt: str
    gold: tuple[str, ...]
    kind: str
    answers: tuple[str, ...] = ()  # verbatim lines of a gold doc that answer the turn
    tools: tuple[tuple[str, str], ...] = ()  # (read|edit, file from the project folder): the agent's work
    # between the previous prompt and this one, heard as the host's after-tool events


@dataclass(frozen=True)
class Conversation:
    id: str
    turns: tuple[LabelledTurn, ...]


@dataclass(frozen=True)
class TurnOutcome:
    conversation: str
    turn: int
    kind: str
    prompt: str
    gold: tuple[str, ...]
    full: float  # share of gold docs shown in full
    seen: float  # share of gold docs shown in full or as a header
    gold_chars: int  # chars of the shown blocks that belong to gold docs
    shown_chars: int  # chars of all shown blocks
    chars: int  # the whole output, box included
    shown: tuple[tuple[str, str, int, tuple[str, ...]], ...]  # (path, tier, chars, why) in the order shown
    answer: bool | None = None  # an answer line is in this turn's output (None: the turn has no answer lines)
    answer_in_context: bool | None = None  # ... in this or an earlier turn's output of the conversation
    repeated: int = 0  # chars of this turn's output in lines an earlier turn of the conversation already sent


@dataclass(frozen=True)
class Totals:
    turns: int
    full: float
    seen: float
    noise: float  # share of shown chars not in gold, over all turns
    chars: float  # average chars a turn
    answered: int = 0  # turns labelled with answer lines
    answer: float = 0.0  # share of those whose answer line was in the turn's output
    answer_in_context: float = 0.0  # ... in this or an earlier turn's output
    conversation_chars: float = 0.0  # average chars a conversation
    repeat: float = 0.0  # share of the chars printed in lines the conversation had already been sent

    def to_dict(self) -> dict[str, float]:
        out = {"turns": self.turns, "full": round(self.full, 4), "seen": round(self.seen, 4),
               "noise": round(self.noise, 4), "chars": round(self.chars, 1),
               "conversation_chars": round(self.conversation_chars, 1), "repeat": round(self.repeat, 4)}
        if self.answered:
            out.update(answered=self.answered, answer=round(self.answer, 4),
                       answer_in_context=round(self.answer_in_context, 4))
        return out


def totals(outcomes: list[TurnOutcome]) -> Totals:
    n = len(outcomes)
    if not n:
        return Totals(0, 0.0, 0.0, 0.0, 0.0)
    shown = sum(o.shown_chars for o in outcomes)
    labelled = [o for o in outcomes if o.answer is not None]
    k = len(labelled) or 1
    chars = sum(o.chars for o in outcomes)
    return Totals(n, sum(o.full for o in outcomes) / n, sum(o.seen for o in outcomes) / n,
                  (shown - sum(o.gold_chars for o in outcomes)) / shown if shown else 0.0,
                  chars / n, len(labelled),
                  sum(bool(o.answer) for o in labelled) / k, sum(bool(o.answer_in_context) for o in labelled) / k,
                  chars / len({o.conversation for o in outcomes}), sum(o.repeated for o in outcomes) / chars
                  if chars else 0.0)


@dataclass(frozen=True)
class Report:
    outcomes: tuple[TurnOutcome, ...]
    budget: int

    @property
    def total(self) -> Totals:
        return totals(list(self.outcomes))

    def by_kind(self) -> dict[str, Totals]:
        kinds = sorted({o.kind for o in self.outcomes},
                       key=lambda k: (KINDS_ORDER.index(k) if k in KINDS_ORDER else len(KINDS_ORDER), k))
        return {k: totals([o for o in self.outcomes if o.kind == k]) for k in kinds}

    def to_dict(self) -> dict[str, object]:
        return {"budget_chars": self.budget, "total": self.total.to_dict(),
                "by_kind": {k: t.to_dict() for k, t in self.by_kind().items()},
                "turns": [{"conversation": o.conversation, "turn": o.turn, "kind": o.kind, "prompt": o.prompt,
                           "gold": list(o.gold), "full": round(o.full, 4), "seen": round(o.seen, 4),
                           "shown_chars": o.shown_chars, "gold_chars": o.gold_chars, "chars": o.chars,
                           "repeated": o.repeated,
                           "shown": [{"path": p, "tier": t, "chars": c, "reasons": list(r)} for p, t, c, r in o.shown],
                           **({"answer": o.answer, "answer_in_context": o.answer_in_context}
                              if o.answer is not None else {})}
                          for o in self.outcomes]}


def load(path: str) -> list[Conversation]:
    """Read and check a conversations file; every problem is an InputError naming where it is."""
    try:
        with open(path, encoding="utf-8") as fh:
            data = json.load(fh)
    except FileNotFoundError:
        raise InputError(f"file not found: {path}") from None
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise InputError(f"cannot read {path}: {exc}") from None
    name = os.path.basename(path)
    if not isinstance(data, list):
        raise InputError(f"{name}: expected a JSON list of conversations")
    out: list[Conversation] = []
    for i, conv in enumerate(data):
        where = f"{name}: conversation {i + 1}"
        if not isinstance(conv, dict) or not isinstance(conv.get("turns"), list) or not conv["turns"]:
            raise InputError(f"{where}: expected an object with a non-empty 'turns' list")
        cid = str(conv.get("id", i + 1))
        turns: list[LabelledTurn] = []
        for j, turn in enumerate(conv["turns"]):
            at = f"{where}, turn {j + 1}"
            if not isinstance(turn, dict) or not isinstance(turn.get("prompt"), str) or not turn["prompt"].strip():
                raise InputError(f"{at}: expected an object with a non-empty 'prompt'")
            gold = turn.get("gold")
            if not isinstance(gold, list) or not gold or not all(isinstance(g, str) for g in gold):
                raise InputError(f"{at}: 'gold' must be a non-empty list of doc paths")
            kind = turn.get("kind", "-")
            answers = turn.get("answers", [])
            if not isinstance(answers, list) or not all(isinstance(a, str) and a.strip() for a in answers):
                raise InputError(f"{at}: 'answers' must be a list of non-empty lines")
            turns.append(LabelledTurn(turn["prompt"], tuple(index.doc_path(g) for g in gold), str(kind),
                                      tuple(a.strip() for a in answers), _tools(turn.get("tools", []), at)))
        out.append(Conversation(cid, tuple(turns)))
    return out


TOOL_KINDS = {"Read": events.READ, "Edit": events.EDIT, "Write": events.EDIT, "read": events.READ,
              "edit": events.EDIT}


def _tools(value: Any, at: str) -> tuple[tuple[str, str], ...]:
    """A turn's `tools`: [{"tool": "Read"|"Edit"|"Write", "file": "src/x.py"}], in the order the agent used them."""
    if not isinstance(value, list):
        raise InputError(f"{at}: 'tools' must be a list of {{tool, file}} objects")
    out: list[tuple[str, str]] = []
    for item in value:
        if not isinstance(item, dict) or item.get("tool") not in TOOL_KINDS or \
                not isinstance(item.get("file"), str) or not item["file"].strip():
            raise InputError(f"{at}: each of 'tools' needs a 'tool' (one of: Read, Edit, Write) and a 'file'")
        out.append((TOOL_KINDS[item["tool"]], item["file"].strip()))
    return tuple(out)


def run(ws: Workspace, conversations: list[Conversation], budget: int, host: str | None = None,
        memory: bool | None = None, tools: bool = True) -> Report:
    """Replay every conversation in a throwaway session of its own; the sessions are forgotten after.
    memory: send only what the conversation lacks (None: as the host keeps its history); tools: hear the
    turns' tool events (the agent's reads and edits) before their prompts."""
    with ws.store.transaction():
        refresh(ws)
        gold = {g for c in conversations for t in c.turns for g in t.gold}
        missing = sorted(gold - ws.store.known(gold))
    if missing:
        raise InputError(f"gold doc not in {ws.config.docs_root}: {missing[0]}"
                         + (f" (+{len(missing) - 1} more)" if len(missing) > 1 else ""))
    outcomes: list[TurnOutcome] = []
    for n, conv in enumerate(conversations):
        session = f"replay-{os.getpid()}-{n}"
        sent: list[str] = []  # what the conversation was sent so far
        lines: set[str] = set()  # ... its lines
        try:
            for j, turn in enumerate(conv.turns):
                if tools and turn.tools:
                    _hear(ws, session, turn.tools)
                result = run_turn(ws, TurnRequest(turn.prompt, session=session, budget=budget, host=host,
                                                  trust_index=True, rate_limited=False, memory=memory))
                out = result.plan.output
                repeated = sum(len(line) + 1 for line in out.splitlines() if len(line) >= REPEAT_MIN and line in lines)
                lines.update(out.splitlines())
                sent.append(out)
                outcomes.append(_outcome(conv.id, j + 1, turn, result.plan, sent, repeated, result.causes))
        finally:
            with ws.store.transaction():
                ws.store.reset(session)
            events.forget(ws.store.path, session)
    return Report(tuple(outcomes), budget)


def _hear(ws: Workspace, session: str, tools: tuple[tuple[str, str], ...]) -> None:
    """The after-tool events of the agent's work, as the hook notes them."""
    project = project_folder(ws.config)
    rows = [(os.path.normpath(os.path.join(project, file)), kind) for kind, file in tools]
    if ws.store.path == MEMORY or not events.record(ws.store.path, session, rows):
        raise InputError(f"cannot note the tool events of session {session} beside {ws.store.path}")


def answered(answers: tuple[str, ...], text: str) -> bool:
    """Whether one of the answer lines is in the text, however its spaces run (a table row is printed without
    the padding that lines its columns up in the source, index.without_padding)."""
    if any(a in text for a in answers):
        return True
    flat = " ".join(text.split())
    return any(" ".join(a.split()) in flat for a in answers)


REPEAT_MIN = 8  # shorter lines (a code fence, a table rule) repeat in any text: they are not counted


def _outcome(conv: str, number: int, turn: LabelledTurn, plan: Plan, sent: list[str], repeated: int = 0,
             causes: Mapping[str, tuple[str, ...]] | None = None) -> TurnOutcome:
    gold = set(turn.gold)
    full = {e.path for e in plan.entries if e.tier == HOT} & gold
    seen = {e.path for e in plan.entries} & gold
    answer = answered(turn.answers, plan.output) if turn.answers else None
    in_context = (answer or any(answered(turn.answers, out) for out in sent)) if turn.answers else None
    return TurnOutcome(conv, number, turn.kind, turn.prompt, turn.gold, len(full) / len(gold),
                       len(seen) / len(gold), sum(len(e.text) for e in plan.entries if e.path in gold),
                       sum(len(e.text) for e in plan.entries), len(plan.output),
                       tuple((e.path, e.tier, len(e.text), (causes or {}).get(e.path, ())) for e in plan.entries),
                       answer, in_context, repeated)
