// bench's HTML report. Every string from the run is set as text (textContent, text nodes),
// never parsed as HTML. Only the visible page of rows is in the DOM.
"use strict";
(function () {
  var PAGE = 100;
  var run = JSON.parse(document.getElementById("bench-run").textContent);
  var tasks = JSON.parse(document.getElementById("bench-tasks").textContent);
  var stats = run.statistics || {};
  var flaky = new Set(stats.flaky || []);
  var state = { status: "", evaluator: "", target: "", text: "", sort: "", page: 0, rows: tasks.map(function (t, i) { return i; }) };

  function el(tag, attrs) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) {
      if (k === "text") node.textContent = attrs[k];
      else if (k === "cls") node.className = attrs[k];
      else node.setAttribute(k, attrs[k]);
    });
    for (var i = 2; i < arguments.length; i++) {
      var child = arguments[i];
      if (child === null || child === undefined) continue;
      if (Array.isArray(child)) { child.forEach(function (c) { node.appendChild(c); }); continue; }
      node.appendChild(typeof child === "object" ? child : document.createTextNode(String(child)));
    }
    return node;
  }
  function $(id) { return document.getElementById(id); }
  function pct(x) { return (100 * x).toFixed(1) + "%"; }
  function num(x) { return typeof x === "number" ? x.toFixed(3) : "-"; }
  function json(value) { return typeof value === "string" ? value : JSON.stringify(value, null, 2); }
  function interval(block, asPercent) {
    var f = asPercent ? pct : num;
    return f(block.value) + " [" + f(block.low) + ", " + f(block.high) + "] (" + block.method + ")";
  }
  function taskName(t) { return t.repeat ? t.id + " (run " + (t.repeat + 1) + ")" : t.id; }
  function targetName(t) {
    var target = t.target;
    if (target === undefined || target === null) return "";
    if (typeof target !== "object") return String(target);
    return String(target.label || target.name || target.model || target.type || JSON.stringify(target));
  }
  function why(t) {
    if (t.error) return "error: " + t.error;
    var parts = (t.evaluators || []).filter(function (e) { return e.error || !e.passed; })
      .map(function (e) { return e.name + ": " + (e.error ? "error: " + e.error : e.reason || ""); });
    if (parts.length) return parts.join("; ");
    return (t.evaluators || []).map(function (e) { return e.name + ": " + (e.reason || ""); }).join("; ");
  }
  function card(value, label) { return el("div", { cls: "card" }, el("b", { text: value }), el("span", { text: label })); }

  function renderSummary() {
    var s = run.summary || {};
    document.title = "bench: " + run.suite;
    $("title").textContent = "bench: " + run.suite;
    $("subtitle").textContent = "run " + run.run_id + (run.started_at ? ", started " + run.started_at : "") +
      (run.duration_s !== undefined ? ", " + run.duration_s + " s" : "") + (run.stopped ? "; stopped: " + run.stopped : "");
    var box = $("summary");
    var cards = el("div", { cls: "cards" },
      card(String(s.total || 0), "tasks"), card(String(s.passed || 0), "passed"),
      card(String(s.failed || 0), "failed"), card(String(s.errors || 0), "errors"),
      card(s.total ? pct((s.passed || 0) / s.total) : "-", "pass rate"));
    if (s.interrupted) cards.appendChild(card(String(s.interrupted), "interrupted"));
    if (s.not_run) cards.appendChild(card(String(s.not_run), "not run"));
    if (run.llm) {
      cards.appendChild(card(String(run.llm.calls || 0), "LLM calls"));
      var cost = run.llm.cost_usd;
      cards.appendChild(card(typeof cost === "number" ? "$" + cost.toFixed(4) : "unknown", "LLM cost" +
        (run.llm.unpriced_calls ? " (" + run.llm.unpriced_calls + " calls unpriced)" : "")));
    }
    box.appendChild(cards);
  }

  function renderStatistics() {
    if (!run.statistics) return;
    var box = $("statistics");
    var rows = [["pass rate", interval(stats.pass_rate, true) + ", " + pct(stats.confidence) + " interval"]];
    if (stats.mean_score) rows.push(["mean score", interval(stats.mean_score, false)]);
    if (stats.repeats > 1) {
      rows.push(["runs per task", String(stats.repeats) + " (" + stats.tasks + " tasks)"]);
      rows.push(["pass@k", Object.keys(stats.pass_at_k || {}).map(function (k) { return "pass@" + k + " " + num(stats.pass_at_k[k]); }).join(", ")]);
      rows.push(["pass^k", Object.keys(stats.pass_hat_k || {}).map(function (k) { return "pass^" + k + " " + num(stats.pass_hat_k[k]); }).join(", ")]);
      rows.push(["flaky tasks", (stats.flaky || []).length ? stats.flaky.join(", ") : "none"]);
      if (stats.variance) rows.push(["variance", "system " + stats.variance.system + ", judge " + stats.variance.judge + ": " + stats.variance.hint]);
    }
    var table = el("table", { id: "statistics-table" });
    rows.forEach(function (r) { table.appendChild(el("tr", {}, el("th", { text: r[0] }), el("td", { text: r[1] }))); });
    box.appendChild(el("h2", { text: "Statistics" }));
    box.appendChild(table);
    if (run.aggregates) {
      box.appendChild(el("h3", { text: "Suite-level figures" }));
      box.appendChild(el("pre", { text: json(run.aggregates) }));
    }
  }

  // The run's per-target statistics (bench computes them for a run of several targets).
  function renderTargetStatistics(rows) {
    var box = $("targets");
    box.hidden = false;
    var head = ["target", "tasks", "pass rate", "mean score", "passed", "failed", "errors", "cost", "time/task", "p95"];
    var table = el("table", { id: "targets-table" }, el("tr", {}, head.map(function (h) { return el("th", { text: h }); })));
    rows.forEach(function (r) {
      var d = r.duration_ms;
      var cells = [r.label, String(r.tasks), r.pass_rate ? interval(r.pass_rate, true) : "-",
        r.mean_score ? interval(r.mean_score, false) : "-", String(r.passed), String(r.failed), String(r.errors),
        typeof r.cost_usd === "number" ? "$" + r.cost_usd.toFixed(4) : "-",
        d ? (d.mean / 1000).toFixed(2) + " s" : "-", d ? (d.p95 / 1000).toFixed(2) + " s" : "-"];
      table.appendChild(el("tr", {}, cells.map(function (c) { return el("td", { text: c }); })));
    });
    box.appendChild(el("h2", { text: "Targets" }));
    box.appendChild(table);
  }

  function renderTargets() {
    if (Array.isArray(run.targets) && run.targets.length) return renderTargetStatistics(run.targets);
    var by = new Map();
    tasks.forEach(function (t) {
      var name = targetName(t);
      if (!by.has(name)) by.set(name, { n: 0, passed: 0, scores: [], cost: 0, latency: [] });
      var b = by.get(name);
      b.n += 1; b.passed += t.passed ? 1 : 0;
      if (typeof t.score === "number") b.scores.push(t.score);
      var usage = t.usage || {};
      if (typeof usage.cost_usd === "number") b.cost += usage.cost_usd;
      if (typeof t.duration_ms === "number") b.latency.push(t.duration_ms);
    });
    if (by.size < 2) return;
    var box = $("targets");
    box.hidden = false;
    var table = el("table", { id: "targets-table" }, el("tr", {}, el("th", { text: "target" }), el("th", { text: "tasks" }),
      el("th", { text: "pass rate" }), el("th", { text: "mean score" }), el("th", { text: "cost" }), el("th", { text: "mean latency" })));
    by.forEach(function (b, name) {
      var mean = function (xs) { return xs.length ? xs.reduce(function (a, x) { return a + x; }, 0) / xs.length : null; };
      var lat = mean(b.latency);
      table.appendChild(el("tr", {}, el("td", { text: name || "(none)" }), el("td", { text: String(b.n) }),
        el("td", { text: pct(b.passed / b.n) }), el("td", { text: num(mean(b.scores)) }),
        el("td", { text: "$" + b.cost.toFixed(4) }), el("td", { text: lat === null ? "-" : lat.toFixed(0) + " ms" })));
    });
    box.appendChild(el("h2", { text: "Targets" }));
    box.appendChild(table);
  }

  function haystack(t) {
    if (t._text === undefined) {
      t._text = [t.id, t.response, t.error, why(t), json(t.prompt || ""), json(t.messages || ""),
        json(t.vars || ""), json(t.metadata || ""), targetName(t)].join("\n").toLowerCase();
    }
    return t._text;
  }
  function failedBy(t, name) {
    return (t.evaluators || []).some(function (e) { return e.name === name && (e.error || !e.passed); });
  }
  function applyFilters() {
    var text = state.text.toLowerCase();
    var rows = [];
    for (var i = 0; i < tasks.length; i++) {
      var t = tasks[i];
      if (state.status === "flaky" ? !flaky.has(t.id) : state.status && t.status !== state.status) continue;
      if (state.evaluator && !failedBy(t, state.evaluator)) continue;
      if (state.target && targetName(t) !== state.target) continue;
      if (text && haystack(t).indexOf(text) < 0) continue;
      rows.push(i);
    }
    if (state.sort) {
      var sign = state.sort === "score-asc" ? 1 : -1;
      rows.sort(function (a, b) {
        var x = tasks[a].score, y = tasks[b].score;
        if (typeof x !== "number") return typeof y !== "number" ? a - b : 1; // unscored last
        if (typeof y !== "number") return -1;
        return x === y ? a - b : sign * (x - y);
      });
    }
    state.rows = rows;
    state.page = 0;
    renderRows();
  }

  function renderRows() {
    var body = $("rows").tBodies[0];
    body.textContent = "";
    var pages = Math.max(1, Math.ceil(state.rows.length / PAGE));
    var start = state.page * PAGE;
    state.rows.slice(start, start + PAGE).forEach(function (i) {
      var t = tasks[i];
      var response = t.response === null || t.response === undefined ? "" : String(t.response).slice(0, 300);
      var tr = el("tr", { "data-index": String(i) },
        el("td", { text: taskName(t) }), el("td", { text: targetName(t) }),
        el("td", { cls: t.status, text: t.status }), el("td", { text: num(t.score) }),
        el("td", { cls: "response", text: response }), el("td", { cls: "why", text: why(t).slice(0, 300) }));
      tr.tabIndex = 0;
      tr.addEventListener("click", function () { showTask(i); });
      tr.addEventListener("keydown", function (e) { if (e.key === "Enter") showTask(i); });
      body.appendChild(tr);
    });
    var shown = state.rows.length ? (start + 1) + "-" + Math.min(start + PAGE, state.rows.length) : "0";
    $("count").textContent = state.rows.length + " of " + tasks.length + " tasks shown (rows " + shown + ")";
    $("page").textContent = "page " + (state.page + 1) + " of " + pages;
    $("prev").disabled = state.page === 0;
    $("next").disabled = state.page >= pages - 1;
  }

  function section(box, title, content) {
    box.appendChild(el("h3", { text: title }));
    box.appendChild(content);
  }
  function kvTable(obj) {
    var table = el("table", {});
    Object.keys(obj).forEach(function (k) { table.appendChild(el("tr", {}, el("th", { text: k }), el("td", {}, el("pre", { text: json(obj[k]) })))); });
    return table;
  }
  function promptView(t) {
    if (Array.isArray(t.messages) && t.messages.length) {
      var div = el("div", {});
      t.messages.forEach(function (m) {
        div.appendChild(el("div", { cls: "muted", text: m && m.role ? String(m.role) : "message" }));
        div.appendChild(el("pre", { text: json(m && m.content !== undefined ? m.content : m) }));
      });
      return div;
    }
    if (t.prompt !== undefined && t.prompt !== null) return el("pre", { cls: "prompt", text: json(t.prompt) });
    return el("p", { cls: "muted", text: "(the record holds no prompt)" });
  }

  function showTask(i) {
    var t = tasks[i];
    var box = $("detail");
    box.textContent = "";
    box.hidden = false;
    Array.prototype.forEach.call($("rows").tBodies[0].rows, function (tr) { tr.classList.toggle("selected", tr.getAttribute("data-index") === String(i)); });
    box.appendChild(el("h2", { id: "detail-title", text: taskName(t) }));
    var usage = t.usage || {};
    var facts = [t.status, "score " + num(t.score), Math.round(t.duration_ms || 0) + " ms"];
    if (usage.total_tokens) facts.push(usage.total_tokens + " tokens");
    if (typeof usage.cost_usd === "number" && usage.cost_usd) facts.push("$" + usage.cost_usd.toFixed(5));
    if (targetName(t)) facts.push("target " + targetName(t));
    box.appendChild(el("p", { cls: t.status, text: facts.join(" · ") }));
    if (t.error) section(box, "Error", el("pre", { cls: "error-text", text: t.error }));
    var response = el("div", {}, el("pre", { cls: "response", text: t.response === null || t.response === undefined ? "(no response)" : String(t.response) }));
    if (t.truncated) response.appendChild(el("p", { cls: "muted", text: "truncated: " + (t.truncation || "") + (t.response_bytes ? " (" + t.response_bytes + " bytes, sha256 " + t.response_sha256 + ")" : "") }));
    box.appendChild(el("div", { cls: "pair" },
      el("div", {}, el("h3", { text: "Prompt" }), promptView(t)),
      el("div", {}, el("h3", { text: "Response" }), response)));
    if (t.vars && Object.keys(t.vars).length) section(box, "Vars", kvTable(t.vars));
    if (t.metadata && Object.keys(t.metadata).length) section(box, "Metadata", kvTable(t.metadata));
    var evs = el("table", { id: "evaluators" }, el("tr", {}, el("th", { text: "evaluator" }), el("th", { text: "verdict" }),
      el("th", { text: "score" }), el("th", { text: "reason" }), el("th", { text: "details" })));
    (t.evaluators || []).forEach(function (e) {
      var verdict = e.error ? "error" : e.passed ? "passed" : "failed";
      var details = e.details && Object.keys(e.details).length ? el("pre", { text: json(e.details) }) : "";
      evs.appendChild(el("tr", {}, el("td", { text: e.name + (e.type !== e.name ? " (" + e.type + ")" : "") }),
        el("td", { cls: verdict, text: verdict }), el("td", { text: num(e.score) }),
        el("td", { text: e.error ? e.error : e.reason || "" }), el("td", {}, details)));
    });
    section(box, "Evaluators", evs);
    if (t.scorecard) {
      var card = t.scorecard;
      var table = el("table", { id: "scorecard" }, el("tr", {}, el("th", { text: "dimension" }), el("th", { text: "raw" }),
        el("th", { text: "score" }), el("th", { text: "weight" }), el("th", { text: "gate" }), el("th", { text: "verdict" }), el("th", { text: "reason" })));
      (Array.isArray(card.dimensions) ? card.dimensions : []).forEach(function (d) {
        var verdict = d.passed === undefined ? d.state || "" : d.passed ? "passed" : "failed";
        table.appendChild(el("tr", {}, el("td", { text: String(d.key) }), el("td", { text: json(d.raw === undefined ? null : d.raw) }),
          el("td", { text: num(d.score) }), el("td", { text: String(d.weight) }), el("td", { text: d.gate ? "gate" : "" }),
          el("td", { cls: verdict, text: verdict }), el("td", { text: d.reason || "" })));
      });
      var head = "Scorecard (" + (card.strategy || "") + "): " + (card.passed ? "passed" : "failed") + ", score " + num(card.score);
      section(box, head, table);
      if (card.reason) box.appendChild(el("p", { cls: "muted", text: String(card.reason) }));
    }
    if (t.tool_calls && t.tool_calls.length) {
      var list = el("ol", { cls: "trajectory" });
      t.tool_calls.forEach(function (c) { list.appendChild(el("li", {}, el("b", { text: c.name }), " ", el("code", { text: JSON.stringify(c.arguments) }))); });
      section(box, "Trajectory (" + t.tool_calls.length + " tool calls)", list);
    }
    if (t.workspace) {
      var w = t.workspace;
      var files = el("table", { id: "changes" }, el("tr", {}, el("th", { text: "file" }), el("th", { text: "change" }), el("th", { text: "lines" })));
      (w.files || []).forEach(function (f) { files.appendChild(el("tr", {}, el("td", { text: f.path }), el("td", { text: f.status }), el("td", { text: "+" + f.added + " / -" + f.removed }))); });
      section(box, "Workspace change: " + (w.files_changed || 0) + " files, +" + (w.lines_added || 0) + " / -" + (w.lines_removed || 0), files);
      if (w.diff) section(box, "Diff", el("pre", { cls: "diff", text: json(w.diff) }));
      if (w.escapes && w.escapes.length) section(box, "Writes outside the workspace", el("pre", { text: json(w.escapes) }));
    }
    history.replaceState(null, "", "#task=" + encodeURIComponent(t.id) + (t.repeat ? "@" + t.repeat : ""));
    box.scrollIntoView();
  }

  // #task=ID or #task=ID@REPEAT opens that task: a link to one task of the report.
  function openLinkedTask() {
    var match = /^#task=([^@]*)(?:@(\d+))?$/.exec(location.hash);
    if (!match) return;
    var id = decodeURIComponent(match[1]);
    var repeat = Number(match[2] || 0);
    for (var i = 0; i < tasks.length; i++) {
      if (tasks[i].id === id && (tasks[i].repeat || 0) === repeat) return showTask(i);
    }
  }

  function init() {
    renderSummary();
    renderStatistics();
    renderTargets();
    var names = new Set();
    tasks.forEach(function (t) { (t.evaluators || []).forEach(function (e) { names.add(e.name); }); });
    Array.from(names).sort().forEach(function (n) { $("evaluator-filter").appendChild(el("option", { value: n, text: "did not pass: " + n })); });
    var targets = new Set(tasks.map(targetName).filter(function (n) { return n; }));
    if (targets.size > 1) {
      $("target-filter-label").hidden = false;
      Array.from(targets).sort().forEach(function (n) { $("target-filter").appendChild(el("option", { value: n, text: n })); });
      $("target-filter").addEventListener("change", function (e) { state.target = e.target.value; applyFilters(); });
    }
    $("status-filter").addEventListener("change", function (e) { state.status = e.target.value; applyFilters(); });
    $("evaluator-filter").addEventListener("change", function (e) { state.evaluator = e.target.value; applyFilters(); });
    $("text-filter").addEventListener("input", function (e) { state.text = e.target.value; applyFilters(); });
    $("sort").addEventListener("change", function (e) { state.sort = e.target.value; applyFilters(); });
    $("filters").addEventListener("submit", function (e) { e.preventDefault(); });
    $("prev").addEventListener("click", function () { state.page -= 1; renderRows(); });
    $("next").addEventListener("click", function () { state.page += 1; renderRows(); });
    renderRows();
    openLinkedTask();
  }
  init();
})();
