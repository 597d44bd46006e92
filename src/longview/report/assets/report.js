/* longview report: draws the Vega-Lite plots, filters the session index and renders transcripts,
   which travel gzip-compressed per cell and are decompressed only when opened. No network. */
(function () {
  "use strict";
  const LV = JSON.parse(document.getElementById("lv-data").textContent);
  const CHUNKS = JSON.parse(document.getElementById("lv-chunks").textContent);
  const $ = (sel, el) => (el || document).querySelector(sel);
  const $$ = (sel, el) => Array.from((el || document).querySelectorAll(sel));
  // Every value from a run reaches the page as text: elements are built here, strings become text
  // nodes, and only the attributes below can be set (no event handlers, no URLs but in-page anchors).
  const ATTRS = new Set(["class", "id", "value", "href", "data-i", "data-open", "data-filter", "title"]);
  function h(tag, attrs, ...children) {
    const el = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (!ATTRS.has(k) || (k === "href" && !String(v).startsWith("#"))) throw new Error("longview: refused attribute " + k);
      el.setAttribute(k, String(v));
    }
    const add = (c) => {
      if (c == null || c === "") return;
      if (Array.isArray(c)) c.forEach(add);
      else el.append(c instanceof Node ? c : document.createTextNode(typeof c === "string" ? c : String(c)));
    };
    children.forEach(add);
    return el;
  }
  const S = {cell: 0, sid: 1, phase: 2, outcome: 3, turns: 4, end: 5, tools: 6, first: 7, start: 8, stop: 9, labels: 10, reason: 11};
  const C = {run: 0, name: 1, agent: 2, variant: 3, unit: 4, status: 5, reason: 6};
  const LIMIT = 300;

  // ------------------------------------------------------------------ plots
  async function drawPlots() {
    for (const el of $$(".plot[data-plot]")) {
      const spec = LV.plots[el.dataset.plot];
      try {
        const vg = vegaLite.compile(spec).spec;
        // Vega's own expression compiler builds functions from source text (new Function), which the
        // page's Content-Security-Policy forbids; its AST interpreter evaluates the same expressions.
        const view = new vega.View(vega.parse(vg, null, {ast: true}), {renderer: "svg", container: el, hover: true,
          logLevel: vega.Error, expr: vega.expressionInterpreter});
        await view.runAsync();
        el.dataset.rendered = "1";
      } catch (err) {
        el.textContent = "plot failed: " + err;
        el.dataset.rendered = "error";
        console.error("longview plot " + el.dataset.plot, err);
      }
    }
    document.body.dataset.plots = "done";
  }

  // ------------------------------------------------------------------ session index and filters
  const state = {q: "", cell: "", phase: "", outcome: "", tool: "", pin: {}, deep: false};
  const deepText = new Map();  // session index -> its whole transcript, lower-cased (filled on demand)
  const searchText = LV.sessions.map((s) => {
    const c = LV.cells[s[S.cell]];
    return [s[S.sid], c[C.agent], c[C.variant], c[C.unit], s[S.phase], s[S.end], s[S.first],
      s[S.tools].map((t) => LV.tools[t]).join(" "), Object.values(s[S.labels] || {}).join(" ")].join(" ").toLowerCase();
  });

  function cellLabel(ci) {
    const c = LV.cells[ci];
    const run = LV.runs.length > 1 ? LV.runs[c[C.run]].label + " · " : "";
    return run + c[C.agent] + " · " + c[C.variant] + " · " + c[C.unit] + (c[C.status] === "aborted" ? " (aborted)" : "");
  }

  function fillSelects() {
    const used = new Set(LV.sessions.map((s) => s[S.cell]));
    LV.cells.forEach((c, i) => { if (used.has(i)) $("#f-cell").append(h("option", {value: String(i)}, cellLabel(i))); });
    const phases = [...new Set(LV.sessions.map((s) => s[S.phase]).filter(Boolean))].sort();
    for (const p of phases) $("#f-phase").append(h("option", {value: String(p)}, p));
    const tools = LV.tools.map((t, i) => [String(t), i]).sort();
    for (const [t, i] of tools) $("#f-tool").append(h("option", {value: String(i)}, t));
  }

  function matches(s, i) {
    const c = LV.cells[s[S.cell]], p = state.pin;
    if (p.run != null && c[C.run] !== p.run) return false;
    if (p.agent != null && c[C.agent] !== p.agent) return false;
    if (p.variant != null && c[C.variant] !== p.variant) return false;
    if (p.unit != null && c[C.unit] !== p.unit) return false;
    if (p.label != null && !Object.values(s[S.labels] || {}).includes(p.label)) return false;
    if (state.cell !== "" && s[S.cell] !== +state.cell) return false;
    if (state.phase && s[S.phase] !== state.phase) return false;
    if (state.outcome === "none" ? s[S.outcome] != null : state.outcome && s[S.outcome] !== state.outcome) return false;
    if (state.tool !== "" && !s[S.tools].includes(+state.tool)) return false;
    if (state.q) {
      const hay = state.deep && deepText.has(i) ? searchText[i] + " " + deepText.get(i) : searchText[i];
      for (const w of state.q.toLowerCase().split(/\s+/)) if (w && !hay.includes(w)) return false;
    }
    return true;
  }

  function filtered() {
    const out = [];
    LV.sessions.forEach((s, i) => { if (matches(s, i)) out.push(i); });
    return out;
  }

  function badge(o) {
    return o === "fail" ? h("span", {class: "badge fail"}, "fail") : o === "pass" ? h("span", {class: "badge pass"}, "pass")
      : h("span", {class: "badge"}, "–");
  }

  const pairs = (obj, sep) => Object.entries(obj || {}).map(([k, v]) => `${k}=${v}`).join(sep);

  function renderList() {
    const idx = filtered();
    const pins = Object.entries(state.pin).filter(([k]) => k !== "open");
    const count = $("#count");
    count.replaceChildren(`${idx.length} of ${LV.sessions.length} sessions${idx.length > LIMIT ? ` (first ${LIMIT} shown)` : ""}`);
    if (pins.length) {
      const unpin = h("a", {href: "#sessions", id: "unpin"}, "unpin");
      unpin.addEventListener("click", (e) => { e.preventDefault(); state.pin = {}; renderList(); });
      count.append(" · pinned " + pins.map(([k, v]) => `${k}=${k === "run" ? LV.runs[v].label : v}`).join(", ") + " ", unpin);
    }
    const rows = idx.slice(0, LIMIT).map((i) => {
      const s = LV.sessions[i];
      return h("tr", {"data-i": String(i), class: "srow"}, h("td", {}, badge(s[S.outcome])), h("td", {class: "sid"}, s[S.sid]),
        h("td", {}, cellLabel(s[S.cell])), h("td", {}, s[S.phase]), h("td", {}, s[S.turns]), h("td", {}, s[S.end]),
        h("td", {class: "note"}, pairs(s[S.labels], " ")));
    });
    const head = ["", "session", "cell", "phase", "turns", "end", "labels"].map((t) => h("th", {}, t));
    $("#list").replaceChildren(h("table", {class: "sessions"}, h("thead", {}, h("tr", {}, head)), h("tbody", {}, rows)));
    return idx;
  }

  // ------------------------------------------------------------------ transcripts
  const chunkCache = new Map();
  async function loadChunk(ci) {
    if (chunkCache.has(ci)) return chunkCache.get(ci);
    const b64 = CHUNKS[String(ci)];
    if (!b64) return {};
    const bin = atob(b64);
    const bytes = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
    const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
    const texts = JSON.parse(await new Response(stream).text());
    chunkCache.set(ci, texts);
    return texts;
  }

  const pretty = (v) => typeof v === "string" ? v : JSON.stringify(v, null, 2);
  const short = (v, n) => { const t = typeof v === "string" ? v : String(JSON.stringify(v)); return t.length > n ? t.slice(0, n - 1) + "…" : t; };
  const fold = (summary, body) => h("details", {}, h("summary", {}, summary), h("pre", {}, pretty(body)));

  // What the model was given in a session: its system prompt, tool schemas and parameters (stored
  // once per cell, named by hash in session_start). Shown as text, folded until opened.
  function sawBlock(d, prompts) {
    const p = d.prompt && Object.prototype.hasOwnProperty.call(prompts, d.prompt) ? prompts[d.prompt] : null;
    if (!p) return d.prompt ? h("span", {class: "note"}, " · prompt not kept in this run folder") : "";
    const tools = Array.isArray(p.tools) ? p.tools : [];
    const toolBlocks = tools.map((t) => {
      const f = t && typeof t === "object" && t.function && typeof t.function === "object" ? t.function : t || {};
      return h("details", {class: "tool-schema"}, h("summary", {}, h("span", {class: "tool"}, f.name), " ",
        h("span", {class: "note"}, short(f.description || "", 120))), h("pre", {}, pretty(f.parameters || {})));
    });
    const params = d.params && typeof d.params === "object" ? h("pre", {class: "params"}, pretty(d.params)) : "";
    return h("details", {class: "saw"}, h("summary", {}, "what the model saw"),
      h("div", {class: "note"}, "system prompt"), h("pre", {class: "system"}, typeof p.system === "string" ? p.system : pretty(p.system)),
      h("div", {class: "note"}, `tools (${tools.length})`), toolBlocks,
      params ? [h("div", {class: "note"}, "parameters"), params] : "");
  }

  function renderEvents(events, prompts) {
    prompts = prompts || {};
    const results = new Map();
    for (const e of events) if (e.type === "tool_call" && e.data && e.data.call_id) results.set(e.data.call_id, e);
    const shown = new Set();
    let day = "";
    const out = [];
    for (const e of events) {
      const d = e.data && typeof e.data === "object" ? e.data : {};
      let when = "";
      if (typeof e.clock === "string" && e.clock) {
        const dd = e.clock.slice(0, 10);
        when = (dd !== day ? dd + " " : "") + e.clock.slice(11, 16);
        day = dd;
      }
      const t = h("span", {class: "clock"}, when);
      if (e.type === "session_start") {
        const tools = Array.isArray(d.tools) ? d.tools : [];
        out.push(h("div", {class: "ev meta"}, t, "session ", h("b", {}, e.session_id), " · phase ", d.phase, " · agent ", d.agent, " · ",
          h("details", {class: "inline"}, h("summary", {}, `${tools.length} tools`), tools.join(", ")), sawBlock(d, prompts)));
      } else if (e.type === "activation") {
        out.push(h("div", {class: "ev event"}, t, h("b", {}, "woken by ", d.trigger), ": ", d.text));
      } else if (e.type === "user_message") {
        out.push(h("div", {class: "ev user"}, t, h("span", {class: "who"}, "user"), h("div", {class: "msg"}, d.text)));
      } else if (e.type === "assistant_turn") {
        const parts = [];
        if (d.text) parts.push(h("div", {class: "msg"}, d.text));
        for (const c of Array.isArray(d.tool_calls) ? d.tool_calls : []) {
          if (!c || typeof c !== "object") continue;
          const args = c.arguments || {};
          if (c.name === "send_to_user" && typeof args.output === "string") {
            parts.push(h("div", {class: "msg to-user"}, h("span", {class: "note"}, "to user:"), " ", args.output));
            continue;
          }
          const r = results.get(c.id);
          if (r) shown.add(r.seq);
          const rd = r ? r.data : null;
          const status = !rd ? "" : rd.ok ? h("span", {class: "ok"}, "ok") : h("span", {class: "bad"}, "failed: ", rd.error);
          const kind = rd && rd.kind ? [" ", h("span", {class: "note"}, "[", rd.kind, "]")] : "";
          const res = rd && rd.output !== undefined ? fold("result " + short(rd.output, 90), rd.output) : "";
          parts.push(h("div", {class: "call"}, h("span", {class: "tool"}, c.name), "(", h("span", {class: "args"}, short(args, 160)), ")",
            kind, " ", status, fold("arguments", args), res));
        }
        const u = d.usage && d.usage.input_tokens ? [" ", h("span", {class: "note"}, `${d.usage.input_tokens} in / ${d.usage.output_tokens} out tokens`)] : "";
        out.push(h("div", {class: "ev assistant"}, t, h("span", {class: "who"}, `assistant · turn ${e.turn}`), u,
          parts.length ? parts : h("div", {class: "note"}, "(empty turn)")));
      } else if (e.type === "tool_call") {
        if (shown.has(e.seq)) continue;
        const st = d.ok ? h("span", {class: "ok"}, "ok") : h("span", {class: "bad"}, "failed: ", d.error);
        out.push(h("div", {class: "ev call"}, t, h("span", {class: "tool"}, d.name), "(", short(d.arguments || {}, 160), ") ", st,
          fold("result", d.output)));
      } else if (e.type === "session_end") {
        out.push(h("div", {class: "ev meta"}, t, "ended: ", h("b", {}, d.reason), ` after ${d.turns} turns`));
      } else {
        const fields = [];
        for (const [k, v] of Object.entries(d)) fields.push(fields.length ? " · " : "", h("span", {class: "k"}, k), "=", short(v, 200));
        out.push(h("div", {class: "ev event"}, t, h("span", {class: "etype"}, e.type),
          e.turn != null ? [" ", h("span", {class: "note"}, `turn ${e.turn}`)] : "", " ", fields));
      }
    }
    return out;
  }

  async function openSession(ci, sid) {
    const box = $("#transcript");
    box.replaceChildren(h("p", {class: "note"}, "decompressing…"));
    const texts = await loadChunk(ci);
    const text = Object.prototype.hasOwnProperty.call(texts, sid) ? texts[sid] : null;
    const s = LV.sessions.find((x) => x[S.cell] === ci && x[S.sid] === sid);
    if (typeof text !== "string") { box.replaceChildren(h("p", {class: "bad"}, `No transcript for ${sid}.`)); return; }
    const events = text.split("\n").filter((l) => l.trim()).map((l) => { try { return JSON.parse(l); } catch (e) { return null; } })
      .filter((e) => e && typeof e === "object");
    const labels = s ? pairs(s[S.labels], " · ") : "";
    const c = LV.cells[ci];
    const aborted = c[C.status] === "aborted" ? h("p", {class: "bad"}, "cell aborted: ", c[C.reason]) : "";
    const why = s && s[S.reason] ? h("p", {class: s[S.outcome] === "fail" ? "bad" : "ok"}, `${s[S.outcome] || ""}: `, s[S.reason]) : "";
    const when = s && typeof s[S.start] === "string" && s[S.start] ? ` · simulated ${s[S.start].replace("T", " ")} → ${String(s[S.stop]).slice(11, 16)}` : "";
    const head = h("div", {class: "thead"}, h("h3", {}, sid, " ", s ? badge(s[S.outcome]) : ""),
      h("p", {class: "note"}, cellLabel(ci), labels ? " · " + labels : "", when), why, aborted);
    let prompts = {};
    try { prompts = typeof texts["/prompts"] === "string" ? JSON.parse(texts["/prompts"]) : {}; } catch (e) { prompts = {}; }
    box.replaceChildren(head, ...renderEvents(events, prompts && typeof prompts === "object" ? prompts : {}));
    box.dataset.sid = sid;
    $$(".srow").forEach((r) => r.classList.toggle("sel", LV.sessions[+r.dataset.i][S.sid] === sid && LV.sessions[+r.dataset.i][S.cell] === ci));
  }

  async function loadAllTranscripts() {
    $("#count").textContent = "decompressing every transcript…";
    const where = new Map();
    LV.sessions.forEach((s, i) => where.set(s[S.cell] + "|" + s[S.sid], i));
    for (const ci of Object.keys(CHUNKS)) {
      const texts = await loadChunk(+ci);
      for (const [sid, text] of Object.entries(texts)) {
        const i = where.get(ci + "|" + sid);
        if (i !== undefined) deepText.set(i, text.toLowerCase());
      }
    }
  }

  function applyFilter(f) {
    state.pin = {};
    for (const k of ["run", "agent", "variant", "unit", "label"]) if (f[k] != null) state.pin[k] = f[k];
    state.cell = ""; state.phase = ""; state.tool = ""; state.q = "";
    state.outcome = f.outcome || "";
    $("#f-cell").value = ""; $("#f-phase").value = ""; $("#f-tool").value = ""; $("#q").value = "";
    $("#f-outcome").value = state.outcome;
    const idx = renderList();
    document.getElementById("sessions").scrollIntoView();
    if (f.open && idx.length) { const s = LV.sessions[idx[0]]; openSession(s[S.cell], s[S.sid]); }
  }

  function wire() {
    document.addEventListener("click", (e) => {
      const a = e.target.closest("[data-open],[data-filter],.srow");
      if (!a) return;
      e.preventDefault();
      if (a.dataset.open) {
        const k = a.dataset.open.indexOf("|");
        const ci = +a.dataset.open.slice(0, k), sid = a.dataset.open.slice(k + 1);
        const s = LV.sessions.find((x) => x[S.cell] === ci && x[S.sid] === sid);
        applyFilter({run: LV.cells[ci][C.run], agent: LV.cells[ci][C.agent], variant: LV.cells[ci][C.variant], unit: LV.cells[ci][C.unit], outcome: s ? s[S.outcome] || "" : ""});
        openSession(ci, sid);
      } else if (a.dataset.filter) {
        applyFilter(JSON.parse(a.dataset.filter));
      } else {
        const s = LV.sessions[+a.dataset.i];
        openSession(s[S.cell], s[S.sid]);
      }
    });
    let timer = null;
    $("#q").addEventListener("input", (e) => { clearTimeout(timer); timer = setTimeout(() => { state.q = e.target.value.trim(); renderList(); }, 120); });
    for (const [id, key] of [["#f-cell", "cell"], ["#f-phase", "phase"], ["#f-outcome", "outcome"], ["#f-tool", "tool"]]) {
      $(id).addEventListener("change", (e) => { state[key] = e.target.value; renderList(); });
    }
    $("#f-clear").addEventListener("click", () => applyFilter({}));
    $("#deep").addEventListener("change", async (e) => {
      state.deep = e.target.checked;
      if (state.deep && deepText.size === 0) await loadAllTranscripts();
      renderList();
    });
  }

  fillSelects();
  wire();
  renderList();
  drawPlots();
  window.longview = {openSession, applyFilter, state};
})();
