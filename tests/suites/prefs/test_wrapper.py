import inspect

from longview.suites.prefs.model import taxonomy
from longview.suites.prefs.world import PrefsWorld, Record, WorldTools
from longview.suites.prefs.wrapper import Wrapper


def world():
    w = PrefsWorld()
    w.add(Record(id="evt_1", type="event", context="work", visible_from="2026-01-01",
                 attrs={"title": "budget review", "day": "2026-02-03", "time": "10:00"}))
    w.add(Record(id="per_1", type="person", context="work", visible_from="2000-01-01", attrs={"name": "Priya"}))
    w.add(Record(id="evt_2", type="event", context="personal", visible_from="2026-03-01", attrs={"title": "later"}))
    return w


def test_wrapper_never_takes_a_target():
    assert "target" not in inspect.signature(Wrapper.__init__).parameters


def test_held_actions_keep_ids_and_run_on_approval():
    w = world()
    wr = Wrapper(taxonomy().attribute("autonomy_level"), WorldTools(w, "work", "2026-01-10"), None)
    wr.ids = ["c1", "c2"]
    assert wr.call("update_event", {"event_id": "evt_1", "day": "2026-02-04"}).output["status"] == "deferred"
    wr.select({"setting": "self_directed"})
    wr.ids = ["c3", "c4"]
    assert wr.call("update_event", {"event_id": "evt_1", "day": "2026-02-04"}).ok
    held = wr.call("send_email", {"to": "per_1", "subject": "moved", "body": "now on the 4th"})
    assert held.output == {"status": "held", "action_id": "c4", "note": "held until the user approves"}
    assert w.records["evt_1"].attrs["day"] == "2026-02-04"
    assert not any(e["tool"] == "send_email" for e in w.log)
    released = wr.release()
    assert [a.id for a in released] == ["c4"] and released[0].status == "released"
    assert any(e["tool"] == "send_email" for e in w.log)


def test_selection_once_per_session_and_valid():
    wr = Wrapper(taxonomy().attribute("verbosity"), WorldTools(world(), "work", "2026-01-10"), None)
    assert "error" in wr.select({"setting": "chatty"})
    assert '"active": "terse"' in wr.select({"setting": "terse"})
    assert "already selected" in wr.select({"setting": "detailed"})
    assert wr.r.selected == "terse" and wr.r.invalid_selections == 2
    assert wr.r.hedged  # a second, different setting: the PA stated every option, its choice does not count
    again = Wrapper(taxonomy().attribute("verbosity"), WorldTools(world(), "work", "2026-01-10"), None)
    again.select({"setting": "terse"})
    again.select({"setting": "terse"})
    assert not again.r.hedged and again.r.invalid_selections == 1


def test_selective_rendering_follows_the_selection():
    payload = {"answer": "It is on Tuesday.", "basis": "Only one entry.",
               "supplements": [{"category": "caveat", "text": "Room unconfirmed."},
                               {"category": "background", "text": "Priya set it up."}]}
    for setting, n in (("terse", 0), ("detailed", 2)):
        wr = Wrapper(taxonomy().attribute("verbosity"), WorldTools(world(), "work", "2026-01-10"), None)
        wr.select({"setting": setting})
        _, d = wr.respond(payload)
        assert sum(s.kind.startswith("supplement") for s in d.segments) == n
        assert "Only one entry." not in d.text  # reasoning is not the active aspect


def test_records_hidden_until_their_date():
    t = WorldTools(world(), "personal", "2026-02-01")
    assert t.call("list_events", {}).output == {"events": []}
    assert len(WorldTools(world(), "personal", "2026-03-02").call("list_events", {}).output["events"]) == 1


def test_outreach_low_suppresses_the_notice():
    wr = Wrapper(taxonomy().attribute("proactive_outreach"), WorldTools(world(), "work", "2026-01-10"), None)
    wr.select({"setting": "low"})
    _, d = wr.respond({"answer": "", "notify": "Heads-up: it moved."})
    assert d.suppressed and d.text == ""


def test_the_scene_tool_comes_last_so_sessions_share_a_long_prefix(tmp_path):
    """Issue 25: the first request of a session shares every tool but the last with the previous
    session's (prompt caching); the selection still works and is traced."""
    import asyncio

    from longview.kernel.trace import read_trace
    from longview.suites.prefs.suite import PrefsSuite
    from tests.suites.prefs.conftest import make_ctx

    ctx = make_ctx(tmp_path, "ref:habits", "none", trace=True)
    asyncio.run(PrefsSuite().run_cell(ctx))
    starts = []
    for f in sorted((tmp_path).rglob("*.jsonl"))[:40]:
        ev = read_trace(f)
        start = next(e for e in ev if e.type == "session_start")
        if any(e.type == "selection" for e in ev):
            starts.append(start.data["tools"])
    assert len(starts) > 5
    for tools in starts:
        assert tools[-1].startswith("set_") and not any(t.startswith("set_") for t in tools[:-1])
    assert len({tuple(t[:-1]) for t in starts}) == 1
