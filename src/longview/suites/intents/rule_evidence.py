"""Offline evidence that an imported hidden intent was *done*: the rule-script keys that test it.

π-Bench does not say which rule-script key tests which hidden intent, and longview must not judge
an intent done because its words appear somewhere (an agent would earn it by echoing the intent).
So the link is made from the two texts the release does give:

* **What a script tests** — the string literals in its source (read with ``ast``, never run here):
  phrases, numbers and names its checks look for ("11:30", "original notarized power of attorney").
* **What an intent says** — the literals the intent's content contains (case-insensitively): its
  details as the script spells them. Only specific literals link the two: several words, a token
  with a digit or sign, or a word the intent quotes. A literal the request also states links only
  when it is a value with a digit or the intent quotes it: the release's hidden intents often
  restate such a detail of the request as their requirement (both times of a checkpoint, the exact
  subject line, a label's name), and doing that work completes them, as π-Bench's model judge would
  say; a plain phrase the request also uses ("partner review") is more often context. Either way
  it is the masking test below, on the session's own calls, that decides, never the words alone.

An intent with no such literal is *not testable offline* (not judged). A testable intent is
*completed* when a key the script scores 1 on the session's tool history drops to 0 once the
intent's literals are masked out of every call argument and result: the work that met the key is
the work that carries the intent. Without tool calls nothing is met, so text alone never counts.
"""

from __future__ import annotations

import ast
import json
import re
from functools import lru_cache
from pathlib import Path
from typing import Any

from longview.suites.intents.evidence import CallRecord
from longview.suites.intents.rules import RuleMode, RuleScriptError, histories, run_script
from longview.text import content_words, tokens

MASK = "\u2591"  # what a masked literal becomes: matches no phrase a script looks for
_IDENT = re.compile(r"^[A-Za-z0-9]*_[A-Za-z0-9_]*$")  # tool, field and key names, not content


@lru_cache(maxsize=256)
def script_strings(path: str) -> tuple[str, ...]:
    """The content strings of a rule script as written: string constants of at least 3 characters
    that are not identifiers (tool, field and key names) and carry a content word or a digit,
    whitespace-normalised, de-duplicated, longest first. An unreadable or unparsable script has none."""
    try:
        tree = ast.parse(Path(path).read_text(encoding="utf-8"))
    except (OSError, SyntaxError, UnicodeDecodeError, ValueError):
        return ()
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            s = " ".join(node.value.split())
            if len(s) < 3 or _IDENT.match(s) or s.startswith(("mcp_", "response.")):
                continue
            if content_words(s) or any(ch.isdigit() for ch in s):
                out.add(s)
    return tuple(sorted(out, key=lambda s: (-len(s), s)))


def script_literals(path: str) -> tuple[str, ...]:
    """:func:`script_strings` lower-cased (what intents are matched against), de-duplicated."""
    return tuple(dict.fromkeys(s.lower() for s in script_strings(path)))


def _specific(lit: str, text: str) -> bool:
    """A literal specific enough to link an intent to a check: several words, or a token with a digit
    or a sign ("18:00", "la-mcco@gmail.com"), or a single word the intent quotes ('camping'). A bare
    common word ("approval", "flag") appears in intents about other things."""
    return " " in lit or not lit.isalpha() or _quoted(lit, text)


def _quoted(lit: str, text: str) -> bool:
    return re.search("[\"'\u2018\u201c]" + re.escape(lit) + "[\"'\u2019\u201d]", text) is not None


def intent_literals(literals: tuple[str, ...], content: str, request: str) -> list[str]:
    """The script literals an intent's content carries (only those specific enough to link the two,
    see :func:`_specific`); one the request shares only when it is an exact detail (:func:`_exact`)."""
    text, req = " ".join(content.lower().split()), " ".join(request.lower().split())
    return [lit for lit in literals if lit in text and _specific(lit, text) and (lit not in req or _exact(lit, text))]


