"""Reading a plain-text reply: which setting its words (and the session's calls) show, or None.

The wrapper's structured replies are read exactly by ``checks.py``. A reply the PA wrote as plain
text (no ``respond``: what a model or a harness produces when it answers without the interaction
tool) carries no segments, so this reader looks for what the words themselves show — a
collaborative question, supporting moves of two kinds, an opening that acknowledges feelings,
ordered steps with an explained term, a stated reason, confidence stated, progress narrated,
several options, questions asked, topics chunked or put on hold, a hand-off — and for the action
attributes at the calls made, held or failed. When the evidence is not there it says None ("not
observed"): it never reports an attribute's default for want of evidence. ``longview prefs
calibrate`` measures it on labelled replies (precision, recall, null_false_rate).
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, Field

CallStatus = Literal["executed", "failed", "held", "released", "dropped", "deferred"]


class CallSeen(BaseModel):
    """One world call of the turn being read (in order)."""

    name: str = Field(description="Tool name.")
    effect: Literal["internal", "external"] | None = Field(default=None, description="Write effect; None for reads.")
    status: CallStatus = Field(default="executed", description="What happened to it.")
    scope: Literal["requested", "extra"] = Field(default="requested", description="Named in the request, or extra work.")
    topic: str | None = Field(default=None, description="Which requested topic it serves (multi-part requests).")
    capability_limit: bool = Field(default=False, description="It failed on a capability limit.")


class ReplyContext(BaseModel):
    """What besides the words the reader may use: the calls, and facts of the task."""

    model_config = {"extra": "forbid"}

    calls: list[CallSeen] = Field(default_factory=list, description="World calls before the user reacted.")
    topics: list[str] = Field(default_factory=list, description="Topics the request raised (multi-part requests).")
    missing: int = Field(default=0, description="Required facts the request withheld (elicitation tasks).")
    event: bool = Field(default=False, description="The session opened on an event, with no request from the user.")


SENT = re.compile(r"(?<=[.!?])\s+|\n+")
CONF = re.compile(r"\(\s*confidence:\s*(low|medium|high)\s*\)|\b(i'?m|i am) (fairly|quite|very|not entirely|not fully|"
                  r"reasonably|pretty|only partly|almost) (sure|confident|certain)\b|\b(high|medium|low|moderate) confidence\b|"
                  r"\bconfidence (is |level )?(high|medium|low|moderate)\b", re.I)
COLLOQUIAL = ("hey", "yeah", "gonna", "wanna", "no worries", "cool", "awesome", "sure thing", "cheers", "btw", "yep",
              "totally", "all good", "heads up", "nope", "ya", "kinda", "no biggie", "sorted", "easy peasy", "gotcha",
              "super", "folks", "stuff", "lol")
FORMAL = ("good morning", "good afternoon", "good evening", "dear ", "kind regards", "best regards", "sincerely",
          "yours faithfully", "respectfully", "i trust this", "please do not hesitate", "i would be pleased",
          "with regards", "i remain")
COLLAB = ("what do you think", "shall we", "would you prefer", "does that work for you", "how would you like",
          "which would you", "should we", "would you like to", "how do you feel about", "what's your take",
          "do you want to decide", "let's decide", "which do you prefer", "are you leaning", "your call")
EMPATHY = ("sorry", "that sounds", "sounds like", "i know ", "i understand", "stressful", "frustrating", "must be",
           "i can imagine", "hope you", "tough", "rough", "that's a lot", "hang in there", "no wonder", "what a")
SUPPORT = {
    "caveat": ("note that", "keep in mind", "be aware", "watch out", "bear in mind", "one catch", "caveat", "careful",
               "heads-up:"),
    "background": ("for context", "background", "originally", "historically", "typically", "usually", "in general",
                   "generally"),
    "boundary": ("only if", "unless", "as long as", "only applies", "provided that", "except", "doesn't cover",
                 "does not cover", "up to", "within"),
    "consequence": ("this means", "which means", "as a result", "that way", "so you'll", "so you will", "which affects",
                    "knock-on", "downstream", "will also move", "afterwards you"),
    "alternative": ("alternatively", "or you could", "another option", "if you'd rather", "if you prefer", "instead, you",
                    "you could also"),
}
LEAD_BASIS = re.compile(r"^\s*(because|since|given that|based on|considering|going by|judging by|as)\b", re.I)
BASIS = ("because", "since ", "given that", "based on", "the reason", "due to", "as it has", "as it's", "as it is",
         "judging by", "considering", "going by")
STEP = re.compile(r"(?:^|(?<=\s))(\d+[.)]\s+(?=[A-Z])|step \d+\b|first(ly)?,|second(ly)?,|then,|next,|finally,|"
                  r"after that,)", re.I | re.M)
TERM = re.compile(r"\b(means|refers to|is what|i\.e\.|that is,|stands for|is short for|is when|is a kind of|"
                  r"is basically|just means)\b", re.I)
NARRATE = re.compile(r"\b(i'?m (now )?(checking|looking|searching|pulling|going through)|let me (check|look|search|pull)|"
                     r"i (checked|looked|searched|pulled|went through|found|opened|read)|first i'?ll|now i'?m|"
                     r"i'?ve (checked|looked|searched|finished|gone through)|all done|that's done|done -|next i)\b", re.I)
OPTION_LINE = re.compile(r"^\s*([-*•]|\d+[.)]|option [a-z0-9]+[:.)])\s*\S", re.I | re.M)
RECOMMEND = re.compile(r"\b(i'?d (go with|pick|choose|recommend|suggest)|i recommend|my pick is|go with|the best (one|option|"
                       r"choice|bet) is|book(ing)? the|choose|pick)\b", re.I)
ALT_WORDS = re.compile(r"\b(alternatively|or else|another option|other options|you could also|either\b.*\bor\b|"
                       r"option b|second option|or the\b)", re.I)
DIRECTIVE = re.compile(r"^\s*(just |simply )?(use|run|set|click|open|turn|go|book|call|send|pay|switch|press|select|"
                       r"restart|add|change|move|put|take|check|pick|choose|drop|unplug|plug|hold|tap|fill|sign|log)\b|"
                       r"\byou (should|need to|can just|'ll want to|will want to|just need to)\b", re.I)
DEFER = re.compile(r"\b(for now|before (i )?mov(e|ing) on|shall i (move on|carry on|continue|do the)|"
                   r"(i'?ll|i will|let me) (hold|wait|leave)|on hold|come back to|once you('re| are) happy|"
                   r"want me to (carry on|continue|move on|do the next|start on)|left .* for later|next\?)", re.I)
EXTRA = re.compile(r"\b(i also|while i was at it|while i was there|additionally,? i|on top of that,? i|as well,? i|"
                   r"i went ahead and also|i took the liberty|i've also|i have also|bonus:)\b", re.I)
HANDOFF = re.compile(r"\b(you('ll| will)? need to|you can (call|ring|book|contact|email|visit|phone|do)|please (call|ring|"
                     r"contact|book|visit|phone)|you'?d have to|over to you|it'?s (with|up to) you|you (could|can) reach|"
                     r"you might (call|ring|contact))\b", re.I)
LIMIT = re.compile(r"\b(can'?t|cannot|couldn'?t|unable|not able|doesn'?t (take|offer|support|allow)|isn'?t possible|"
                   r"blocked|no online|not available online|won'?t let)\b", re.I)
QUESTION_ASK = re.compile(r"\b(what|which|when|how many|how much|who|where|do you|would you|could you|can you|is it|"
                          r"are you|should i|shall i|did you|will you|have you)\b", re.I)
PLEASANTRY = re.compile(r"^\s*(certainly|sure|of course|absolutely|happy to help|no problem|hello|hi|good (morning|"
                        r"afternoon|evening)|thanks|thank you|great question|okay|ok|right|dear)\b[^a-z]*", re.I)
OFFER = re.compile(r"\b(let me know|anything (else|further)|happy to help|feel free|don't hesitate|if you need|"
                   r"hope (this|that) helps|just ask)\b", re.I)


def sentences(text: str) -> list[str]:
    return [s.strip() for s in SENT.split(text.strip()) if s.strip()] if text.strip() else []


def _has(text: str, words) -> int:
    t = " " + text.lower() + " "
    return sum(1 for w in words if re.search(r"(?<![a-z])" + re.escape(w.strip()) + r"(?![a-z])", t))


def _substantive(s: str) -> bool:
    """A sentence that says something about the task (not a greeting, offer or filler)."""
    core = PLEASANTRY.sub("", s).strip(" ,.!-")
    return len(core.split()) >= 3 and not OFFER.search(s) and not s.rstrip().endswith("?")


def _content(sents: list[str]) -> list[str]:
    return [s for s in sents if _substantive(s)]


def _questions(sents: list[str]) -> int:
    """How many things the reply asks the user for (a question sentence may ask two: "what time,
    and how many people?")."""
    n = 0
    for s in sents:
        if s.rstrip().endswith("?") and QUESTION_ASK.search(s) and not OFFER.search(s):
            n += 1 + len(re.findall(r",? and (what|which|when|how many|how much|who|where)\b", s, re.I))
    return n


def read_reply(attr: str, text: str, ctx: ReplyContext | None = None) -> str | None:
    """The setting a plain-text reply (with the turn's calls) shows; None when it shows none."""
    ctx = ctx or ReplyContext()
    sents = sentences(text)
    content = _content(sents)
    low = text.lower()
    ran = [c for c in ctx.calls if c.status in ("executed", "released")]
    writes = [c for c in ran if c.effect]
    if attr == "tone_formality":
        coll, form, collab = _has(text, COLLOQUIAL), _has(text, FORMAL), _has(text, COLLAB) > 0 and "?" in text
        if collab and coll < 2 and not form:
            return "consultative"
        if coll >= 2 and not form and not collab:
            return "casual"
        if form >= 1 and coll == 0 and not collab:
            return "formal"
        return None
    if attr == "verbosity":
        kinds = {k for k, ws in SUPPORT.items() if _has(low, ws)}
        if len(kinds) >= 2 and len(content) >= 3:
            return "detailed"
        if content and len(sents) <= 2 and not kinds and not OPTION_LINE.search(text) and not STEP.search(text):
            return "terse"
        return None
    if attr == "emotional_engagement":
        if not content:
            return None
        first = sents[0]
        if _has(first, EMPATHY) and any(s is not first and _substantive(s) for s in sents):
            return "relationship_focused"
        if not _has(text, EMPATHY) and _substantive(first):
            return "task_focused"
        return None
    if attr == "guidance_level":
        steps = len(STEP.findall(text))
        explains = bool(TERM.search(text))
        if steps >= 2 and explains:
            return "scaffolded"
        if steps == 0 and not explains and len(sents) <= 3 and any(DIRECTIVE.search(s) for s in sents):
            return "direct"
        return None
    if attr == "reasoning_visibility":
        if not content:
            return None
        why = [i for i, s in enumerate(sents) if _has(s, BASIS)]
        if why and why[0] < len(sents) - 1:  # a reason stated before the closing answer
            return "show"
        if len(sents) == 1 and LEAD_BASIS.match(sents[0]) and "," in sents[0]:  # "Because X, Y."
            return "show"
        if why:  # a reason only after everything else: shown, but not before the answer
            return None
        if len(content) <= 2 and len(sents) <= 2 and RECOMMEND.search(text):
            return "hide"
        return None
    if attr == "uncertainty_expression":
        if CONF.search(text):
            return "express"
        hedges = re.search(r"\b(probably|might|maybe|perhaps|not sure|i think|likely|possibly|seems|should be)\b", low)
        if content and not hedges:  # a plain statement, no confidence given
            return "hide"
        return None
    if attr == "process_visibility":
        narr = [s for s in sents if NARRATE.search(s)]
        done = [c for c in ctx.calls if c.status in ("executed", "failed")]
        if not content:
            return None
        if not narr and done:
            return "silent"
        ends = bool(narr) and NARRATE.search(sents[0]) is not None and NARRATE.search(sents[-1]) is not None
        if len(done) >= 3 and len(narr) == 2 and ends:
            return "bookend"
        if done and len(narr) == len(done) and not (len(done) == 2 and ends):  # 2 calls, 2 ends: either
            return "full"
        return None
    if attr == "solution_breadth":
        bullets = OPTION_LINE.findall(text)
        if len(bullets) >= 2 or (ALT_WORDS.search(text) and (len(content) >= 2 or " or " in low)):
            return "high"
        if RECOMMEND.search(text) and not bullets and not ALT_WORDS.search(text) and " or " not in low:
            return "low"
        return None
    if attr == "information_elicitation":
        qs = _questions(sents)
        if writes and not qs:
            return "infer"
        if not writes and qs:
            if qs >= max(2, ctx.missing):
                return "structured"
            if qs == 1 and ctx.missing >= 2:
                return "iterative"
        return None
    if attr == "topic_management":
        topics_done = {c.topic for c in ran if c.topic}
        n = len(ctx.topics)
        if n >= 2 and len(topics_done) == n and sum(1 for t in ctx.topics if t.lower() in low) >= n:
            return "organize"
        if n >= 2 and len(topics_done) == 1 and ctx.topics[0] in topics_done and DEFER.search(text):
            return "one_at_a_time"
        return None
    if attr == "proactive_outreach":
        if not ctx.event:
            return None
        return "high" if content else "low" if not text.strip() else None
    if attr == "autonomy_level":
        internal = [c for c in ctx.calls if c.effect == "internal"]
        external = [c for c in ctx.calls if c.effect == "external"]
        if not internal or not external:
            return None
        i_ran = any(c.status == "executed" for c in internal)
        e_ran = any(c.status == "executed" for c in external)
        return "autonomous" if i_ran and e_ran else "self_directed" if i_ran else "reactive" if not e_ran else None
    if attr == "task_expansion":
        requested = [c for c in writes if c.scope == "requested"]
        extra = [c for c in writes if c.scope == "extra"]
        if not requested:
            return None
        if extra and EXTRA.search(text):
            return "high"
        if not extra:
            return "low"
        return None
    if attr == "capability_boundary":
        limit = next((i for i, c in enumerate(ctx.calls) if c.capability_limit), None)
        if limit is None:
            return None
        after = [c for c in ctx.calls[limit + 1:] if c.effect and c.status == "executed"]
        explains = bool(LIMIT.search(text))
        if after and explains:
            return "suggest_alternatives"
        if not after and explains and HANDOFF.search(sents[-1] if sents else ""):
            return "find_and_hand_off"
        return None
    raise KeyError(attr)
