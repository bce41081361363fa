// The matrix: tasks as rows, prompt × target as columns, each cell one run's output with its
// verdict. Every string from the run is set as text. Only the visible page of rows is in the DOM,
// so a run of 100,000 cells stays usable.
var benchMatrix = (function () {
  "use strict";
  var B = benchCommon;
  var el = B.el, pct = B.pct, num = B.num, json = B.json;
  var PAGE = 50, SHORT = 120, Z = 1.959963984540054;

  // The column a run belongs to: its prompt variant and its target.
  function columnOf(t) {
    var prompt = typeof t.prompt_label === "string" ? t.prompt_label : "";
    return { key: prompt + "\u0000" + B.targetName(t), prompt: prompt, target: B.targetName(t) };
  }
  // The row a run belongs to: its id without the [prompt] and [target] its columns added.
  function rowOf(t, column) {
    var id = String(t.id);
    if (column.target && id.slice(-column.target.length - 2) === "[" + column.target + "]") id = id.slice(0, -column.target.length - 2);
    if (column.prompt && id.slice(-column.prompt.length - 2) === "[" + column.prompt + "]") id = id.slice(0, -column.prompt.length - 2);
    return t.repeat ? id + " (run " + (t.repeat + 1) + ")" : id;
  }
  // Wilson's interval of k passes in n runs (95%).
  function wilson(k, n) {
    if (!n) return null;
    var p = k / n, d = 1 + Z * Z / n, mid = (p + Z * Z / (2 * n)) / d;
    var half = Z * Math.sqrt(p * (1 - p) / n + Z * Z / (4 * n * n)) / d;
    return [Math.max(0, mid - half), Math.min(1, mid + half)];
  }

  function build(tasks) {
    var columns = [], byColumn = new Map(), rows = [], byRow = new Map();
    tasks.forEach(function (t, i) {
      var c = columnOf(t);
      if (!byColumn.has(c.key)) { byColumn.set(c.key, columns.length); columns.push({ prompt: c.prompt, target: c.target, n: 0, passed: 0, cost: 0, priced: false, ms: [] }); }
      var col = byColumn.get(c.key), name = rowOf(t, c);
      if (!byRow.has(name)) { byRow.set(name, rows.length); rows.push({ name: name, cells: [] }); }
      rows[byRow.get(name)].cells[col] = i;
      var s = columns[col];
      s.n += 1; s.passed += t.passed ? 1 : 0;
      var usage = t.usage || {};
      if (typeof usage.cost_usd === "number") { s.cost += usage.cost_usd; s.priced = true; }
      if (typeof t.duration_ms === "number") s.ms.push(t.duration_ms);
    });
    return { columns: columns, rows: rows };
  }

  function columnTitle(c) { return [c.prompt, c.target].filter(function (x) { return x; }).join(" · ") || "(none)"; }
  function columnFigures(c) {
    var ci = wilson(c.passed, c.n);
    var ms = c.ms.slice().sort(function (a, b) { return a - b; });
    var mean = ms.length ? ms.reduce(function (a, x) { return a + x; }, 0) / ms.length : null;
    var p95 = ms.length ? ms[Math.min(ms.length - 1, Math.ceil(0.95 * ms.length) - 1)] : null;
    return [
      c.n ? pct(c.passed / c.n) + " [" + pct(ci[0]) + ", " + pct(ci[1]) + "]" : "-",
      c.priced ? "$" + c.cost.toFixed(4) : "cost -",
      mean === null ? "-" : mean.toFixed(0) + " ms, p95 " + p95.toFixed(0) + " ms",
    ];
  }

  // Whether the row's runs do not all agree: some pass and some do not, or their statuses differ.
  function disagrees(row, tasks) {
    var seen = null, differ = false;
    row.cells.forEach(function (i) {
      if (i === undefined) return;
      var v = tasks[i].status;
      if (seen === null) seen = v; else if (v !== seen) differ = true;
    });
    return differ;
  }

  // A filter "key=value" on metadata: the run's metadata[key] holds value (as text); "key" alone: has it.
  function metadataMatch(t, filter) {
    var eq = filter.indexOf("="), key = eq < 0 ? filter : filter.slice(0, eq);
    var meta = t.metadata || {};
    if (!Object.prototype.hasOwnProperty.call(meta, key)) return false;
    if (eq < 0) return true;
    return json(meta[key]).toLowerCase().indexOf(filter.slice(eq + 1).toLowerCase()) >= 0;
  }

  function cell(t, i, open, pick) {
    var response = benchDiff.outputOf(t);
    var cls = "cell " + (t.status === "passed" ? "cell-passed" : "cell-failed");
    var head = el("div", { cls: "cell-head" },
      el("span", { cls: t.status, text: t.status }), " ", el("span", { cls: "muted", text: num(t.score) }));
    var body = response.length > SHORT
      ? el("details", {}, el("summary", { text: response.slice(0, SHORT) + "…" }), el("pre", { text: response }))
      : el("div", { cls: "cell-text", text: response });
    var buttons = el("div", { cls: "cell-buttons" },
      el("button", { type: "button", cls: "open", text: "open" }), " ",
      el("button", { type: "button", cls: "pick", text: "diff" }));
    buttons.firstChild.addEventListener("click", function () { open(i); });
    buttons.lastChild.addEventListener("click", function () { pick(i); });
    return el("td", { cls: cls, "data-index": String(i) }, head, body, buttons);
  }

  // Draws the matrix of `tasks` into `box` (hidden when there is one column); `open(i)` shows a
  // run whole; `diff` on two cells shows their outputs side by side. `whole(i)`, when given, is a
  // promise of run i's whole record (the viewer's cells are shortened) for the diff.
  function render(tasks, box, open, whole) {
    var m = build(tasks);
    if (m.columns.length < 2) return null;
    box.hidden = false;
    var state = { status: "", evaluator: "", meta: "", text: "", disagree: false, page: 0, shown: m.rows };
    var names = new Set();
    tasks.forEach(function (t) { (t.evaluators || []).forEach(function (e) { names.add(e.name); }); });
    var evaluator = el("select", { id: "matrix-evaluator" }, el("option", { value: "", text: "any" }),
      Array.from(names).sort().map(function (n) { return el("option", { value: n, text: "did not pass: " + n }); }));
    var status = el("select", { id: "matrix-status" }, ["", "passed", "failed", "error", "interrupted"].map(function (s) { return el("option", { value: s, text: s || "all" }); }));
    var meta = el("input", { id: "matrix-metadata", type: "search", placeholder: "key=value" });
    var text = el("input", { id: "matrix-text", type: "search", placeholder: "id, output, reason" });
    var disagree = el("input", { id: "matrix-disagree", type: "checkbox" });
    var form = el("form", { id: "matrix-filters", cls: "filters", autocomplete: "off" },
      el("label", {}, "status ", status), el("label", {}, "evaluator ", evaluator),
      el("label", {}, "metadata ", meta), el("label", {}, "text ", text),
      el("label", {}, disagree, " only rows where the columns disagree"));
    var count = el("p", { id: "matrix-count", role: "status" });
    var head = el("tr", {}, el("th", { text: "task" }), m.columns.map(function (c) {
      return el("th", { cls: "column" }, el("div", { cls: "column-title", text: columnTitle(c) }),
        columnFigures(c).map(function (f) { return el("div", { cls: "muted", text: f }); }));
    }));
    var body = el("tbody", {});
    var table = el("table", { id: "matrix-table" }, el("thead", {}, head), body);
    var prev = el("button", { type: "button", id: "matrix-prev", text: "previous" });
    var next = el("button", { type: "button", id: "matrix-next", text: "next" });
    var page = el("span", { id: "matrix-page" });
    box.appendChild(el("h2", { text: "Matrix" }));
    box.appendChild(form);
    box.appendChild(count);
    box.appendChild(el("div", { cls: "matrix-scroll" }, table));
    box.appendChild(el("nav", { cls: "pager" }, prev, " ", page, " ", next));
    var diffBox = el("div", { id: "matrix-diff", hidden: "" });
    box.appendChild(diffBox);
    var picked = null;
    function pick(i) {
      if (picked === null || picked === i) {
        picked = i;
        diffBox.hidden = false;
        diffBox.textContent = "";
        diffBox.appendChild(el("p", { cls: "muted", text: "diff: " + B.taskName(tasks[i]) + " chosen; choose another cell" }));
        return;
      }
      var titles = [B.taskName(tasks[picked]), B.taskName(tasks[i])], first = picked;
      picked = null;
      function show(a, b) { benchDiff.tasks(a, b, titles, diffBox); diffBox.scrollIntoView(); }
      if (!whole) return show(tasks[first], tasks[i]);
      Promise.all([whole(first), whole(i)]).then(function (both) { show(both[0], both[1]); }, function (err) {
        diffBox.textContent = "";
        diffBox.appendChild(el("p", { cls: "error-text", text: "diff: " + String(err && err.message ? err.message : err) }));
      });
    }

    function matches(t) {
      if (state.status && t.status !== state.status) return false;
      if (state.evaluator && !(t.evaluators || []).some(function (e) { return e.name === state.evaluator && (e.error || !e.passed); })) return false;
      if (state.meta && !metadataMatch(t, state.meta)) return false;
      if (state.text) {
        if (t._mtext === undefined) t._mtext = [t.id, t.response, t.error, B.why(t)].join("\n").toLowerCase();
        if (t._mtext.indexOf(state.text) < 0) return false;
      }
      return true;
    }
    function apply() {
      var any = state.status || state.evaluator || state.meta || state.text;
      state.shown = m.rows.filter(function (row) {
        if (state.disagree && !disagrees(row, tasks)) return false;
        return !any || row.cells.some(function (i) { return i !== undefined && matches(tasks[i]); });
      });
      state.page = 0;
      draw();
    }
    function draw() {
      body.textContent = "";
      var pages = Math.max(1, Math.ceil(state.shown.length / PAGE)), start = state.page * PAGE;
      state.shown.slice(start, start + PAGE).forEach(function (row) {
        var tr = el("tr", {}, el("th", { cls: "row-name", text: row.name }));
        m.columns.forEach(function (c, k) {
          var i = row.cells[k];
          tr.appendChild(i === undefined ? el("td", { cls: "cell cell-none muted", text: "not run" }) : cell(tasks[i], i, open, pick));
        });
        body.appendChild(tr);
      });
      count.textContent = state.shown.length + " of " + m.rows.length + " tasks × " + m.columns.length + " columns";
      page.textContent = "page " + (state.page + 1) + " of " + pages;
      prev.disabled = state.page === 0;
      next.disabled = state.page >= pages - 1;
    }
    status.addEventListener("change", function () { state.status = status.value; apply(); });
    evaluator.addEventListener("change", function () { state.evaluator = evaluator.value; apply(); });
    meta.addEventListener("input", function () { state.meta = meta.value.trim(); apply(); });
    text.addEventListener("input", function () { state.text = text.value.toLowerCase(); apply(); });
    disagree.addEventListener("change", function () { state.disagree = disagree.checked; apply(); });
    form.addEventListener("submit", function (e) { e.preventDefault(); });
    prev.addEventListener("click", function () { state.page -= 1; draw(); });
    next.addEventListener("click", function () { state.page += 1; draw(); });
    draw();
    return m;
  }

  return { render: render, build: build, wilson: wilson };
})();
