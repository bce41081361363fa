// bench's HTML report. Every string from the run is set as text (textContent, text nodes),
// never parsed as HTML. Only the visible page of rows is in the DOM.
(function () {
  "use strict";
  var PAGE = 100;
  var run = JSON.parse(document.getElementById("bench-run").textContent);
  var tasks = JSON.parse(document.getElementById("bench-tasks").textContent);
  var stats = run.statistics || {};
  var flaky = new Set(stats.flaky || []);
  var state = { status: "", evaluator: "", target: "", text: "", sort: "", page: 0, rows: tasks.map(function (t, i) { return i; }) };

  var B = benchCommon;
  var el = B.el, $ = B.$, pct = B.pct, num = B.num, json = B.json, interval = B.interval;
  var taskName = B.taskName, targetName = B.targetName, why = B.why, card = B.card;

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
    if (s.waiting) cards.appendChild(card(String(s.waiting), "waiting for a person"));
    if (s.not_run) cards.appendChild(card(String(s.not_run), "not run"));
    if (run.llm) {
      cards.appendChild(card(String(run.llm.calls || 0), "LLM calls"));
      var cost = run.llm.cost_usd;
      cards.appendChild(card(typeof cost === "number" ? "$" + cost.toFixed(4) : "unknown", "LLM cost" +
        (run.llm.unpriced_calls ? " (" + run.llm.unpriced_calls + " calls unpriced)" : "")));
    }
    if (run.batches && run.batches.requests) {
      var b = run.batches;
      cards.appendChild(card("$" + (b.cost_usd || 0).toFixed(4), "batched: " + b.requests + " requests in " +
        (b.batches || []).length + " batches" + (b.live_cost_usd ? " (live price $" + b.live_cost_usd.toFixed(4) + ")" : "")));
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
      if (stats.variance && stats.variance.system !== undefined) rows.push(["variance", "system " + stats.variance.system + ", judge " + stats.variance.judge + ": " + stats.variance.hint]);
      var users = stats.variance && stats.variance.simulated_user;
      if (users) rows.push(["simulated user", (users.variance === null ? "" : users.variance + " (" + Math.round(users.user_share * 100) + "% of the spread): ") + users.hint]);
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

  // Each calibrated judge's agreement with its labels, measured before the run (`calibration:`).
  function renderCalibration() {
    if (!Array.isArray(run.calibration) || !run.calibration.length) return;
    var box = $("calibration");
    box.hidden = false;
    var table = el("table", { id: "calibration-table" }, el("tr", {}, ["judge", "kappa [95% CI]", "agreement", "bar", "verdict"].map(function (h) { return el("th", { text: h }); })));
    run.calibration.forEach(function (c) {
      var k = c.kappa;
      var width = k ? Math.max(0, Math.min(1, (k.value + 1) / 2)) : 0;
      var bar = el("div", { cls: "bar", title: "kappa from -1 to 1" }, el("div", { cls: "fill", style: "width: " + (100 * width).toFixed(1) + "%" }));
      table.appendChild(el("tr", {}, el("td", { text: String(c.judge) }),
        el("td", { text: k ? num(k.value) + " [" + num(k.low) + ", " + num(k.high) + "]" : "no labelled task judged" }),
        el("td", {}, bar), el("td", { text: "min_kappa " + c.min_kappa + " (" + c.labels + ")" }),
        el("td", { cls: c.passes ? "passed" : "failed", text: c.passes ? "meets the bar" : "below the bar" })));
    });
    box.appendChild(el("h2", { text: "Judge calibration" }));
    box.appendChild(table);
  }

  var renderTargetStatistics = B.renderTargetStatistics;

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

  function showTask(i) {
    var t = tasks[i];
    var box = $("detail");
    Array.prototype.forEach.call($("rows").tBodies[0].rows, function (tr) { tr.classList.toggle("selected", tr.getAttribute("data-index") === String(i)); });
    B.renderDetail(t, box);
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
    renderCalibration();
    renderTargets();
    benchMatrix.render(tasks, $("matrix"), showTask);
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
