// `bench compare RUN... --judge SPEC -o FILE.html`: the runs ranked by a judge that compares their
// responses. Every string from the document is set as text, never parsed as HTML.
(function () {
  "use strict";
  var B = benchCommon;
  var el = B.el, $ = B.$, pct = B.pct;
  var doc = JSON.parse($("bench-data").textContent);

  function row(cells, tag) { return el("tr", {}, cells.map(function (c) { return el(tag || "td", { text: c }); })); }

  document.title = "bench compare: " + doc.targets.join(" vs ");
  $("title").textContent = "bench compare: " + doc.targets.join(" vs ");
  $("subtitle").textContent = doc.tasks.length + " tasks judged by " + doc.judged_by;
  var box = $("content");
  box.appendChild(el("h2", { text: "Ranking" }));
  var standings = el("table", { id: "standings" },
    row(["rank", "run", "wins", "losses", "ties", "win rate [95% CI]", "Bradley-Terry strength", "borda"], "th"));
  doc.standings.forEach(function (s) {
    var r = s.win_rate;
    standings.appendChild(row([String(s.rank), s.name, String(s.wins), String(s.losses), String(s.ties),
      pct(r.value) + " [" + pct(r.low) + ", " + pct(r.high) + "] (" + r.method + ")", s.strength.toFixed(3), s.borda.toFixed(3)]));
  });
  box.appendChild(standings);
  (doc.warnings || []).forEach(function (w) { box.appendChild(el("p", { cls: "error", text: "warning: " + w })); });
  var skipped = Object.keys(doc.skipped || {});
  if (skipped.length) box.appendChild(el("p", { cls: "muted", text: "skipped (not answered by every run): " + skipped.sort().join(", ") }));
  box.appendChild(el("h2", { text: "Verdicts per task" }));
  var verdicts = el("table", { id: "verdicts" }, row(["task", "pair", "winner", "orders shown"], "th"));
  doc.tasks.forEach(function (t) {
    t.pairs.forEach(function (p, i) {
      verdicts.appendChild(row([i ? "" : t.task, p.a + " vs " + p.b, p.winner,
        i ? "" : t.orders.map(function (o) { return o.join(", "); }).join(" | ")]));
    });
  });
  box.appendChild(verdicts);
})();
