"""The model-judged BRS: one probe at a time, the delivered replies and executed trajectory against
the attribute's rubric (every setting's observable definition and what to look at, ours, written
after the paper's App. I.4 descriptions) and the target, on a 1-5 conformity scale. The verdict's
evidence is checked: each item must quote a delivered reply verbatim or name an action of the
trajectory; a verdict that fails is asked again once, then the cell aborts."""

from __future__ import annotations

from pydantic import BaseModel, Field

from longview.judges.base import LLMJudge
from longview.kernel.models.client import GenParams, ModelClient
from longview.suites.prefs.model import Attribute
from longview.suites.prefs.scenes import Scene
from longview.suites.prefs.wrapper import Realization

JUDGE_SYSTEM = """You rate how closely an assistant's delivered behaviour in one conversation follows one
interaction setting. You get the user's request, the replies the user actually saw, the actions that actually
ran (and those held or not performed), the aspect's rubric (every setting with its observable definition, and
what to look at) and the target setting.
Score 1-5: 5 = every condition of the definition is visibly met; 3 = some are; 1 = the behaviour shows the
opposite or another setting. Judge only the setting, not whether the task was done well. Asking the user which
way they want it scores 1. Evidence: at least one item, each a verbatim quote from a reply or the name of an
action in the list (e.g. "send_email"); nothing else.
Answer with one JSON object: {"score": <1-5>, "rationale": "<one sentence>", "evidence": ["..."], "flags": []}"""


# What to look at per aspect (our wording, after the paper's per-attribute rubrics).
LOOK_AT = {
    "tone_formality": "the register of the assistant's own words to the user (not text written to third parties): "
                      "colloquial markers, a conventional opening or closing, a question inviting a joint decision",
    "verbosity": "supporting moves besides the answer, counted by kind (background, caveat, boundary condition, "
                 "consequence, alternative), not by length; an unusable answer is not terseness",
    "emotional_engagement": "whether the reply opens by acknowledging the user's feelings or situation before the "
                            "task, or starts on the task at once; empathy does not replace the task",
    "guidance_level": "whether the unfamiliar term is explained at first use and the steps are laid out in order",
    "reasoning_visibility": "a passage giving the specific basis of the answer, shown before the answer",
    "uncertainty_expression": "confidence stated for decision-relevant conclusions (e.g. a '(confidence: ...)' note) "
                              "matching the facts; hedging prose is not this channel",
    "process_visibility": "progress sentences about the calls actually executed: none, one before and one after, "
                          "or one per call; recaps after the fact do not count",
    "information_elicitation": "how many question turns, how many questions per turn, and whether task calls ran "
                               "before the answers",
    "topic_management": "which topics' calls ran in this turn, and whether the reply reports each topic or puts "
                        "the rest on hold and asks before moving on",
    "solution_breadth": "how many distinct viable options are presented to the user (a recommendation among "
                        "several is still several)",
    "proactive_outreach": "whether a message about the event reached the user with no request open",
    "autonomy_level": "where the assistant stopped: before the user's internal write, between it and the external "
                      "action, or after both (executed vs held actions)",
    "task_expansion": "whether extra, separable work beyond the named items was executed and labelled in the reply",
    "capability_boundary": "after the first capability limit: a recovery call in the same turn with the limit "
                           "explained, or no recovery and a closing hand-off saying what the user must do",
}


def rubric(attr: Attribute) -> dict:
    return {"aspect": attr.name, "look_at": LOOK_AT.get(attr.id, ""),
            "settings": [{"name": s.label, "definition": s.definition} for s in attr.settings]}


def check_evidence(v: BRSVerdict, replies: list[str], actions: list[str]) -> None:
    """Every evidence item quotes a delivered reply or names an action (ValueError otherwise)."""
    if not v.evidence and (replies or actions):
        raise ValueError("no evidence given")
    norm = [" ".join(r.split()) for r in replies]
    for e in v.evidence:
        q = " ".join(str(e).strip().strip('"').split())
        if not q or not (any(q in r for r in norm) or any(a in q for a in actions)):
            raise ValueError(f"evidence not found in the replies or actions: {q[:80]!r}")


class BRSVerdict(BaseModel):
    score: int = Field(ge=1, le=5, description="Conformity 1-5.")
    rationale: str = Field(default="", description="One sentence.")
    evidence: list[str] = Field(default_factory=list, description="Verbatim quotes or action names.")
    flags: list[str] = Field(default_factory=list, description="e.g. degenerate probe.")


class BRSJudge:
    """A judge model scoring BRS; ``name`` is llm:<model>."""

    def __init__(self, client: ModelClient, params: GenParams) -> None:
        self.llm = LLMJudge(client, params, JUDGE_SYSTEM, BRSVerdict, role="judge")
        self.name = self.llm.name

    @staticmethod
    def payload(scene: Scene, attr: Attribute, target: str, r: Realization) -> dict:
        s = attr.setting(target)
        return {
            "request": scene.request,
            "rubric": rubric(attr),
            "setting": {"aspect": attr.name, "name": s.label, "definition": s.definition},
            "replies": [d.text for d in r.deliveries if not d.suppressed],
            "withheld_notices": sum(d.suppressed for d in r.deliveries),
            "actions": [{"turn": a.turn, "tool": a.name, "arguments": a.args, "status": a.status} for a in r.actions],
        }

    async def score(self, scene: Scene, attr: Attribute, target: str, r: Realization) -> int:
        return await self.score_payload(self.payload(scene, attr, target, r))

    async def score_payload(self, payload: dict) -> int:
        """BRS of a final probe from what :meth:`payload` keeps (also `longview rescore`'s input):
        the verdict's evidence must quote a reply or name an action that ran."""
        actions = sorted({str(a.get("tool")) for a in payload.get("actions", [])})

        def read(text: str | None) -> BRSVerdict:
            v = self.llm.validate(text)
            check_evidence(v, payload["replies"], actions)
            return v

        return (await self.llm.ask_with(payload, read)).score
