"""Construction checks (App. C.5, made mechanical): every setting is enactable and observable, the
matrices are well-formed, the timeline is ordered, and no session text leaks its target."""

from __future__ import annotations

import asyncio
import re
from collections import Counter

from pydantic import BaseModel, Field

from longview.suites.prefs.agents import ScriptedPA
from longview.suites.prefs.checks import brs, observe
from longview.suites.prefs.dataset import PrefsDataset, UserData, diff_pairs, final_matrix, qc_matrix
from longview.suites.prefs.model import CONTEXTS, Taxonomy, taxonomy
from longview.suites.prefs.user import Said, audit


class QCReport(BaseModel):
    problems: list[str] = Field(default_factory=list, description="Every failed check.")
    enacted: int = Field(default=0, description="(probe scene, setting) pairs realised.")
    observed_ok: int = Field(default=0, description="... whose delivered behaviour showed that setting.")
    differing_pairs: int = Field(default=0, description="Work/personal pairs whose settings differ, over all users "
                                 "(the same at the start and at the final probes; the paper: 18 over 4 users).")
    leaks: int = Field(default=0, description="Session texts that leak a preference.")
    lines_checked: int = Field(default=0, description="Simulator lines checked against delivered and wanted settings.")
    habit_cells: int = Field(default=0, description="Final-probe cells whose target differs from the habit.")
    habit_fails: int = Field(default=0, description="... where the enacted habit scores BRS < 5 against the target.")

    @property
    def ok(self) -> bool:
        return not self.problems

    def lines(self) -> list[str]:
        out = [f"QC: {self.observed_ok}/{self.enacted} settings enacted and observed; habits fail "
               f"{self.habit_fails}/{self.habit_cells} cells where the target differs; {self.leaks} leaking texts; "
               f"{self.lines_checked} user lines checked for consistency; {self.differing_pairs} differing "
               "work/personal pairs (start = final)"]
        out += [f"  problem: {p}" for p in self.problems[:20]]
        out.append("QC passed" if self.ok else f"QC FAILED ({len(self.problems)} problems)")
        return out


class Forced(ScriptedPA):
    name = "qc:forced"

    def __init__(self, scenes, setting: str) -> None:
        super().__init__(scenes)
        self.setting = setting

    def choose(self, attr, obs):
        return self.setting


async def _enact(ud: UserData, report: QCReport) -> None:
    from longview.memory.simple import NoMemory
    from longview.suites.prefs.runner import Timeline

    tax = taxonomy()
    for sc in ud.final_probes:
        attr = tax.attribute(sc.attribute)
        for s in attr.setting_ids:
            tl = Timeline(None, ud, NoMemory(), Forced({sc.sid: sc}, s), trace_sessions=False)
            world = tl.world.branch()
            for rec in sc.records:
                world.add(rec)
            r, *_ = await tl.session(sc, world, NoMemory(), tl.sim, tl.agent, probe=True)
            report.enacted += 1
            seen = observe(attr.id, r, sc.kit)
            if seen == s:
                report.observed_ok += 1
            else:
                report.problems.append(f"{sc.sid}: setting {s} enacted but observed {seen}")
            target = ud.user.target(sc.context, attr.id, sc.day)
            if s == attr.habit and target != s:
                report.habit_cells += 1
                if brs(attr.id, target, r, sc.kit) < 5:
                    report.habit_fails += 1
                else:
                    report.problems.append(f"{sc.sid}: the habit {s} passes against target {target}")


def line_problems(tax: Taxonomy) -> list[str]:
    """Every line the simulator can say must fit both the delivered and the wanted setting: a
    complaint about delivered D is said only to a user whose target is in its ``asks_for``, so it
    must not ask for D itself (the contradiction of a line written for the opposite setting), and
    every (delivered, wanted) pair needs a line (else the user has nothing consistent to say)."""
    out = []
    for a in tax.attributes:
        for d in a.settings:
            for line in d.complaint:
                if d.id in line.asks_for:
                    out.append(f"{a.id}: complaint about {d.id} asks for {d.id} itself: {line.say!r}")
            for w in a.setting_ids:
                if w != d.id and not a.complaints(d.id, w):
                    out.append(f"{a.id}: no complaint for a user who wanted {w} and got {d.id}")
    return out


def run_qc(ds: PrefsDataset) -> QCReport:
    report = QCReport()
    tax = taxonomy()
    report.lines_checked = sum(len(s.complaint) + len(s.want) for a in tax.attributes for s in a.settings)
    report.problems += line_problems(tax)
    for ud in ds.users:
        u = ud.user
        report.problems += [f"{u.id}: {p}" for p in qc_matrix(u.matrix)]
        report.differing_pairs += diff_pairs(u.matrix)
        if diff_pairs(final_matrix(u.matrix, u.changes)) != diff_pairs(u.matrix):
            report.problems.append(f"{u.id}: the change events alter the number of differing pairs")
        kinds = Counter((s.context, s.attribute, s.kind) for s in ud.sessions)
        changed = {(c.context, c.attribute): c for c in u.changes}
        if len(u.changes) != 5 or len(changed) != 5:
            report.problems.append(f"{u.id}: expected 5 change events on distinct cells")
        for c in CONTEXTS:
            for a in tax.ids:
                ev = changed.get((c, a))
                want = 5 if ev else 3
                if kinds[(c, a, "accumulation")] != want:
                    report.problems.append(f"{u.id}: {c}/{a} has {kinds[(c, a, 'accumulation')]} accumulation sessions")
                if ev:
                    before = [s for s in ud.sessions if (s.context, s.attribute) == (c, a) and s.kind == "accumulation" and s.day < ev.day]
                    if len(before) != 3:
                        report.problems.append(f"{u.id}: {c}/{a} needs 3 sessions before its change")
        days = [s.day for s in ud.sessions]
        if days != sorted(days):
            report.problems.append(f"{u.id}: sessions out of date order")
        said = [Said(sid=s.sid, kind=s.kind, text=s.request, trigger="request") for s in ud.sessions + ud.final_probes + ud.pre_probes]
        aud = audit(said)
        report.leaks += aud["leaks"]
        report.problems += [f"{u.id}: leak in {x['sid']}: {x['why']}" for x in aud["examples"]]
        asyncio.run(_enact(ud, report)) if not _running_loop() else None
    return report


def _running_loop() -> bool:
    try:
        asyncio.get_running_loop()
        return True
    except RuntimeError:
        return False


def profile_prediction(ds: PrefsDataset) -> tuple[float, float]:
    """Accuracy of predicting all 28 settings from the profile text alone (a lexical predictor:
    the setting whose definition and cue words overlap the profile most), and the chance level."""
    from longview.text import content_words, stem

    tax = taxonomy()
    hits = total = 0
    chance = 0.0
    for ud in ds.users:
        prof = content_words(ud.user.profile.text())
        for c in CONTEXTS:
            for a in tax.attributes:
                scores = {s.id: len(prof & (content_words(s.definition) | {stem(w) for w in s.cues})) for s in a.settings}
                guess = max(a.setting_ids, key=lambda sid: (scores[sid], -a.setting_ids.index(sid)))
                hits += guess == ud.user.matrix[c][a.id]
                total += 1
                chance += 1 / len(a.settings)
    return hits / total, chance / total


_ = re
