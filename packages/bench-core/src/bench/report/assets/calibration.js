// `bench calibrate -o FILE.html`: per judge, its agreement with the humans and where they differ.
// Every string from the document is set as text, never parsed as HTML (labels' notes and the
// judges' reasons are untrusted).
(function () {
  "use strict";
  var B = benchCommon;
  var el = B.el, $ = B.$, num = B.num;
  var doc = JSON.parse($("bench-data").textContent);

  function interval(block) {
    return num(block.value) + " [" + num(block.low) + ", " + num(block.high) + "] (" + block.method + ")";
  }
  function verdict(passed) { return el("td", { cls: passed ? "passed" : "failed", text: passed ? "pass" : "fail" }); }

  // Kappa from -1 to 1 as a bar, the bar's mark where min_kappa is when the suite sets one.
  function agreementBar(kappa) {
    var width = Math.max(0, Math.min(1, (kappa.value + 1) / 2));
    return el("div", { cls: "bar", title: "kappa from -1 to 1" }, el("div", { cls: "fill", style: "width: " + (100 * width).toFixed(1) + "%" }));
  }

  function renderJudge(s, box) {
    var section = el("section", { cls: "judge", "data-judge": s.judge });
    section.appendChild(el("h2", { text: "judge " + s.judge }));
    section.appendChild(el("p", { cls: "muted", text: s.labelled + " labelled tasks" + (s.kappa ? "" : ": no labelled task judged") }));
    var g = s.graded || {};
    var rows = [["kappa", s.kappa], ["precision of pass", s.pass_precision], ["recall of pass", s.pass_recall],
      ["spearman", s.spearman], ["best score threshold", s.threshold],
      ["weighted kappa, linear", g.kappa_linear], ["weighted kappa, quadratic", g.kappa_quadratic],
      ["Krippendorff's alpha, ordinal", g.alpha_ordinal], ["Krippendorff's alpha, interval", g.alpha_interval]];
    var figures = el("table", { cls: "figures" });
    rows.forEach(function (r) {
      if (r[1]) figures.appendChild(el("tr", {}, el("th", { text: r[0] }), el("td", { text: interval(r[1]) })));
    });
    if (typeof s.inter_rater_alpha === "number") {
      figures.appendChild(el("tr", {}, el("th", { text: "raters' own agreement (Krippendorff's alpha, the ceiling)" }),
        el("td", { text: num(s.inter_rater_alpha) })));
    }
    if (s.kappa) section.appendChild(agreementBar(s.kappa));
    section.appendChild(figures);
    if (s.graded) {
      // As the console shows it: three significant digits, and a long scale by its ends.
      var levels = s.graded.scale.map(function (x) { return String(Number(x.toPrecision(3))); });
      var scale = levels.length <= 11 ? levels.join(", ") : levels.length + " levels, " + levels[0] + " to " + levels[levels.length - 1];
      section.appendChild(el("p", { cls: "muted scale", text: "weighted kappa and alpha: judge against humans on the humans' scale (" +
        scale + "), " + s.graded.tasks + " tasks" }));
    }
    if (s.confusion) {
      var c = s.confusion;
      section.appendChild(el("h3", { text: "Confusion matrix (rows: humans, columns: judge)" }));
      section.appendChild(el("table", { cls: "confusion" },
        el("tr", {}, el("th", { text: "" }), el("th", { text: "judge pass" }), el("th", { text: "judge fail" })),
        el("tr", {}, el("th", { text: "human pass" }), el("td", { text: String(c.both_pass) }), el("td", { text: String(c.human_only_pass) })),
        el("tr", {}, el("th", { text: "human fail" }), el("td", { text: String(c.judge_only_pass) }), el("td", { text: String(c.both_fail) }))));
    }
    var disagreements = s.disagreements || [];
    section.appendChild(el("h3", { text: "Disagreements (" + disagreements.length + ")" }));
    if (disagreements.length) {
      var table = el("table", { cls: "disagreements" }, el("tr", {}, ["task", "human", "judge", "human's note", "judge's reason"].map(function (h) { return el("th", { text: h }); })));
      disagreements.forEach(function (d) {
        table.appendChild(el("tr", {}, el("td", { text: String(d.task) }), verdict(d.human), verdict(d.judge),
          el("td", { cls: "note", text: d.human_note || "" }), el("td", { cls: "reason", text: d.judge_reason || "" })));
      });
      section.appendChild(table);
    }
    var errors = Object.keys(s.errors || {});
    if (errors.length) {
      section.appendChild(el("h3", { text: "Errors (" + errors.length + ")" }));
      var list = el("table", { cls: "errors" });
      errors.forEach(function (task) { list.appendChild(el("tr", {}, el("td", { text: task }), el("td", { cls: "error-text", text: String(s.errors[task]) }))); });
      section.appendChild(list);
    }
    box.appendChild(section);
  }

  document.title = "bench calibrate: " + doc.suite;
  $("title").textContent = "bench calibrate: " + doc.suite;
  $("subtitle").textContent = "judges against the human labels in " + doc.labels;
  var box = $("content");
  (doc.judges || []).forEach(function (s) { renderJudge(s, box); });
})();
