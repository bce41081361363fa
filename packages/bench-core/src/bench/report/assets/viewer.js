// bench view: the runs list, one run (a page of tasks at a time, live while the run is in
// progress) and two runs or two targets compared. Data comes as JSON from /api/; every string
// from a run is set as text (benchCommon.el), never parsed as HTML.
(function () {
  "use strict";
  var B = benchCommon;
  var el = B.el, $ = B.$, pct = B.pct, num = B.num;
  var POLL_MS = 1000;
  var seq = 0;

  function getJSON(url) {
    return fetch(url, { headers: { Accept: "application/json" } }).then(function (r) {
      return r.json().then(function (body) {
        if (!r.ok) throw new Error(body.error || r.statusText);
        return body;
      });
    });
  }
  function problem(err) {
    $("problem").hidden = false;
    $("problem").textContent = String(err && err.message ? err.message : err);
  }
  function query(params) {
    return Object.keys(params).filter(function (k) { return params[k] !== "" && params[k] !== undefined; })
      .map(function (k) { return encodeURIComponent(k) + "=" + encodeURIComponent(params[k]); }).join("&");
  }
  function percent(rate) { return typeof rate === "number" ? pct(rate) : "-"; }
  function cost(x) { return typeof x === "number" ? "$" + x.toFixed(4) : "-"; }
  function text(x) { return x === null || x === undefined ? "" : String(x); }

  // -- the runs ---------------------------------------------------------------------------------
  function showRuns() {
    $("runs").hidden = false;
    getJSON("/api/runs").then(function (data) {
      $("subtitle").textContent = data.runs.length + " runs in " + data.runs_dir;
      var body = $("runs-table").tBodies[0];
      data.runs.forEach(function (r) {
        var link = el("a", { href: "/run/" + encodeURIComponent(r.run_id), text: r.run_id });
        var suite = r.suite === null || r.suite === undefined ? el("td") : el("td", {}, el("a", { href: "/suite/" + encodeURIComponent(r.suite), text: text(r.suite) }));
        var tr = el("tr", {}, el("td", {}, link), suite, el("td", { text: text(r.started_at) }),
          el("td", { cls: text(r.status), text: r.error ? text(r.status) + " (" + r.error + ")" : text(r.status) }), el("td", { text: text(r.tasks) }),
          el("td", { text: percent(r.pass_rate) }), el("td", { text: cost(r.cost_usd) }));
        tr.addEventListener("click", function (e) { if (e.target.tagName !== "A") location.href = link.href; });
        body.appendChild(tr);
        $("compare-a").appendChild(el("option", { value: r.run_id, text: r.run_id + " " + text(r.suite) }));
        $("compare-b").appendChild(el("option", { value: r.run_id, text: r.run_id + " " + text(r.suite) }));
      });
      if (data.runs.length > 1) $("compare-a").selectedIndex = 1; // the older run is the baseline
      $("compare-form").hidden = data.runs.length < 2;
      $("compare-form").addEventListener("submit", function (e) {
        e.preventDefault();
        location.href = "/compare?" + query({ a: $("compare-a").value, b: $("compare-b").value });
      });
    }).catch(problem);
  }

  // -- one run ----------------------------------------------------------------------------------
  var state = { status: "", evaluator: "", target: "", text: "", sort: "", page: 1 };
  var runId = "";
  var lastSize = -1;
  var filled = false;

  function runURL() {
    return "/api/runs/" + encodeURIComponent(runId) + "?" + query(state);
  }
  function loadRun() {
    var mine = ++seq;
    return getJSON(runURL()).then(function (data) { if (mine === seq) renderRun(data); }).catch(problem);
  }
  function renderRun(data) {
    var run = data.run;
    lastSize = data.size;
    document.title = "bench view: " + text(run.suite);
    $("title").textContent = "bench: " + text(run.suite);
    $("subtitle").textContent = "run " + run.run_id + (run.started_at ? ", started " + run.started_at : "") +
      (typeof run.duration_s === "number" ? ", " + run.duration_s + " s" : "") + ", " + text(run.status) +
      (run.stopped ? "; stopped: " + run.stopped : "");
    var s = run.summary;
    var done = (s.passed || 0) + (s.failed || 0) + (s.errors || 0);
    var cards = el("div", { cls: "cards" }, B.card(String(s.total), "tasks"), B.card(String(s.passed), "passed"),
      B.card(String(s.failed), "failed"), B.card(String(s.errors), "errors"),
      B.card(done ? pct(s.passed / done) : "-", "pass rate"));
    if (s.interrupted) cards.appendChild(B.card(String(s.interrupted), "interrupted"));
    if (s.waiting) cards.appendChild(B.card(String(s.waiting), "waiting for a person"));
    if (run.llm) cards.appendChild(B.card(cost(run.llm.cost_usd), "LLM cost"));
    $("summary").textContent = "";
    $("summary").appendChild(cards);
    var live = run.status === "running";
    $("live").hidden = !live;
    if (live) $("live").textContent = "in progress: " + s.total + (run.planned ? " of " + run.planned : "") + " tasks done; updating";
    renderTargets(data);
    if (!live && !matrixLoaded) loadMatrix();
    if (!filled) fillFilters(data);
    renderRows(data);
    if (live) setTimeout(poll, POLL_MS);
  }
  // The matrix of a run of several prompts or targets, once the run is over: its cells come
  // shortened, and a cell is fetched whole to open it or diff it.
  var matrixLoaded = false;
  function loadMatrix() {
    matrixLoaded = true;
    getJSON("/api/runs/" + encodeURIComponent(runId) + "/matrix").then(function (data) {
      var cells = data.cells;
      if (!cells.length) return;
      $("matrix").textContent = "";
      benchMatrix.render(cells, $("matrix"), function (i) { showTask(cells[i].key); }, function (i) {
        return getJSON("/api/runs/" + encodeURIComponent(runId) + "/tasks/" + encodeURIComponent(cells[i].key));
      });
    }).catch(problem);
  }
  function poll() {
    var mine = seq;
    getJSON(runURL()).then(function (data) {
      if (mine !== seq) return; // a newer request (a filter changed) took over
      if (data.run.status !== "running") benchCharts.run(runId, problem); // drawn again, whole
      if (data.size !== lastSize || data.run.status !== "running") renderRun(data);
      else setTimeout(poll, POLL_MS);
    }).catch(problem);
  }
  function renderTargets(data) {
    var box = $("targets");
    box.textContent = "";
    box.hidden = true;
    if (data.target_statistics) B.renderTargetStatistics(data.target_statistics);
    if (data.targets.length > 1) {
      box.hidden = false;
      var links = el("p", { id: "target-compare" }, "compare targets: ");
      for (var i = 0; i < data.targets.length; i++) {
        for (var j = i + 1; j < data.targets.length; j++) {
          var a = runId + ":" + data.targets[i], b = runId + ":" + data.targets[j];
          links.appendChild(el("a", { href: "/compare?" + query({ a: a, b: b }), text: data.targets[i] + " vs " + data.targets[j] }));
          links.appendChild(document.createTextNode(" "));
        }
      }
      box.appendChild(links);
    }
  }
  function fillFilters(data) {
    filled = true;
    data.evaluators.forEach(function (n) { $("evaluator-filter").appendChild(el("option", { value: n, text: "did not pass: " + n })); });
    if (data.targets.length > 1) {
      $("target-filter-label").hidden = false;
      data.targets.forEach(function (n) { $("target-filter").appendChild(el("option", { value: n, text: n })); });
    }
  }
  function renderRows(data) {
    var body = $("rows").tBodies[0];
    body.textContent = "";
    data.tasks.forEach(function (t) {
      var tr = el("tr", { "data-key": t.key },
        el("td", { text: B.taskName(t) }), el("td", { text: B.targetName(t) }),
        el("td", { cls: text(t.status), text: text(t.status) }), el("td", { text: num(t.score) }),
        el("td", { cls: "response", text: text(t.response) }), el("td", { cls: "why", text: text(t.why) }));
      tr.tabIndex = 0;
      tr.addEventListener("click", function () { showTask(t.key); });
      tr.addEventListener("keydown", function (e) { if (e.key === "Enter") showTask(t.key); });
      body.appendChild(tr);
    });
    var start = (data.page - 1) * data.page_size;
    var shown = data.matched ? (start + 1) + "-" + (start + data.tasks.length) : "0";
    $("count").textContent = data.matched + " of " + data.run.summary.total + " tasks shown (rows " + shown + ")";
    $("page").textContent = "page " + data.page + " of " + data.pages;
    state.page = data.page;
    $("prev").disabled = data.page <= 1;
    $("next").disabled = data.page >= data.pages;
  }
  function showTask(key) {
    getJSON("/api/runs/" + encodeURIComponent(runId) + "/tasks/" + encodeURIComponent(key)).then(function (t) {
      Array.prototype.forEach.call($("rows").tBodies[0].rows, function (tr) { tr.classList.toggle("selected", tr.getAttribute("data-key") === key); });
      B.renderDetail(t, $("detail"));
      if (token) renderLabel(t);
      if (answerToken && t.status === "waiting") renderAnswer(t, key);
      history.replaceState(null, "", "#task=" + encodeURIComponent(key));
      $("detail").scrollIntoView();
    }).catch(problem);
  }
  // -- labels (bench view --label): the page's token goes back in a header with every write ---------
  var tokenMeta = document.querySelector('meta[name="bench-label-token"]');
  var token = tokenMeta ? tokenMeta.getAttribute("content") : "";
  var labelling = { rater: "", file: "", labels: {}, task: null, saved: "" };

  function verdictText(label) {
    if (!label) return "none yet";
    var parts = [];
    if (label.passed !== undefined) parts.push(label.passed ? "pass" : "fail");
    if (label.score !== undefined) parts.push("score " + num(label.score));
    if (label.note) parts.push("note: " + label.note);
    return parts.join(", ");
  }
  function renderLabel(t) {
    labelling.task = t.repeat ? null : String(t.id);
    var box = el("section", { id: "label-panel", "aria-label": "label" });
    box.appendChild(el("h3", { text: "Your label (" + labelling.rater + ")" }));
    if (labelling.saved) box.appendChild(el("p", { id: "label-saved", cls: "muted", text: labelling.saved }));
    labelling.saved = "";
    if (!labelling.task) {
      box.appendChild(el("p", { cls: "muted", text: "a task is labelled on its first repeat" }));
      $("detail").insertBefore(box, $("detail").children[1] || null);
      return;
    }
    var current = labelling.labels[labelling.task];
    box.appendChild(el("p", { id: "label-current", text: "label: " + verdictText(current) }));
    var note = el("textarea", { id: "label-note", rows: "2", maxlength: "2000", placeholder: "a note saved with the verdict" });
    note.value = current && current.note ? current.note : "";
    var score = el("input", { id: "label-score", type: "number", min: "0", max: "1", step: "0.01", placeholder: "0 to 1" });
    function button(id, label, act) {
      var b = el("button", { id: id, type: "button", text: label });
      b.addEventListener("click", act);
      return b;
    }
    score.addEventListener("keydown", function (e) { if (e.key === "Enter") saveScore(); });
    box.appendChild(el("p", { cls: "label-keys" }, button("label-pass", "pass (p)", function () { saveLabel({ passed: true }); }), " ",
      button("label-fail", "fail (f)", function () { saveLabel({ passed: false }); }), " ",
      el("label", {}, "score ", score), " ", button("label-score-save", "save score", saveScore), " ",
      button("label-skip", "skip (s)", nextTask)));
    box.appendChild(el("p", {}, el("label", {}, "note (n) ", note)));
    box.appendChild(el("p", { cls: "muted", text: "keys: p pass, f fail, 0-9 score (digit / 9), s skip, n note; written to " + labelling.file }));
    box.appendChild(el("p", { id: "label-status", role: "status" }));
    $("detail").insertBefore(box, $("detail").children[1] || null);
  }
  function saveScore() {
    var value = $("label-score").value;
    if (value === "" || isNaN(Number(value))) { labelStatus("a score is a number from 0 to 1"); return; }
    saveLabel({ score: Number(value) });
  }
  function labelStatus(message) {
    var box = $("label-status");
    if (box) { box.textContent = message; box.className = "error-text"; }
  }
  function saveLabel(verdict) {
    var task = labelling.task;
    if (!task) return;
    var body = { task: task, note: $("label-note") ? $("label-note").value : "" };
    Object.keys(verdict).forEach(function (k) { body[k] = verdict[k]; });
    fetch("/api/runs/" + encodeURIComponent(runId) + "/labels", {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-Bench-Token": token, Accept: "application/json" },
      body: JSON.stringify(body)
    }).then(function (r) {
      return r.json().then(function (data) {
        if (!r.ok) throw new Error(data.error || r.statusText);
        labelling.labels[task] = data.label;
        labelling.saved = "saved " + task + ": " + verdictText(data.label);
        nextTask();
      });
    }).catch(function (err) { labelStatus(String(err && err.message ? err.message : err)); });
  }
  // -- a person's turn (a conversation waiting for one): sent with the page's token, as labels are -----
  var answerMeta = document.querySelector('meta[name="bench-answer-token"]');
  var answerToken = answerMeta ? answerMeta.getAttribute("content") : "";
  function renderAnswer(t, key) {
    var asked = (t.conversation && t.conversation.waiting) || {};
    var box = el("section", { id: "answer-panel", "aria-label": "your turn" });
    box.appendChild(el("h3", { text: "Your turn as the user (turn " + asked.turn + ")" }));
    if (asked.prompt) box.appendChild(el("p", { id: "answer-prompt", text: "you are asked: " + asked.prompt }));
    var message = el("textarea", { id: "answer-text", rows: "3", maxlength: "20000", placeholder: "your message" });
    var send = el("button", { id: "answer-send", type: "button", text: "send" });
    send.addEventListener("click", function () {
      fetch("/api/runs/" + encodeURIComponent(runId) + "/answers", {
        method: "POST",
        headers: { "Content-Type": "application/json", "X-Bench-Token": answerToken, Accept: "application/json" },
        body: JSON.stringify({ task: key, text: message.value })
      }).then(function (r) {
        return r.json().then(function (data) {
          if (!r.ok) throw new Error(data.error || r.statusText);
          $("answer-status").className = "muted";
          $("answer-status").textContent = "saved; the conversation goes on with: " + data.resume;
          send.disabled = true;
        });
      }).catch(function (err) {
        $("answer-status").className = "error-text";
        $("answer-status").textContent = String(err && err.message ? err.message : err);
      });
    });
    box.appendChild(el("p", {}, el("label", {}, "message ", message)));
    box.appendChild(el("p", {}, send));
    box.appendChild(el("p", { id: "answer-status", role: "status" }));
    $("detail").appendChild(box);
  }
  function nextTask() {
    var rows = Array.prototype.slice.call($("rows").tBodies[0].rows);
    var at = rows.findIndex(function (tr) { return tr.classList.contains("selected"); });
    var next = rows[at + 1];
    if (next) { showTask(next.getAttribute("data-key")); return; }
    var current = labelling.task && labelling.labels[labelling.task];
    if ($("label-current")) $("label-current").textContent = "label: " + verdictText(current) + " (the last task on this page)";
    if (labelling.saved && $("label-saved")) $("label-saved").textContent = labelling.saved;
    else if (labelling.saved && $("label-panel")) $("label-panel").insertBefore(el("p", { id: "label-saved", cls: "muted", text: labelling.saved }), $("label-current"));
    labelling.saved = "";
  }
  function labelKey(e) {
    if ($("detail").hidden || !labelling.task || e.ctrlKey || e.metaKey || e.altKey) return;
    var tag = e.target && e.target.tagName;
    if (tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT") {
      if (e.key === "Escape") e.target.blur();
      return;
    }
    var key = e.key.toLowerCase();
    if (key === "p" || key === "f") saveLabel({ passed: key === "p" });
    else if (/^[0-9]$/.test(key)) saveLabel({ score: Math.round(Number(key) / 9 * 10000) / 10000 });
    else if (key === "s") nextTask();
    else if (key === "n") $("label-note").focus();
    else return;
    e.preventDefault();
  }

  function showRun(id) {
    runId = id;
    $("run").hidden = false;
    var labelsRead = Promise.resolve();
    if (token) {
      document.addEventListener("keydown", labelKey);
      labelsRead = getJSON("/api/labels").then(function (data) {
        labelling.rater = data.rater;
        labelling.file = data.file;
        labelling.labels = data.labels;
      }).catch(problem);
    }
    var timer = null;
    function refilter(key, value) { state[key] = value; state.page = 1; loadRun(); }
    $("status-filter").addEventListener("change", function (e) { refilter("status", e.target.value); });
    $("evaluator-filter").addEventListener("change", function (e) { refilter("evaluator", e.target.value); });
    $("target-filter").addEventListener("change", function (e) { refilter("target", e.target.value); });
    $("sort").addEventListener("change", function (e) { refilter("sort", e.target.value); });
    $("text-filter").addEventListener("input", function (e) {
      clearTimeout(timer);
      timer = setTimeout(function () { refilter("text", e.target.value); }, 150);
    });
    $("filters").addEventListener("submit", function (e) { e.preventDefault(); });
    $("prev").addEventListener("click", function () { state.page -= 1; loadRun(); });
    $("next").addEventListener("click", function () { state.page += 1; loadRun(); });
    benchCharts.run(id, problem);
    Promise.all([loadRun(), labelsRead]).then(function () {
      var match = /^#task=(.+)$/.exec(location.hash);
      if (match) showTask(decodeURIComponent(match[1]));
    });
  }

  // -- two runs or two targets ------------------------------------------------------------------
  var cmp = { a: "", b: "", change: "", page: 1 };
  function loadCompare() {
    var mine = ++seq;
    getJSON("/api/compare?" + query(cmp)).then(function (data) { if (mine === seq) renderCompare(data); }).catch(problem);
  }
  function renderCompare(data) {
    var c = data.comparison;
    $("title").textContent = "bench: compare";
    $("subtitle").textContent = "A " + data.a + " against B " + data.b;
    var rate = c.pass_rate || {};
    var box = $("verdict");
    box.textContent = "";
    box.appendChild(el("div", { cls: "cards" }, B.card(c.verdict, "verdict"), B.card(String(c.matched), "tasks in both"),
      B.card(String(data.regressions), "regressed"), B.card(String(data.improvements), "improved"),
      B.card(percent(rate.a) + " → " + percent(rate.b), "pass rate A → B")));
    if (c.note) box.appendChild(el("p", { cls: "muted", text: c.note }));
    var body = $("compare-rows").tBodies[0];
    body.textContent = "";
    data.rows.forEach(function (row) {
      function side(t) {
        return t ? [el("td", { cls: text(t.status), text: text(t.status) }), el("td", { text: num(t.score) }), el("td", { text: text(t.response) })]
          : [el("td", { text: "-" }), el("td", { text: "-" }), el("td", { text: "" })];
      }
      var tr = el("tr", { "data-key": row.key }, el("td", { text: row.key }), el("td", { cls: row.change, text: row.change }), side(row.a), side(row.b));
      tr.tabIndex = 0;
      tr.addEventListener("click", function () { compareTask(row.key); });
      tr.addEventListener("keydown", function (e) { if (e.key === "Enter") compareTask(row.key); });
      body.appendChild(tr);
    });
    $("compare-count").textContent = data.matched + " tasks shown";
    $("compare-page").textContent = "page " + data.page + " of " + data.pages;
    cmp.page = data.page;
    $("compare-prev").disabled = data.page <= 1;
    $("compare-next").disabled = data.page >= data.pages;
  }
  // One task's two runs, diffed (benchDiff: words, JSON fields, or turns).
  function compareTask(key) {
    getJSON("/api/compare/task?" + query({ a: cmp.a, b: cmp.b, key: key })).then(function (data) {
      Array.prototype.forEach.call($("compare-rows").tBodies[0].rows, function (tr) { tr.classList.toggle("selected", tr.getAttribute("data-key") === key); });
      var box = $("compare-diff"), titles = ["A " + key, "B " + key];
      if (data.a && data.b) benchDiff.tasks(data.a, data.b, titles, box);
      else {
        box.hidden = false;
        box.textContent = "";
        box.appendChild(el("h3", { text: "Diff: " + titles[0] + " → " + titles[1] }));
        box.appendChild(el("p", { text: key + " ran " + (data.a ? "only in A" : "only in B") + ": nothing to compare" }));
      }
      box.scrollIntoView();
    }).catch(problem);
  }
  function showCompare() {
    var params = new URLSearchParams(location.search);
    cmp.a = params.get("a") || "";
    cmp.b = params.get("b") || "";
    $("compare").hidden = false;
    benchCharts.compare(cmp.a, cmp.b);
    $("change-filter").addEventListener("change", function (e) { cmp.change = e.target.value; cmp.page = 1; loadCompare(); });
    $("change-form").addEventListener("submit", function (e) { e.preventDefault(); });
    $("compare-prev").addEventListener("click", function () { cmp.page -= 1; loadCompare(); });
    $("compare-next").addEventListener("click", function () { cmp.page += 1; loadCompare(); });
    loadCompare();
  }

  var path = location.pathname;
  if (path.indexOf("/run/") === 0) showRun(decodeURIComponent(path.slice("/run/".length)));
  else if (path.indexOf("/suite/") === 0) benchCharts.suite(decodeURIComponent(path.slice("/suite/".length)), problem);
  else if (path === "/compare") showCompare();
  else showRuns();
})();
