/* longview report: draws the Vega-Lite plots, filters the session index and renders transcripts,
   which travel gzip-compressed per cell and are decompressed only when opened. No network. */
(function () {
  "use strict";
  const LV = JSON.parse(document.getElementById("lv-data").textContent);
  const CHUNKS = JSON.parse(document.getElementById("lv-chunks").textContent);
  const $ = (sel, el) => (el || document).querySelector(sel);
  const $$ = (sel, el) => Array.from((el || document).querySelectorAll(sel));
  const esc = (s) => String(s == null ? "" : s).replace(/[&<>"']/g, (c) => ({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;"}[c]));
  const S = {cell: 0, sid: 1, phase: 2, outcome: 3, turns: 4, end: 5, tools: 6, first: 7, start: 8, stop: 9, labels: 10, reason: 11};
  const C = {run: 0, name: 1, agent: 2, variant: 3, unit: 4, status: 5, reason: 6};
  const LIMIT = 300;

  // ------------------------------------------------------------------ plots
  async function drawPlots() {
    for (const el of $$(".plot[data-plot]")) {
      const spec = LV.plots[el.dataset.plot];
      try {
        const vg = vegaLite.compile(spec).spec;
        const view = new vega.View(vega.parse(vg), {renderer: "svg", container: el, hover: true, logLevel: vega.Error});
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
    $("#f-cell").insertAdjacentHTML("beforeend", LV.cells.map((c, i) => used.has(i) ? `<option value="${i}">${esc(cellLabel(i))}</option>` : "").join(""));
    const phases = [...new Set(LV.sessions.map((s) => s[S.phase]).filter(Boolean))].sort();
    $("#f-phase").insertAdjacentHTML("beforeend", phases.map((p) => `<option>${esc(p)}</option>`).join(""));
    const tools = LV.tools.map((t, i) => [t, i]).sort();
    $("#f-tool").insertAdjacentHTML("beforeend", tools.map(([t, i]) => `<option value="${i}">${esc(t)}</option>`).join(""));
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
    return o === "fail" ? '<span class="badge fail">fail</span>' : o === "pass" ? '<span class="badge pass">pass</span>' : '<span class="badge">–</span>';
  }

  function renderList() {
    const idx = filtered();
    const pins = Object.entries(state.pin).filter(([k]) => k !== "open");
    const pinText = pins.length ? " · pinned " + pins.map(([k, v]) => `${k}=${k === "run" ? LV.runs[v].label : v}`).join(", ") + ' <a href="#sessions" id="unpin">unpin</a>' : "";
    $("#count").innerHTML = `${idx.length} of ${LV.sessions.length} sessions${idx.length > LIMIT ? ` (first ${LIMIT} shown)` : ""}${pinText}`;
    const rows = idx.slice(0, LIMIT).map((i) => {
      const s = LV.sessions[i];
      const labels = Object.entries(s[S.labels] || {}).map(([k, v]) => `${k}=${v}`).join(" ");
      return `<tr data-i="${i}" class="srow"><td>${badge(s[S.outcome])}</td><td class="sid">${esc(s[S.sid])}</td><td>${esc(cellLabel(s[S.cell]))}</td>` +
        `<td>${esc(s[S.phase])}</td><td>${s[S.turns]}</td><td>${esc(s[S.end])}</td><td class="note">${esc(labels)}</td></tr>`;
    }).join("");
    $("#list").innerHTML = `<table class="sessions"><thead><tr><th></th><th>session</th><th>cell</th><th>phase</th><th>turns</th><th>end</th><th>labels</th></tr></thead><tbody>${rows}</tbody></table>`;
    const unpin = $("#unpin");
    if (unpin) unpin.addEventListener("click", (e) => { e.preventDefault(); state.pin = {}; renderList(); });
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

  const pretty = (v) => esc(typeof v === "string" ? v : JSON.stringify(v, null, 2));
  const short = (v, n) => { const t = typeof v === "string" ? v : JSON.stringify(v); return t.length > n ? t.slice(0, n - 1) + "…" : t; };

  function renderEvents(events) {
    const results = new Map();
    for (const e of events) if (e.type === "tool_call" && e.data && e.data.call_id) results.set(e.data.call_id, e);
    const shown = new Set();
    let day = "";
    const out = [];
    for (const e of events) {
      const d = e.data || {};
      let when = "";
      if (e.clock) {
        const dd = e.clock.slice(0, 10);
        when = (dd !== day ? dd + " " : "") + e.clock.slice(11, 16);
        day = dd;
      }
      const t = `<span class="clock">${esc(when)}</span>`;
      if (e.type === "session_start") {
        const tools = d.tools || [];
        out.push(`<div class="ev meta">${t}session <b>${esc(e.session_id)}</b> · phase ${esc(d.phase)} · agent ${esc(d.agent)} · <details class="inline"><summary>${tools.length} tools</summary>${esc(tools.join(", "))}</details></div>`);
      } else if (e.type === "activation") {
        out.push(`<div class="ev event">${t}<b>woken by ${esc(d.trigger)}</b>: ${esc(d.text)}</div>`);
      } else if (e.type === "user_message") {
        out.push(`<div class="ev user">${t}<span class="who">user</span><div class="msg">${esc(d.text)}</div></div>`);
      } else if (e.type === "assistant_turn") {
        const parts = [];
        if (d.text) parts.push(`<div class="msg">${esc(d.text)}</div>`);
        for (const c of d.tool_calls || []) {
          const args = c.arguments || {};
          if (c.name === "send_to_user" && typeof args.output === "string") {
            parts.push(`<div class="msg to-user"><span class="note">to user:</span> ${esc(args.output)}</div>`);
            continue;
          }
          const r = results.get(c.id);
          if (r) shown.add(r.seq);
          const rd = r ? r.data : null;
          const status = !rd ? "" : rd.ok ? `<span class="ok">ok</span>` : `<span class="bad">failed: ${esc(rd.error)}</span>`;
          const kind = rd && rd.kind ? ` <span class="note">[${esc(rd.kind)}]</span>` : "";
          const res = rd && rd.output !== undefined ? `<details><summary>result ${esc(short(rd.output, 90))}</summary><pre>${pretty(rd.output)}</pre></details>` : "";
          parts.push(`<div class="call"><span class="tool">${esc(c.name)}</span>(<span class="args">${esc(short(args, 160))}</span>)${kind} ${status}` +
            `<details><summary>arguments</summary><pre>${pretty(args)}</pre></details>${res}</div>`);
        }
        const u = d.usage && d.usage.input_tokens ? ` <span class="note">${d.usage.input_tokens} in / ${d.usage.output_tokens} out tokens</span>` : "";
        out.push(`<div class="ev assistant">${t}<span class="who">assistant · turn ${e.turn}</span>${u}${parts.join("") || '<div class="note">(empty turn)</div>'}</div>`);
      } else if (e.type === "tool_call") {
        if (shown.has(e.seq)) continue;
        const st = d.ok ? '<span class="ok">ok</span>' : `<span class="bad">failed: ${esc(d.error)}</span>`;
        out.push(`<div class="ev call">${t}<span class="tool">${esc(d.name)}</span>(${esc(short(d.arguments || {}, 160))}) ${st}<details><summary>result</summary><pre>${pretty(d.output)}</pre></details></div>`);
      } else if (e.type === "session_end") {
        out.push(`<div class="ev meta">${t}ended: <b>${esc(d.reason)}</b> after ${esc(d.turns)} turns</div>`);
      } else {
        const fields = Object.entries(d).map(([k, v]) => `<span class="k">${esc(k)}</span>=${esc(short(v, 200))}`).join(" · ");
        out.push(`<div class="ev event">${t}<span class="etype">${esc(e.type)}</span>${e.turn != null ? ` <span class="note">turn ${e.turn}</span>` : ""} ${fields}</div>`);
      }
    }
    return out.join("");
  }

  async function openSession(ci, sid) {
    const box = $("#transcript");
    box.innerHTML = '<p class="note">decompressing…</p>';
    const texts = await loadChunk(ci);
    const text = texts[sid];
    const s = LV.sessions.find((x) => x[S.cell] === ci && x[S.sid] === sid);
    if (text == null) { box.innerHTML = `<p class="bad">No transcript for ${esc(sid)}.</p>`; return; }
    const events = text.split("\n").filter((l) => l.trim()).map((l) => { try { return JSON.parse(l); } catch (e) { return null; } }).filter(Boolean);
    const labels = s ? Object.entries(s[S.labels] || {}).map(([k, v]) => `${k}=${v}`).join(" · ") : "";
    const c = LV.cells[ci];
    const aborted = c[C.status] === "aborted" ? `<p class="bad">cell aborted: ${esc(c[C.reason])}</p>` : "";
    const why = s && s[S.reason] ? `<p class="${s[S.outcome] === "fail" ? "bad" : "ok"}">${esc(s[S.outcome] || "")}: ${esc(s[S.reason])}</p>` : "";
    box.innerHTML = `<div class="thead"><h3>${esc(sid)} ${s ? badge(s[S.outcome]) : ""}</h3><p class="note">${esc(cellLabel(ci))}${labels ? " · " + esc(labels) : ""}` +
      `${s && s[S.start] ? " · simulated " + esc(s[S.start].replace("T", " ")) + " → " + esc(s[S.stop].slice(11, 16)) : ""}</p>${why}${aborted}</div>` + renderEvents(events);
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
