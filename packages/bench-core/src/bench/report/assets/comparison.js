// `bench compare A B -o FILE.html`: the verdict and a row per task; a row opens the diff of its two
// runs (benchDiff: word by word, field by field for JSON, turn by turn for conversations). Every
// string from the document is set as text, never parsed as HTML.
(function () {
  "use strict";
  var B = benchCommon;
  var el = B.el, $ = B.$, pct = B.pct, num = B.num;
  var doc = JSON.parse($("bench-data").textContent);
  var PAGE = 100;
  var state = { change: "", page: 0, shown: doc.rows };

  function percent(x) { return typeof x === "number" ? pct(x) : "-"; }
  function side(t) {
    return t ? [el("td", { cls: String(t.status), text: String(t.status) }), el("td", { text: num(t.score) })]
      : [el("td", { text: "-" }), el("td", { text: "-" })];
  }

  var c = doc.comparison, rate = c.pass_rate || {};
  document.title = "bench compare: " + doc.a + " vs " + doc.b;
  $("title").textContent = "bench compare";
  $("subtitle").textContent = "A " + doc.a + " against B " + doc.b;
  var box = $("content");
  box.appendChild(el("div", { id: "verdict", cls: "cards" }, B.card(c.verdict, "verdict"), B.card(String(c.matched), "tasks in both"),
    B.card(String(c.regressions.length), "regressed"), B.card(String(c.improvements.length), "improved"),
    B.card(percent(rate.a) + " → " + percent(rate.b), "pass rate A → B")));
  if (c.note) box.appendChild(el("p", { cls: "muted", text: c.note }));
  var changes = ["", "regressed", "improved", "same", "only in a", "only in b"];
  var filter = el("select", { id: "change-filter" }, changes.map(function (x) { return el("option", { value: x, text: x || "every task" }); }));
  box.appendChild(el("form", { id: "change-form", cls: "filters", autocomplete: "off" }, el("label", {}, "show ", filter)));
  var count = el("p", { id: "compare-count", role: "status" });
  var body = el("tbody", {});
  var head = el("tr", {}, ["task", "change", "A status", "A score", "B status", "B score"].map(function (h) { return el("th", { text: h }); }));
  var prev = el("button", { type: "button", id: "compare-prev", text: "previous" });
  var next = el("button", { type: "button", id: "compare-next", text: "next" });
  var page = el("span", { id: "compare-page" });
  var diff = el("section", { id: "compare-diff", "aria-label": "diff", hidden: "" });
  box.appendChild(count);
  box.appendChild(el("table", { id: "compare-rows" }, el("thead", {}, head), body));
  box.appendChild(el("nav", { cls: "pager" }, prev, " ", page, " ", next));
  box.appendChild(diff);

  function open(row) {
    Array.prototype.forEach.call(body.rows, function (tr) { tr.classList.toggle("selected", tr.getAttribute("data-key") === row.key); });
    var titles = ["A " + row.key, "B " + row.key];
    if (row.a && row.b) benchDiff.tasks(row.a, row.b, titles, diff);
    else {
      diff.hidden = false;
      diff.textContent = "";
      diff.appendChild(el("h3", { text: "Diff: " + titles[0] + " → " + titles[1] }));
      diff.appendChild(el("p", { text: row.key + " ran " + (row.a ? "only in A" : "only in B") + ": nothing to compare" }));
    }
    diff.scrollIntoView();
  }
  function draw() {
    body.textContent = "";
    var pages = Math.max(1, Math.ceil(state.shown.length / PAGE)), start = state.page * PAGE;
    state.shown.slice(start, start + PAGE).forEach(function (row) {
      var tr = el("tr", { "data-key": row.key }, el("td", { text: row.key }), el("td", { cls: row.change, text: row.change }), side(row.a), side(row.b));
      tr.tabIndex = 0;
      tr.addEventListener("click", function () { open(row); });
      tr.addEventListener("keydown", function (e) { if (e.key === "Enter") open(row); });
      body.appendChild(tr);
    });
    count.textContent = state.shown.length + " of " + doc.rows.length + " tasks shown; click a task for its diff";
    page.textContent = "page " + (state.page + 1) + " of " + pages;
    prev.disabled = state.page === 0;
    next.disabled = state.page >= pages - 1;
  }
  filter.addEventListener("change", function () {
    state.change = filter.value;
    state.shown = doc.rows.filter(function (r) { return !state.change || r.change === state.change; });
    state.page = 0;
    draw();
  });
  $("change-form").addEventListener("submit", function (e) { e.preventDefault(); });
  prev.addEventListener("click", function () { state.page -= 1; draw(); });
  next.addEventListener("click", function () { state.page += 1; draw(); });
  draw();
})();