def _exact(lit: str, text: str) -> bool:
    """A detail an intent restates from the request *as its requirement*: a value with a digit
    ("2026-04-29 17:45") or a phrase the intent quotes (a subject line, a label). A plain phrase the
    request also uses ("partner review") is more often context the intent mentions in passing."""
    return any(ch.isdigit() for ch in lit) or _quoted(lit, text)


def _words(text: str) -> set[str]:
    return content_words(text) | {t for t in tokens(text) if t.isdigit()}


def _mask(value: Any, pattern: re.Pattern[str]) -> Any:
    if isinstance(value, str):
        return pattern.sub(MASK, value)
    if isinstance(value, list):
        return [_mask(v, pattern) for v in value]
    if isinstance(value, dict):
        return {k: _mask(v, pattern) for k, v in value.items()}
    return value


def _masked_calls(calls: list[CallRecord], lits: list[str]) -> list[CallRecord]:
    pattern = re.compile("|".join(re.escape(lit) for lit in lits), re.IGNORECASE)
    return [CallRecord(name=c.name, arguments=_mask(c.arguments, pattern), ok=c.ok, output=_mask(c.output, pattern),
                       turn=c.turn, segment=c.segment) for c in calls]


def _met(results: list[dict[str, Any]]) -> set[str]:
    return {str(k) for r in results for k, v in r.items() if v in (1, True)}


class RuleEvidence:
    """Per imported session: which intents its rule script can test, and whether the tool history
    so far completes them (see the module docstring)."""

    def __init__(self, script: Path, request: str, intents: dict[str, str], allowed: set[str], prefix: str,
                 mode: RuleMode, workspace: Path | None = None) -> None:
        lits = script_literals(str(script))
        self.script, self.allowed, self.prefix, self.mode = script, allowed, prefix, mode
        self.workspace = workspace  # the scripts that read the agent's files see the session's workspace
        self.literals = {iid: intent_literals(lits, text, request) for iid, text in intents.items()}
        # Spellings the script also accepts for the same detail ("5 pm tomorrow" beside "5:00 p.m.
        # tomorrow"): literals of no intent and not in the request that share a word or number with
        # an intent's literal are masked with it, else work carrying both would never show the link.
        low = [" ".join(t.lower().split()) for t in intents.values()]
        req = " ".join(request.lower().split())
        spare = [lit for lit in lits if lit not in req and not any(lit in t for t in low)]
        self.masked = {iid: ls + [o for o in spare if any(_words(o) & _words(lit) for lit in ls)]
                       for iid, ls in self.literals.items()}

    def testable(self, intent_id: str) -> bool:
        return bool(self.literals.get(intent_id))

    def completed(self, intent_ids: list[str], calls: list[CallRecord]) -> dict[str, bool | None]:
        """Intent id -> completed (True/False) for testable ids; None for the others and when the
        script fails (a failed script judges nothing)."""
        out: dict[str, bool | None] = {i: None for i in intent_ids}
        todo = [i for i in intent_ids if self.testable(i)]
        if not todo:
            return out
        if not calls:
            return {i: (False if i in todo else None) for i in intent_ids}
        batches = [histories(calls, self.allowed, self.prefix, self.mode)]
        batches += [histories(_masked_calls(calls, self.masked[i]), self.allowed, self.prefix, self.mode)
                    for i in todo]
        flat = [h for b in batches for h in b]
        try:
            _, results = run_script(self.script, json.loads(json.dumps(flat, default=str)), workspace=self.workspace)
        except RuleScriptError:
            return out
        sizes = [len(b) for b in batches]
        chunks, k = [], 0
        for n in sizes:
            chunks.append(results[k:k + n])
            k += n
        real = _met(chunks[0])
        for i, chunk in zip(todo, chunks[1:], strict=True):
            out[i] = bool(real - _met(chunk))
        return out
