/* bmam memory inspector: plain JS, talks only to /graphql (and GET /export/...) with the pasted API key.
 *
 * The page learns the server's operations by introspection (on in the dev profile) and builds each
 * request from what the server really offers: which root fields exist, their argument names and the
 * fields of their result types. When introspection is off (production profile) it falls back to the
 * documented operation names and shapes below. A control whose operation the server lacks says so
 * instead of sending a request that cannot succeed.
 */
"use strict";

(() => {
  // ----- small helpers --------------------------------------------------------------------
  const $ = (sel, root = document) => root.querySelector(sel);
  const $$ = (sel, root = document) => Array.from(root.querySelectorAll(sel));
  const HAN = /[\u3400-\u9fff\uf900-\ufaff]/;

  function el(tag, attrs = {}, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs)) {
      if (v === undefined || v === null || v === false) continue;
      if (k === "class") node.className = v;
      else if (k === "text") node.textContent = v;
      else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
      else if (k === "dataset") Object.assign(node.dataset, v);
      else if (k === "style") node.style.cssText = v; // CSSOM, allowed by the page's CSP (no inline style attributes)
      else node.setAttribute(k, v === true ? "" : v);
    }
    for (const c of children.flat()) {
      if (c === undefined || c === null || c === false) continue;
      node.append(c instanceof Node ? c : document.createTextNode(String(c)));
    }
    return node;
  }

  /** Text with the right language tag, so Han characters get Chinese glyphs next to English. */
  function textEl(tag, text, cls) {
    const node = el(tag, { class: cls, text: text ?? "" });
    if (HAN.test(text || "")) node.lang = "zh-Hans";
    return node;
  }

  function fmtNum(x, digits = 3) {
    return typeof x === "number" && Number.isFinite(x) ? x.toFixed(digits).replace(/\.?0+$/, (m) => (m.startsWith(".") ? "" : m)) : String(x);
  }

  function ago(iso) {
    if (!iso) return "never";
    const t = Date.parse(iso);
    if (Number.isNaN(t)) return String(iso);
    const s = (Date.now() - t) / 1000;
    const abs = Math.abs(s);
    const unit = abs < 90 ? [s, "s"] : abs < 5400 ? [s / 60, "min"] : abs < 129600 ? [s / 3600, "h"] : [s / 86400, "d"];
    const n = Math.round(unit[0]);
    return n >= 0 ? `${n} ${unit[1]} ago` : `in ${-n} ${unit[1]}`;
  }

  const TYPES = ["FACTUAL", "PROCEDURAL", "EPISODIC", "SEMANTIC", "EMOTIONAL", "WORKING"];
  const TYPE_COLOR = {
    FACTUAL: "#2563eb", PROCEDURAL: "#15803d", EPISODIC: "#c2410c", SEMANTIC: "#7c3aed",
    EMOTIONAL: "#db2777", WORKING: "#6b7280",
  };

  // ----- state ----------------------------------------------------------------------------
  const state = {
    key: localStorage.getItem("bmam.apiKey") || "",
    user: localStorage.getItem("bmam.userId") || "",
    schema: null, // {query: {name: field}, mutation: {...}, types: {name: type}} or null when introspection is off
    cursors: {},
    view: "memories",
  };

  function status(message, kind = "") {
    const s = $("#status");
    s.textContent = message;
    s.className = `status ${kind}`;
  }

  // ----- GraphQL transport ----------------------------------------------------------------
  class GqlError extends Error {
    constructor(code, message) {
      super(message);
      this.code = code;
    }
  }

  async function gql(document, variables = {}) {
    const headers = { "content-type": "application/json", accept: "application/json" };
    if (state.key) headers["x-api-key"] = state.key;
    let response;
    try {
      response = await fetch("/graphql", { method: "POST", headers, body: JSON.stringify({ query: document, variables }) });
    } catch (err) {
      throw new GqlError("NETWORK", `cannot reach bmam: ${err.message}`);
    }
    let body;
    try {
      body = await response.json();
    } catch {
      throw new GqlError(`HTTP_${response.status}`, `bmam answered HTTP ${response.status}`);
    }
    if (body.errors && body.errors.length) {
      const e = body.errors[0];
      throw new GqlError((e.extensions && e.extensions.code) || `HTTP_${response.status}`, e.message);
    }
    if (!response.ok) throw new GqlError(`HTTP_${response.status}`, `bmam answered HTTP ${response.status}`);
    return body.data;
  }

  // ----- the server's operations ----------------------------------------------------------
  const INTROSPECTION = `query BmamInspectorSchema { __schema {
    queryType { name } mutationType { name }
    types { kind name
      fields { name args { name defaultValue type { ...T } } type { ...T } }
      inputFields { name defaultValue type { ...T } }
      enumValues { name } } } }
  fragment T on __Type { kind name ofType { kind name ofType { kind name ofType { kind name } } } }`;

  /** Logical operations -> the documented root field names (first that the server has wins). */
  const OPS = {
    memories: { kind: "query", names: ["memories"] },
    memory: { kind: "query", names: ["memory"] },
    associations: { kind: "query", names: ["associations"] },
    triples: { kind: "query", names: ["triples"] },
    episode: { kind: "query", names: ["episode"] },
    turns: { kind: "query", names: ["workingMemory"] },
    recall: { kind: "query", names: ["recall"] },
    related: { kind: "query", names: ["relatedSearch"] },
    conflicts: { kind: "query", names: ["conflicts"] },
    changesets: { kind: "query", names: ["changesets", "maintenanceChangesets"] },
    lock: { kind: "mutation", names: ["lock", "lockMemory"] },
    unlock: { kind: "mutation", names: ["unlock", "unlockMemory"] },
    react: { kind: "mutation", names: ["react"] },
    feedback: { kind: "mutation", names: ["feedback"] },
    forget: { kind: "mutation", names: ["forget"] },
    correct: { kind: "mutation", names: ["correctMemory"] },
    resolveConflict: { kind: "mutation", names: ["resolveConflict"] },
    runMaintenance: { kind: "mutation", names: ["runMaintenance"] },
    undoChangeset: { kind: "mutation", names: ["undoChangeset", "undoMaintenance"] },
  };

  /** A value the page has, and the argument names a server may call it by. */
  const ALIASES = {
    userId: ["userId", "user"],
    memoryId: ["memoryId", "id", "memory"],
    conflictId: ["conflictId", "id"],
    changesetId: ["changesetId", "id"],
    winner: ["winner", "winnerId", "winnerMemoryId", "keep"],
    query: ["query", "input", "text"],
    sessionId: ["sessionId", "session"],
    k: ["k", "first", "limit"],
    depth: ["depth"],
    limit: ["limit", "first"],
    signal: ["signal"],
    mode: ["mode", "kind", "level", "type"],
    dryRun: ["dryRun"],
    confirm: ["confirm"],
    tiers: ["tiers"],
    first: ["first"],
    after: ["after"],
  };

  const named = (t) => { while (t && t.ofType) t = t.ofType; return t; };
  const required = (t) => t && t.kind === "NON_NULL";
  function typeStr(t) {
    if (t.kind === "NON_NULL") return `${typeStr(t.ofType)}!`;
    if (t.kind === "LIST") return `[${typeStr(t.ofType)}]`;
    return t.name;
  }

  async function loadSchema() {
    if (new URLSearchParams(location.search).get("introspect") === "0") {
      state.schema = null; // as in the production profile: the documented shapes only
      applyCapabilities();
      return;
    }
    try {
      const data = await gql(INTROSPECTION);
      const s = data.__schema;
      const types = Object.fromEntries(s.types.map((t) => [t.name, t]));
      const fieldsOf = (n) => Object.fromEntries(((n && types[n.name] && types[n.name].fields) || []).map((f) => [f.name, f]));
      state.schema = { query: fieldsOf(s.queryType), mutation: fieldsOf(s.mutationType), types };
    } catch (err) {
      if (err.code === "UNAUTHENTICATED" || err.code === "NETWORK") throw err;
      state.schema = null; // introspection off (production profile): use the documented shapes
    }
    applyCapabilities();
  }

  function opField(op) {
    const spec = OPS[op];
    if (!state.schema) return null;
    for (const name of spec.names) {
      const f = state.schema[spec.kind][name];
      if (f) return f;
    }
    return null;
  }

  /** True, false (server lacks it), or null (unknown: no introspection). */
  function has(op) {
    if (!state.schema) return null;
    return opField(op) !== null;
  }

  function enumValues(op, valueKey, fallback) {
    const f = opField(op);
    if (!f) return fallback;
    for (const a of f.args) {
      if (!(ALIASES[valueKey] || [valueKey]).includes(a.name)) continue;
      const t = state.schema.types[named(a.type).name];
      if (t && t.kind === "ENUM") return t.enumValues.map((v) => v.name);
      if (t && t.kind === "INPUT_OBJECT") {
        for (const f2 of t.inputFields) {
          const t2 = state.schema.types[named(f2.type).name];
          if ((ALIASES[valueKey] || [valueKey]).includes(f2.name) && t2 && t2.kind === "ENUM") {
            return t2.enumValues.map((v) => v.name);
          }
        }
      }
    }
    return fallback;
  }

  function pick(values, argName) {
    for (const [key, value] of Object.entries(values)) {
      if (value === undefined) continue;
      if (key === argName || (ALIASES[key] || []).includes(argName)) return value;
    }
    return undefined;
  }

  function inputObject(typeRef, values) {
    const t = state.schema.types[named(typeRef).name];
    if (!t || t.kind !== "INPUT_OBJECT") return undefined;
    const obj = {};
    let any = false;
    for (const f of t.inputFields) {
      const v = pick(values, f.name);
      if (v !== undefined) { obj[f.name] = v; any = true; }
      else if (required(f.type) && f.defaultValue == null) return undefined;
    }
    return any ? obj : undefined;
  }

  /** A selection set for a result type: scalars everywhere, objects to a bounded depth; inside a
   * Memory only its own scalars and small parts (weight, source), never nested lists. */
  function selection(typeRef, depth, inMemory = false) {
    const t = state.schema.types[named(typeRef).name];
    if (!t || t.kind === "SCALAR" || t.kind === "ENUM") return "";
    if (t.kind !== "OBJECT") return "{ __typename }";
    const isMemory = t.name === "Memory";
    const parts = [];
    for (const f of t.fields || []) {
      if (f.name === "embedding" || f.name.startsWith("__")) continue;
      if (f.args.some((a) => required(a.type) && a.defaultValue == null)) continue;
      const nt = state.schema.types[named(f.type).name];
      if (!nt || nt.kind === "SCALAR" || nt.kind === "ENUM") { parts.push(f.name); continue; }
      if (depth <= 0) continue;
      if ((isMemory || inMemory) && (f.args.length || named(f.type).name === "Memory" || isList(f.type))) continue;
      const sub = selection(f.type, isMemory ? Math.min(depth - 1, 1) : depth - 1, isMemory || inMemory);
      if (sub) parts.push(`${f.name} ${sub}`);
    }
    return parts.length ? `{ ${parts.join(" ")} }` : "{ __typename }";
  }
  const isList = (t) => { while (t) { if (t.kind === "LIST") return true; t = t.ofType; } return false; };

  const MEMORY_SEL = `{ id userId text type tier locked presetKind classifiedBy confidence
    weight { passive active preset final } createdAt lastRecalledAt lastMentionedAt recallCount mentionCount
    validFrom validTo remainsOf source { sessionId turn deviceId episodeId } }`;

  /** Documented shapes, used when the server does not answer introspection (production profile). */
  const CHANGESET_SEL = `{ id kind status dryRun undone undoneAt createdAt finishedAt userId decayed reweighted
    purged damped lifted indexesRebuilt }`;
  const STATIC = {
    memories: ["query", "memories", { userId: "String!", tiers: "[Tier!]", first: "Int!", after: "String" },
      `{ edges { cursor node ${MEMORY_SEL} } pageInfo { hasNextPage endCursor } }`],
    memory: ["query", "memory", { userId: "String!", id: "ID!" }, MEMORY_SEL],
    turns: ["query", "workingMemory", { userId: "String!", sessionId: "String!", n: "Int" },
      "{ sessionId turns { speaker text at turn episodeId } }"],
    associations: ["query", "associations", { userId: "String!", memoryId: "ID!" }, "{ memoryA memoryB strength }"],
    recall: ["query", "recall", { userId: "String!", query: "String!", sessionId: "String", k: "Int" },
      `{ gated reason memories { why scores { vector fulltext graph freshness weight relevance damping final }
        memory ${MEMORY_SEL} } }`],
    related: ["query", "relatedSearch", { userId: "String!", memoryId: "ID!", depth: "Int", limit: "Int" },
      `{ score path { fromId toId via strength entity } memory ${MEMORY_SEL} }`],
    conflicts: ["query", "conflicts", { userId: "String!", first: "Int!" },
      `{ id kind status strategy reason createdAt newMemory ${MEMORY_SEL} oldMemory ${MEMORY_SEL} }`],
    changesets: ["query", "changesets", { userId: "String", first: "Int!" }, CHANGESET_SEL],
    lock: ["mutation", "lock", { userId: "String!", memoryId: "ID!" }, MEMORY_SEL],
    unlock: ["mutation", "unlock", { userId: "String!", memoryId: "ID!" }, MEMORY_SEL],
    react: ["mutation", "react", { userId: "String!", memoryId: "ID!", signal: "ReactionSignal!" },
      "{ memoryId deleted }"],
    feedback: ["mutation", "feedback", { userId: "String!", memoryId: "ID!", signal: "FeedbackSignal!" }, MEMORY_SEL],
    forget: ["mutation", "forget", { userId: "String!", id: "ID!", confirm: "Boolean!" }, "{ id forgotten }"],
    correct: ["mutation", "correctMemory", { userId: "String!", memoryId: "ID!", text: "String!" },
      "{ memory { id text } corrected { id } }"],
    resolveConflict: ["mutation", "resolveConflict", { userId: "String!", id: "ID!", winner: "ID!" },
      "{ id status winnerId }"],
    runMaintenance: ["mutation", "runMaintenance", { kind: "MaintenanceKind!", dryRun: "Boolean!", userId: "String" },
      `{ kind dryRun changeset ${CHANGESET_SEL} }`],
    undoChangeset: ["mutation", "undoMaintenance", { id: "ID!" }, CHANGESET_SEL],
  };

  /** Build and send one operation; returns the root field's value. */
  async function run(op, values) {
    let doc, variables = {};
    if (state.schema) {
      const f = opField(op);
      if (!f) throw new GqlError("NOT_OFFERED", `this server does not offer ${OPS[op].names[0]} yet`);
      const defs = [], args = [];
      for (const a of f.args) {
        const argType = state.schema.types[named(a.type).name];
        let v = argType && argType.kind === "INPUT_OBJECT" ? inputObject(a.type, values) : undefined;
        if (v === undefined) v = pick(values, a.name);
        if (v === undefined) {
          if (required(a.type) && a.defaultValue == null) {
            throw new GqlError("BAD_USER_INPUT", `${f.name} needs ${a.name}`);
          }
          continue;
        }
        defs.push(`$${a.name}: ${typeStr(a.type)}`);
        args.push(`${a.name}: $${a.name}`);
        variables[a.name] = v;
      }
      const sel = selection(f.type, 4);
      doc = `${OPS[op].kind} Inspector${f.name[0].toUpperCase()}${f.name.slice(1)}${defs.length ? `(${defs.join(", ")})` : ""}`
        + ` { ${f.name}${args.length ? `(${args.join(", ")})` : ""} ${sel} }`;
      return (await gql(doc, variables))[f.name];
    }
    const [kind, name, argTypes, sel] = STATIC[op] || [];
    if (!name) throw new GqlError("NOT_OFFERED", `this page has no request for ${op}`);
    const defs = [], args = [];
    for (const [arg, type] of Object.entries(argTypes)) {
      const v = pick(values, arg);
      if (v === undefined) continue;
      defs.push(`$${arg}: ${type}`);
      args.push(`${arg}: $${arg}`);
      variables[arg] = v;
    }
    doc = `${kind}${defs.length ? `(${defs.join(", ")})` : ""} { ${name}${args.length ? `(${args.join(", ")})` : ""} ${sel} }`;
    return (await gql(doc, variables))[name];
  }

  function applyCapabilities() {
    // Controls whose operation this server lacks are disabled and say why.
    for (const node of $$("[data-op]")) {
      const offered = has(node.dataset.op);
      node.disabled = offered === false;
      if (offered === false) node.title = `this server does not offer ${OPS[node.dataset.op].names[0]} yet`;
    }
    const modes = enumValues("runMaintenance", "mode", ["DECAY", "REBALANCE", "FULL", "CHECK"]);
    const select = $("#maint-mode");
    select.replaceChildren(...modes.map((m) => el("option", { value: m, text: m.toLowerCase().replace(/_/g, " ") })));
    $("#maint-form button[type=submit]").dataset.op = "runMaintenance";
    $("#maint-form button[type=submit]").disabled = has("runMaintenance") === false;
  }

  // ----- shape helpers: find the memory, scores and reasons in whatever a server returns ------
  const isMemory = (o) => o && typeof o === "object" && "id" in o && "text" in o && ("tier" in o || "type" in o);

  function memoryOf(item) {
    if (isMemory(item)) return item;
    if (item && typeof item === "object") {
      for (const v of Object.values(item)) if (isMemory(v)) return v;
    }
    return null;
  }

  function listIn(value) {
    if (Array.isArray(value)) return value;
    if (value && typeof value === "object") {
      for (const key of ["hits", "results", "memories", "items", "nodes", "edges"]) {
        if (Array.isArray(value[key])) return value[key].map((x) => (x && x.node ? x.node : x));
      }
      for (const v of Object.values(value)) if (Array.isArray(v) && v.length && typeof v[0] === "object") return v;
      for (const v of Object.values(value)) if (Array.isArray(v)) return v;
    }
    return [];
  }

  // ----- rendering a memory ---------------------------------------------------------------
  function weightBars(w) {
    if (!w || typeof w !== "object") return null;
    const rows = [];
    for (const part of ["passive", "active", "preset", "final"]) {
      if (typeof w[part] !== "number") continue;
      rows.push(el("span", { class: part === "final" ? "final" : "", text: part === "final" ? "weight" : part }));
      rows.push(el("span", { class: `bar ${part === "final" ? "final" : ""}` },
        el("i", { style: `width:${Math.max(0, Math.min(1, w[part])) * 100}%` })));
      rows.push(el("span", { text: fmtNum(w[part], 2) }));
    }
    return el("div", { class: "weights", title: "final = 0.6·passive + 0.3·active + 0.1·preset" }, rows);
  }

  const KNOWN_MEMORY_FIELDS = new Set(["id", "userId", "text", "type", "tier", "locked", "weight", "createdAt",
    "lastRecalledAt", "lastMentionedAt", "recallCount", "mentionCount", "source", "validFrom", "validTo",
    "classifiedBy", "confidence", "presetKind", "remainsOf", "__typename"]);

  function shown(v) {
    if (typeof v === "number") return fmtNum(v);
    if (Array.isArray(v)) {
      if (!v.length) return "none";
      const items = v.slice(0, 4).map((x) => (x && typeof x === "object" ? (x.id ?? JSON.stringify(x)) : String(x)));
      return `${v.length}: ${items.join(", ")}${v.length > 4 ? ", …" : ""}`;
    }
    if (v && typeof v === "object") return JSON.stringify(v);
    return String(v);
  }

  /** A definition list of an object's fields; nested objects one level deep as their own list. */
  function kv(obj, skip = new Set(), nested = true) {
    const dl = el("dl", { class: "kv" });
    for (const [k, v] of Object.entries(obj || {})) {
      if (skip.has(k) || v === null || v === undefined || k === "__typename") continue;
      if (nested && v && typeof v === "object" && !Array.isArray(v) && !isMemory(v)) {
        const inner = kv(v, new Set(), false);
        if (inner) dl.append(el("dt", { text: k }), el("dd", {}, inner));
        continue;
      }
      dl.append(el("dt", { text: k }), textEl("dd", shown(v)));
    }
    return dl.children.length ? dl : null;
  }

  function memoryCard(m, { actions = true, extra = null } = {}) {
    const li = el("li", { class: `card t-${m.type}${m.validTo ? " superseded" : ""}`, dataset: { memoryId: m.id } });
    li.append(textEl("p", m.text, "text"));
    const src = m.source || {};
    li.append(el("div", { class: "meta" },
      el("span", { class: `badge t-${m.type}`, text: m.type }),
      el("span", { text: (m.tier || "").toLowerCase() }),
      m.locked ? el("span", { class: "lock", text: "locked", title: "only the user can change a locked memory", "data-locked": "true" }) : null,
      el("span", { title: m.lastRecalledAt || "", text: `recalled ${m.recallCount ?? 0}× · last ${ago(m.lastRecalledAt)}` }),
      m.mentionCount !== undefined ? el("span", { text: `mentioned ${m.mentionCount}×` }) : null,
      m.validTo ? el("span", { text: `superseded ${ago(m.validTo)}` }) : null,
      m.remainsOf ? el("span", { text: "remains of a superseded memory",
                                 title: `what ${m.remainsOf} said that its conflict's winner did not contest` }) : null,
    ));
    li.append(weightBars(m.weight));
    const provenance = {
      episode: src.episodeId, session: src.sessionId, turn: src.turn, device: src.deviceId,
      created: m.createdAt, classified: m.classifiedBy ? `${m.classifiedBy} (${fmtNum(m.confidence, 2)})` : undefined,
      preset: m.presetKind, id: m.id, "remains of": m.remainsOf || undefined,
    };
    for (const [k, v] of Object.entries(m)) if (!KNOWN_MEMORY_FIELDS.has(k)) provenance[k] = v;
    const details = el("details", { class: "more-info" }, el("summary", {
      text: src.episodeId ? `from episode ${src.sessionId ?? ""}${src.turn != null ? ` turn ${src.turn}` : ""}` : "details",
    }), kv(provenance));
    if (src.sessionId && has("turns") !== false) {
      // The conversation the memory came from: the session's turns, its own turn marked.
      const box = el("ol", { class: "turns" });
      const show = el("button", { type: "button", class: "small-button", "data-action": "turns" }, "show the conversation");
      show.addEventListener("click", async () => {
        show.disabled = true;
        try {
          const view = await run("turns", { userId: state.user, sessionId: src.sessionId });
          const turns = (view && view.turns) || [];
          box.replaceChildren(...turns.map((t) => {
            const li = textEl("li", `${t.speaker}: ${t.text}`, t.episodeId === src.episodeId ? "this-turn" : "");
            li.title = `turn ${t.turn} · ${t.at}`;
            return li;
          }));
          if (!turns.some((t) => t.episodeId === src.episodeId)) {
            box.append(el("li", { class: "hint", text: `turn ${src.turn ?? "?"} is older than the turns held` }));
          }
        } catch (err) { box.replaceChildren(el("li", { text: `[${err.code}] ${err.message}` })); }
      });
      details.append(show, box);
    }
    if (src.episodeId && has("episode")) {
      const box = el("div", { class: "detail" });
      details.addEventListener("toggle", async () => {
        if (!details.open || box.dataset.loaded) return;
        box.dataset.loaded = "1";
        try {
          const ep = await run("episode", { userId: state.user, id: src.episodeId, episodeId: src.episodeId });
          box.replaceChildren(ep ? kv(ep) || "" : "episode not found");
        } catch (err) { box.textContent = err.message; }
      }, { once: false });
      details.append(box);
    }
    li.append(details);
    if (extra) li.append(extra);
    if (actions) li.append(memoryActions(m));
    return li;
  }

  function memoryActions(m) {
    const box = el("div", { class: "actions" });
    if (m.tier === "CORE" || m.locked) {
      box.append(m.locked
        ? el("button", { type: "button", "data-op": "unlock", "data-action": "unlock", onclick: () => act("unlock", m) }, "Unlock")
        : el("button", { type: "button", "data-op": "lock", "data-action": "lock", onclick: () => act("lock", m) }, "Lock"));
    } else {
      box.append(el("button", { type: "button", "data-op": "lock", "data-action": "lock", onclick: () => act("lock", m) }, "Lock"));
    }
    const react = el("select", { "data-op": "react", "data-action": "react", "aria-label": "react" },
      el("option", { value: "", text: "react…" }),
      ...enumValues("react", "signal", ["ENGAGED", "IGNORED", "DISMISSED"]).map((s) => el("option", { value: s, text: s.toLowerCase() })));
    react.addEventListener("change", () => { if (react.value) act("react", m, { signal: react.value }); });
    const feedback = el("select", { "data-op": "feedback", "data-action": "feedback", "aria-label": "feedback" },
      el("option", { value: "", text: "feedback…" }),
      ...enumValues("feedback", "signal", ["LIKE", "DISLIKE", "DWELL", "SKIP"]).map((s) => el("option", { value: s, text: s.toLowerCase() })));
    feedback.addEventListener("change", () => { if (feedback.value) act("feedback", m, { signal: feedback.value }); });
    box.append(react, feedback,
      el("button", { type: "button", title: "neighbourhood graph", "data-action": "graph", onclick: () => openGraph(m.id) }, "◎ graph"),
      el("button", { type: "button", "data-op": "correct", "data-action": "correct", onclick: () => correct(m) }, "Correct"),
      el("button", { type: "button", class: "danger", "data-op": "forget", "data-action": "forget", onclick: () => forget(m) }, "Forget"));
    for (const node of $$("[data-op]", box)) {
      if (has(node.dataset.op) === false) {
        node.disabled = true;
        node.title = `this server does not offer ${OPS[node.dataset.op].names[0]} yet`;
      }
    }
    return box;
  }

  async function act(op, m, extra = {}) {
    try {
      await run(op, { userId: state.user, memoryId: m.id, ...extra });
      status(`${op} ${extra.signal ? extra.signal.toLowerCase() + " " : ""}done: ${m.text.slice(0, 40)}`, "ok");
    } catch (err) {
      status(`${op} failed [${err.code}]: ${err.message}`, "error");
    }
    await refreshCurrent();
  }

  function confirmDialog(text, okLabel = "Forget") {
    const dialog = $("#confirm");
    $("#confirm-text").textContent = text;
    if (HAN.test(text)) $("#confirm-text").lang = "zh-Hans";
    $("#confirm-ok").textContent = okLabel;
    dialog.returnValue = "";
    return new Promise((resolve) => {
      dialog.addEventListener("close", () => resolve(dialog.returnValue === "ok"), { once: true });
      dialog.showModal();
    });
  }

  /** The user corrects a wrong memory: the new text supersedes it in its place (correctMemory). */
  async function correct(m) {
    const dialog = $("#correct");
    const box = $("#correct-text");
    box.value = m.text;
    if (HAN.test(m.text)) box.lang = "zh-Hans";
    dialog.returnValue = "";
    const ok = await new Promise((resolve) => {
      dialog.addEventListener("close", () => resolve(dialog.returnValue === "ok"), { once: true });
      dialog.showModal();
    });
    const text = box.value.trim();
    if (!ok || !text || text === m.text) { status("nothing corrected"); return; }
    try {
      await run("correct", { userId: state.user, memoryId: m.id, text });
      status(`corrected: ${text.slice(0, 40)}`, "ok");
    } catch (err) {
      status(`correct failed [${err.code}]: ${err.message}`, "error");
    }
    await refreshCurrent();
  }

  async function forget(m) {
    const ok = await confirmDialog(`Forget this ${m.locked ? "locked core " : ""}memory for good?\n\n“${m.text}”`);
    if (!ok) { status("nothing forgotten"); return; }
    try {
      await run("forget", { userId: state.user, memoryId: m.id, confirm: true });
      status(`forgot: ${m.text.slice(0, 40)}`, "ok");
    } catch (err) {
      status(`forget failed [${err.code}]: ${err.message}`, "error");
    }
    await refreshCurrent();
  }

  // ----- view: memories by tier -------------------------------------------------------------
  const TIERS = ["CORE", "MID", "TEMP"];

  function fetchTier(tier, after) {
    return run("memories", { userId: state.user, tiers: [tier], first: 50, after });
  }

  function drawTier(tier, conn, append) {
    const list = $(`[data-list=${tier}]`);
    const items = listIn(conn).map((e) => (e.node ? e.node : e));
    if (!append) list.replaceChildren();
    list.append(...items.map((m) => memoryCard(m)));
    const pageInfo = conn.pageInfo || {};
    state.cursors[tier] = pageInfo.endCursor;
    $(`[data-more=${tier}]`).hidden = !pageInfo.hasNextPage;
    $(`[data-count=${tier}]`).textContent = `(${list.children.length}${pageInfo.hasNextPage ? "+" : ""})`;
  }

  // Two loads can overlap (a refresh after a lock while the view is still loading): only the latest
  // one may draw, or both would append their cards to the same lists.
  function nextLoad() {
    state.memoryLoads = (state.memoryLoads || 0) + 1;
    return state.memoryLoads;
  }

  async function loadMoreOf(tier) {
    const load = nextLoad();
    const conn = await fetchTier(tier, state.cursors[tier]);
    if (load === state.memoryLoads) drawTier(tier, conn, true);
  }

  async function loadMemories() {
    delete $("#view-memories").dataset.loaded;
    const load = nextLoad();
    // All tiers are fetched before any is drawn: a memory that moved between tiers (unlock sends a core
    // memory to mid) would otherwise show twice, in its new tier and in the old one not yet redrawn.
    const conns = await Promise.all(TIERS.map((t) => fetchTier(t)));
    if (load !== state.memoryLoads) return;
    TIERS.forEach((t, i) => drawTier(t, conns[i], false));
    const total = $$(".tiers .card").length;
    $("#view-memories").dataset.loaded = String(total);
    $("#memories-hint").textContent = total ? `${state.user}: ${total} memories shown.` : `${state.user} has no memories yet.`;
  }

  // ----- view: recall ---------------------------------------------------------------------
  function breakdownOf(hit) {
    const rows = [];
    const scan = (obj, prefix) => {
      for (const [k, v] of Object.entries(obj || {})) {
        if (typeof v === "number" && !/count|turn/i.test(k)) rows.push([prefix + k, v]);
        else if (v && typeof v === "object" && !Array.isArray(v) && !isMemory(v) && prefix === "") scan(v, `${k}.`);
      }
    };
    scan(hit, "");
    return rows;
  }

  function reasonsOf(hit) {
    const out = [];
    for (const [k, v] of Object.entries(hit || {})) {
      if (isMemory(v) || k === "__typename") continue;
      if (typeof v === "string") out.push(/^(why|reason|reasons|explanation)$/.test(k) ? v : `${k}: ${v}`);
      else if (Array.isArray(v)) {
        for (const x of v) out.push(typeof x === "string" ? x : JSON.stringify(x));
      }
    }
    return out;
  }

  async function recall(event) {
    event && event.preventDefault();
    const query = $("#recall-query").value.trim();
    if (!query || !state.user) return;
    const banner = $("#recall-banner");
    const results = $("#recall-results");
    results.replaceChildren();
    banner.hidden = true;
    const values = { userId: state.user, query, k: Number($("#recall-k").value) || 5 };
    const session = $("#recall-session").value.trim();
    if (session) values.sessionId = session;
    try {
      const answer = await run("recall", values);
      const hits = listIn(answer);
      const gated = answer && typeof answer === "object" && !Array.isArray(answer)
        ? Boolean(answer.gated ?? answer.isGated) : hits.length === 0;
      if (gated || hits.length === 0) {
        banner.className = "banner gated";
        banner.dataset.gated = "true";
        const why = answer && (answer.reason || answer.gateReason || answer.message);
        banner.textContent = `Recall was gated: nothing this user remembers relates to “${query}”, so bmam returns no memories`
          + ` rather than the nearest anyway.${why ? ` (${why})` : ""}`;
        banner.hidden = false;
      } else {
        banner.className = "banner info";
        banner.dataset.gated = "false";
        banner.textContent = `${hits.length} memor${hits.length === 1 ? "y" : "ies"} came up for “${query}”.`;
        banner.hidden = false;
      }
      for (const hit of hits) {
        const m = memoryOf(hit);
        const rows = breakdownOf(hit);
        const finalRow = rows.find(([k]) => /(^|\.)final$/.test(k)) || rows.find(([k]) => k === "score");
        const extra = el("div", { class: "breakdown" },
          finalRow ? el("div", {}, "score ", el("span", { class: "score", text: fmtNum(finalRow[1]) })) : null,
          el("h3", { text: "score breakdown" }),
          el("div", { class: "weights" }, rows.flatMap(([k, v]) => [
            el("span", { text: k.replace(/^scores?\./, "") }),
            el("span", { class: "bar" }, el("i", { style: `width:${Math.max(0, Math.min(1, v)) * 100}%` })),
            el("span", { text: fmtNum(v, 3) }),
          ])),
          (() => {
            const reasons = reasonsOf(hit);
            return reasons.length
              ? [el("h3", { text: "why it came up" }), el("ul", { class: "why" }, reasons.map((r) => textEl("li", r)))]
              : null;
          })());
        results.append(m ? memoryCard(m, { extra }) : el("li", { class: "card" }, kv(hit)));
      }
      status(`recall for “${query}”: ${gated ? "gated" : `${hits.length} hits`}`, "ok");
    } catch (err) {
      banner.className = "banner gated";
      banner.textContent = `Recall failed [${err.code}]: ${err.message}`;
      banner.hidden = false;
      status(`recall failed [${err.code}]: ${err.message}`, "error");
    }
  }

  // ----- view: neighbourhood graph --------------------------------------------------------
  function openGraph(memoryId) {
    $("#graph-memory").value = memoryId;
    show("graph");
    drawNeighbourhood();
  }

  function pathIds(hit) {
    const path = hit.path ?? hit.bestPath ?? (hit.score && hit.score.path);
    const ids = [], steps = [];
    const seq = Array.isArray(path) ? path : path && typeof path === "object" ? listIn(path) : [];
    for (const p of seq) {
      if (typeof p === "string") ids.push(p);
      else if (p && typeof p === "object") {
        const to = p.toId ?? p.to ?? p.memoryId ?? p.id ?? (p.memory && p.memory.id);
        const from = p.fromId ?? p.from;
        if (from && !ids.length) ids.push(from);
        if (to) ids.push(to);
        steps.push({ to, strength: p.strength ?? p.score, kind: String(p.via ?? p.kind ?? p.relation ?? p.type ?? ""),
          entity: p.entity });
      }
    }
    return { ids, steps };
  }

  async function drawNeighbourhood(event) {
    event && event.preventDefault();
    const center = $("#graph-memory").value.trim();
    const depth = Number($("#graph-depth").value);
    if (!center || !state.user) return;
    const svg = $("#graph");
    svg.replaceChildren();
    // Cleared until the new picture is drawn, so a reader never takes the previous one for it.
    delete svg.dataset.nodes;
    delete svg.dataset.edges;
    delete svg.dataset.depth;
    $("#graph-detail").replaceChildren();
    try {
      const nodes = new Map();
      const edges = new Map();
      const centerMemory = await run("memory", { userId: state.user, memoryId: center });
      if (!centerMemory) throw new GqlError("NOT_FOUND", `no memory ${center} for ${state.user}`);
      nodes.set(center, { m: centerMemory, depth: 0 });
      const addEdge = (a, b, strength, kind, entity) => {
        if (!a || !b || a === b) return;
        const key = a < b ? `${a}|${b}` : `${b}|${a}`;
        const old = edges.get(key);
        if (!old || (kind === "assoc" && old.kind !== "assoc")) edges.set(key, { a, b, strength, kind, entity });
      };
      let note = "";
      if (has("related") !== false) {
        const answer = await run("related", { userId: state.user, memoryId: center, depth, limit: 50 });
        for (const hit of listIn(answer)) {
          const m = memoryOf(hit);
          if (!m) continue;
          const { ids, steps } = pathIds(hit);
          const hops = ids.length ? Math.max(1, ids.length - (ids[0] === center ? 1 : 0)) : hit.depth ?? 1;
          nodes.set(m.id, { m, depth: hops, score: hit.score && typeof hit.score === "object" ? hit.score.final : hit.score });
          const chain = ids[0] === center ? ids : [center, ...ids];
          if (chain[chain.length - 1] !== m.id) chain.push(m.id);
          for (let i = 1; i < chain.length; i++) {
            const step = steps[i - 1] || {};
            const entity = /entit|mention|triple/i.test(step.kind || "");
            addEdge(chain[i - 1], chain[i], typeof step.strength === "number" ? step.strength : 0.3,
              entity ? "entity" : "path", step.entity);
          }
        }
      } else {
        note = "This server does not offer relatedSearch yet: showing direct associations only.";
        const direct = await run("associations", { userId: state.user, memoryId: center });
        for (const a of direct || []) {
          const other = a.memoryA === center ? a.memoryB : a.memoryA;
          const m = await run("memory", { userId: state.user, memoryId: other });
          if (m) nodes.set(other, { m, depth: 1 });
        }
      }
      // Real association strengths between every pair shown (thickness = strength).
      if (has("associations") !== false) {
        const ids = [...nodes.keys()];
        const lists = await Promise.all(ids.map((id) => run("associations", { userId: state.user, memoryId: id }).catch(() => [])));
        lists.forEach((list) => {
          for (const a of list || []) if (nodes.has(a.memoryA) && nodes.has(a.memoryB)) addEdge(a.memoryA, a.memoryB, a.strength, "assoc");
        });
      }
      renderGraph(svg, center, nodes, [...edges.values()]);
      svg.dataset.depth = String(depth);
      renderLegend(note, nodes.size - 1, depth);
      status(`neighbourhood of ${center}: ${nodes.size - 1} memories within depth ${depth}`, "ok");
    } catch (err) {
      status(`neighbourhood failed [${err.code}]: ${err.message}`, "error");
      $("#graph-detail").textContent = err.message;
    }
  }

  function renderLegend(note, count, depth) {
    const legend = $("#graph-legend");
    legend.replaceChildren(...TYPES.map((t) => el("span", { class: `t-${t}`, text: t.toLowerCase() })));
    const detail = $("#graph-detail");
    detail.prepend(el("p", { class: "hint", text: `${count} related within depth ${depth}. Edge thickness = association `
      + "strength; dashed = reached through a shared entity. Click a memory to see it; double-click to centre it." }));
    if (note) detail.prepend(el("p", { class: "banner info", text: note }));
  }

  /** A small force layout (deterministic start, fixed iterations) drawn as SVG. */
  function layout(ids, edges, centerId, width, height, depthOf = () => 1) {
    const pos = new Map();
    const n = ids.length;
    // Start on a circle, nearer the centre the fewer hops away, with a small deterministic jitter so
    // symmetric neighbourhoods do not settle on a line.
    const hash = (s) => { let h = 2166136261; for (const c of s) h = Math.imul(h ^ c.charCodeAt(0), 16777619); return (h >>> 0) / 4294967296; };
    ids.forEach((id, i) => {
      if (id === centerId) { pos.set(id, { x: width / 2, y: height / 2, vx: 0, vy: 0 }); return; }
      const angle = (2 * Math.PI * i) / Math.max(1, n - 1) + 0.5 + 0.4 * hash(id);
      const r = Math.min(width, height) * (0.2 + 0.1 * Math.min(3, depthOf(id)));
      pos.set(id, { x: width / 2 + r * Math.cos(angle), y: height / 2 + r * Math.sin(angle), vx: 0, vy: 0 });
    });
    const ideal = Math.min(width, height) / (n < 6 ? 3 : 4.5);
    for (let iter = 0; iter < 300; iter++) {
      const cool = 1 - iter / 300;
      for (let i = 0; i < n; i++) {
        const a = pos.get(ids[i]);
        for (let j = i + 1; j < n; j++) {
          const b = pos.get(ids[j]);
          let dx = a.x - b.x, dy = a.y - b.y;
          const d2 = Math.max(dx * dx + dy * dy, 25);
          const f = (ideal * ideal) / d2;
          const d = Math.sqrt(d2);
          dx /= d; dy /= d;
          a.vx += dx * f; a.vy += dy * f; b.vx -= dx * f; b.vy -= dy * f;
        }
      }
      for (const e of edges) {
        const a = pos.get(e.a), b = pos.get(e.b);
        if (!a || !b) continue;
        const dx = b.x - a.x, dy = b.y - a.y;
        const d = Math.max(Math.hypot(dx, dy), 1);
        const f = ((d - ideal * (1.2 - 0.5 * (e.strength || 0))) / d) * 0.08;
        a.vx += dx * f; a.vy += dy * f; b.vx -= dx * f; b.vy -= dy * f;
      }
      for (const id of ids) {
        const p = pos.get(id);
        if (id === centerId) { p.vx = p.vy = 0; continue; }
        p.vx += (width / 2 - p.x) * 0.002; p.vy += (height / 2 - p.y) * 0.002;
        const step = Math.min(Math.hypot(p.vx, p.vy), 20 * cool + 1);
        const norm = Math.hypot(p.vx, p.vy) || 1;
        p.x = Math.max(40, Math.min(width - 40, p.x + (p.vx / norm) * step));
        p.y = Math.max(30, Math.min(height - 30, p.y + (p.vy / norm) * step));
        p.vx *= 0.5; p.vy *= 0.5;
      }
    }
    return pos;
  }

  const SVG = "http://www.w3.org/2000/svg";
  const svgEl = (tag, attrs = {}) => {
    const node = document.createElementNS(SVG, tag);
    for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
    return node;
  };

  function renderGraph(svg, centerId, nodes, edges) {
    const width = 800, height = 520;
    const ids = [...nodes.keys()];
    const pos = layout(ids, edges, centerId, width, height, (id) => nodes.get(id).depth || 1);
    svg.replaceChildren();
    const edgeLayer = svgEl("g", { class: "edges" });
    const nodeLayer = svgEl("g", { class: "nodes" });
    for (const e of edges) {
      const a = pos.get(e.a), b = pos.get(e.b);
      if (!a || !b) continue;
      const line = svgEl("line", {
        class: `edge ${e.kind === "entity" ? "entity" : ""}`, x1: a.x, y1: a.y, x2: b.x, y2: b.y,
        "stroke-width": (1 + 9 * Math.max(0, Math.min(1, e.strength || 0))).toFixed(2),
        "data-strength": fmtNum(e.strength || 0),
      });
      const title = svgEl("title");
      title.textContent = `${e.kind === "entity" ? `shared entity${e.entity ? ` “${e.entity}”` : ""}` : "association"}`
        + ` · strength ${fmtNum(e.strength || 0)}`;
      line.append(title);
      edgeLayer.append(line);
    }
    for (const id of ids) {
      const { m, depth } = nodes.get(id);
      const p = pos.get(id);
      const g = svgEl("g", { class: `node${id === centerId ? " center" : ""}`, transform: `translate(${p.x.toFixed(1)},${p.y.toFixed(1)})`,
        "data-memory-id": id, "data-type": m.type, tabindex: "0" });
      const r = id === centerId ? 16 : Math.max(8, 13 - 2 * (depth || 1));
      g.append(svgEl("circle", { r, fill: TYPE_COLOR[m.type] || "#6b7280" }));
      const label = svgEl("text", { x: r + 4, y: 4 });
      const text = m.text.length > 22 ? `${m.text.slice(0, 21)}…` : m.text;
      label.textContent = text;
      if (HAN.test(text)) label.setAttribute("lang", "zh-Hans");
      g.append(label);
      const title = svgEl("title");
      title.textContent = `${m.type} · ${m.tier} · weight ${fmtNum(m.weight && m.weight.final, 2)}\n${m.text}`;
      g.append(title);
      g.addEventListener("click", () => {
        const detail = $("#graph-detail");
        detail.querySelector("ol")?.remove();
        detail.append(el("ol", { class: "cards" }, memoryCard(m)));
      });
      g.addEventListener("dblclick", () => openGraph(id));
      nodeLayer.append(g);
    }
    svg.append(edgeLayer, nodeLayer);
    svg.dataset.nodes = String(ids.length);
    svg.dataset.edges = String(edges.length);
  }

  // ----- view: conflicts --------------------------------------------------------------------
  async function loadConflicts() {
    const list = $("#conflicts-list");
    list.replaceChildren();
    if (has("conflicts") === false) {
      list.append(el("li", { class: "banner info", text: "This server does not offer the conflicts query yet." }));
      return;
    }
    try {
      const answer = await run("conflicts", { userId: state.user, first: 50 });
      const items = listIn(answer);
      if (!items.length) list.append(el("li", { class: "hint", text: "No conflicts are waiting for review." }));
      const winnerEnum = enumValues("resolveConflict", "winner", null);
      for (const c of items) {
        const memories = [];
        for (const [k, v] of Object.entries(c)) {
          if (isMemory(v)) memories.push([k, v]);
          else if (Array.isArray(v)) v.forEach((x, i) => { const m = memoryOf(x); if (m) memories.push([`${k} ${i + 1}`, m]); });
        }
        const cid = c.id ?? c.conflictId;
        const li = el("li", { class: "card conflict", dataset: { conflictId: cid } });
        const skip = new Set(memories.map(([k]) => k.split(" ")[0]));
        li.append(el("div", { class: "meta" }, el("strong", { text: `conflict ${cid}` })), kv(c, skip));
        const pair = el("div", { class: "pair" });
        for (const [label, m] of memories) {
          const keep = el("button", { type: "button", class: "primary", "data-op": "resolveConflict", "data-action": "resolve",
            "data-winner": m.id, onclick: () => resolve(cid, m.id, m) }, `Keep the ${label.replace(/Memory$/, "").replace(/^new$/, "newer").replace(/^old$/, "older")} one`);
          if (has("resolveConflict") === false) keep.disabled = true;
          pair.append(el("div", {}, el("ol", { class: "cards" }, memoryCard(m, { actions: false })), keep));
        }
        li.append(pair);
        if (winnerEnum) {
          li.append(el("div", { class: "actions" }, winnerEnum.map((w) => el("button", {
            type: "button", "data-action": "resolve", "data-winner": w, onclick: () => resolve(cid, w, null),
          }, `Winner: ${w.toLowerCase()}`))));
        }
        list.append(li);
      }
      status(`${items.length} conflict${items.length === 1 ? "" : "s"} in the queue`, "ok");
    } catch (err) {
      list.append(el("li", { class: "banner gated", text: `conflicts failed [${err.code}]: ${err.message}` }));
      status(`conflicts failed [${err.code}]: ${err.message}`, "error");
    }
  }

  async function resolve(conflictId, winner, m) {
    try {
      await run("resolveConflict", { userId: state.user, conflictId, winner });
      status(`conflict ${conflictId} resolved${m ? `: kept “${m.text.slice(0, 40)}”` : ` (${winner})`}`, "ok");
    } catch (err) {
      status(`resolve failed [${err.code}]: ${err.message}`, "error");
    }
    await loadConflicts();
  }

  // ----- view: maintenance ------------------------------------------------------------------
  /** One line for a changeset: what ran, and what it changed. */
  function changesetSummary(c) {
    const changes = [];
    for (const [k, v] of Object.entries(c)) {
      if (/^(users|usersDone|indexesRebuilt)$/.test(k)) continue;
      if (typeof v === "number" && v > 0) changes.push(`${v} ${k}`);
      else if (Array.isArray(v) && v.length) changes.push(`${v.length} ${k}`);
    }
    const parts = [
      `${String(c.kind || "maintenance").toLowerCase()}${c.dryRun ? " (dry run)" : ""}`,
      c.status ? String(c.status).toLowerCase() : null,
      changes.length ? changes.join(", ") : "nothing to change",
      c.createdAt ? ago(c.createdAt) : null,
      c.undone || c.undoneAt ? `undone ${ago(c.undoneAt)}` : null,
    ];
    return parts.filter(Boolean).join(" · ");
  }

  function changesetView(c) {
    return [el("p", { class: "text", text: changesetSummary(c) }),
      el("details", { class: "more-info" }, el("summary", { text: `changeset ${c.id}` }), kv(c))];
  }

  async function loadChangesets() {
    const list = $("#changesets-list");
    list.replaceChildren();
    if (has("changesets") === false) {
      list.append(el("li", { class: "banner info", text: "This server does not offer a changesets query yet." }));
      return;
    }
    try {
      const items = listIn(await run("changesets", { userId: state.user, first: 50 }));
      if (!items.length) list.append(el("li", { class: "hint", text: "No maintenance has run yet." }));
      for (const c of items) {
        const id = c.id ?? c.changesetId;
        const undone = c.undoneAt || c.undone;
        const dry = c.dryRun;
        const undo = el("button", { type: "button", class: "danger", "data-op": "undoChangeset", "data-action": "undo",
          disabled: Boolean(undone || dry), onclick: () => undoChangeset(id) }, undone ? "Undone" : dry ? "Dry run" : "Undo");
        if (has("undoChangeset") === false) undo.disabled = true;
        list.append(el("li", { class: "card", dataset: { changesetId: id } }, changesetView(c),
          el("div", { class: "actions" }, undo)));
      }
    } catch (err) {
      list.append(el("li", { class: "banner gated", text: `changesets failed [${err.code}]: ${err.message}` }));
    }
  }

  async function runMaintenance(event) {
    event && event.preventDefault();
    const mode = $("#maint-mode").value;
    const dryRun = $("#maint-dry").checked;
    const out = $("#maint-result");
    out.replaceChildren();
    try {
      const result = await run("runMaintenance", { userId: state.user, mode, dryRun });
      const changeset = result && result.changeset;
      const rest = result && typeof result === "object" ? { ...result } : {};
      delete rest.changeset; delete rest.kind; delete rest.dryRun;
      out.append(el("p", { class: "banner info", text: `${mode.toLowerCase()} ${dryRun ? "dry run" : "run"} finished`
        + `${dryRun ? ": nothing was changed; this is what it would do" : ""}` }),
        changeset ? el("div", { class: "card" }, changesetView(changeset)) : "", kv(rest) || "");
      status(`maintenance ${mode} ${dryRun ? "(dry run)" : ""} done`, "ok");
    } catch (err) {
      out.append(el("p", { class: "banner gated", text: `maintenance failed [${err.code}]: ${err.message}` }));
      status(`maintenance failed [${err.code}]: ${err.message}`, "error");
    }
    await loadChangesets();
  }

  async function undoChangeset(id) {
    const ok = await confirmDialog(`Undo maintenance changeset ${id}? The graph goes back to how it was before it.`, "Undo");
    if (!ok) return;
    try {
      await run("undoChangeset", { changesetId: id, userId: state.user });
      status(`changeset ${id} undone`, "ok");
    } catch (err) {
      status(`undo failed [${err.code}]: ${err.message}`, "error");
    }
    await loadChangesets();
  }

  // ----- view: export -----------------------------------------------------------------------
  async function exportAs(ext) {
    const out = $("#export-result");
    if (!state.user) return;
    const headers = {};
    if (state.key) headers["x-api-key"] = state.key;
    try {
      const response = await fetch(`/export/${encodeURIComponent(state.user)}.${ext}`, { headers });
      if (!response.ok) {
        // the route answers GraphQL-shaped errors: show the server's own message (e.g. an unknown user)
        let message = "";
        try {
          message = (await response.json()).errors[0].message;
        } catch (_) {
          message = "";
        }
        throw new Error(`HTTP ${response.status}${message ? `: ${message}` : ""}`);
      }
      const blob = await response.blob();
      const url = URL.createObjectURL(blob);
      const a = el("a", { href: url, download: `${state.user}.${ext}` });
      document.body.append(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
      out.textContent = `exported ${state.user}.${ext} (${blob.size.toLocaleString()} bytes)`;
      out.dataset.exported = ext;
      status(out.textContent, "ok");
    } catch (err) {
      out.textContent = `export failed: ${err.message}`;
      status(out.textContent, "error");
    }
  }

  // ----- navigation -------------------------------------------------------------------------
  function show(view) {
    state.view = view;
    for (const tab of $$(".tabs [role=tab]")) tab.setAttribute("aria-selected", String(tab.dataset.view === view));
    for (const section of $$(".view")) section.hidden = section.dataset.view !== view;
    if (location.hash !== `#${view}`) history.replaceState(null, "", `#${view}`);
  }

  async function refreshCurrent() {
    if (!state.user) return;
    try {
      if (state.view === "memories") await loadMemories();
      else if (state.view === "conflicts") await loadConflicts();
      else if (state.view === "maintenance") await loadChangesets();
      else if (state.view === "recall" && $("#recall-query").value.trim()) await recall();
      else if (state.view === "graph" && $("#graph-memory").value.trim()) await drawNeighbourhood();
    } catch (err) {
      status(`[${err.code}] ${err.message}`, "error");
    }
  }

  async function connect(event) {
    event && event.preventDefault();
    state.key = $("#api-key").value.trim();
    state.user = $("#user-id").value.trim();
    localStorage.setItem("bmam.apiKey", state.key);
    localStorage.setItem("bmam.userId", state.user);
    if (!state.user) { status("name a user first", "error"); return; }
    status("loading…");
    try {
      await loadSchema();
      document.body.dataset.ready = "true";
      await refreshCurrent();
      if (state.view === "memories") status(`loaded ${state.user}`, "ok");
    } catch (err) {
      status(`[${err.code}] ${err.message}`, "error");
    }
  }

  function init() {
    $("#api-key").value = state.key;
    $("#user-id").value = state.user;
    $("#connect").addEventListener("submit", connect);
    for (const tab of $$(".tabs [role=tab]")) {
      tab.addEventListener("click", () => { show(tab.dataset.view); status(""); refreshCurrent(); });
    }
    for (const more of $$("[data-more]")) more.addEventListener("click", () => loadMoreOf(more.dataset.more));
    $("#recall-form").addEventListener("submit", recall);
    $("#graph-form").addEventListener("submit", drawNeighbourhood);
    $("#conflicts-refresh").addEventListener("click", loadConflicts);
    $("#maint-form").addEventListener("submit", runMaintenance);
    for (const b of $$("[data-export]")) b.addEventListener("click", () => exportAs(b.dataset.export));
    window.addEventListener("hashchange", () => {
      const view = location.hash.slice(1);
      if (view !== state.view && $$(".view").some((v) => v.dataset.view === view)) { show(view); refreshCurrent(); }
    });
    const initial = location.hash.slice(1);
    show($$(".view").some((v) => v.dataset.view === initial) ? initial : "memories");
    if (state.user) connect();
  }

  document.addEventListener("DOMContentLoaded", init);
})();
