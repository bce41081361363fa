// bench view's charts: a run's and a suite's, drawn by the server as SVG and shown as images
// (their description is the alternative text). Every string from a run is set as text.
var benchCharts = (function () {
  "use strict";
  var B = benchCommon;
  var el = B.el, $ = B.$, pct = B.pct;

  function getJSON(url) {
    return fetch(url, { headers: { Accept: "application/json" } }).then(function (r) {
      return r.json().then(function (body) {
        if (!r.ok) throw new Error(body.error || r.statusText);
        return body;
      });
    });
  }
  function figure(src, title, description, kind) {
    return el("figure", { cls: "chart", "data-chart": kind },
      el("img", { src: src, alt: description || title }), el("figcaption", { text: title }));
  }
  // A run's charts into #charts (hidden when the run has none yet).
  function run(runId, problem) {
    return getJSON("/api/runs/" + encodeURIComponent(runId) + "/charts").then(function (charts) {
      var box = $("charts");
      box.textContent = "";
      if (!charts.length) { box.hidden = true; return; }
      box.appendChild(el("h2", { text: "Charts" }));
      box.appendChild(el("div", { cls: "charts" }, charts.map(function (c) {
        return figure(c.url, c.title, c.description, c.kind);
      })));
      box.hidden = false;
    }).catch(problem);
  }
  // The suite page: its pass rate over its runs, then one row a run.
  function suite(name, problem) {
    $("suite").hidden = false;
    $("title").textContent = "bench: suite " + name;
    return getJSON("/api/suites/" + encodeURIComponent(name)).then(function (data) {
      $("subtitle").textContent = data.runs.length + " runs with counted tasks, oldest first";
      if (data.runs.length) {
        $("suite-chart").appendChild(figure(data.chart, "Pass rate of suite " + name + " over its runs", data.description, "trend"));
      }
      var body = $("suite-table").tBodies[0];
      data.runs.forEach(function (r) {
        var rate = r.pass_rate;
        body.appendChild(el("tr", {},
          el("td", {}, el("a", { href: "/run/" + encodeURIComponent(r.run_id), text: r.run_id })),
          el("td", { text: String(r.started_at) }),
          el("td", { text: pct(rate.value) + " [" + pct(rate.low) + ", " + pct(rate.high) + "]" }),
          el("td", { text: r.passed + "/" + r.runs }),
          el("td", { text: typeof r.cost_usd === "number" ? "$" + r.cost_usd.toFixed(4) : "-" })));
      });
    }).catch(problem);
  }
  // Two runs' (or two targets') pass rates side by side, above the comparison's rows.
  function compare(a, b) {
    var url = "/charts/compare.svg?a=" + encodeURIComponent(a) + "&b=" + encodeURIComponent(b);
    $("compare-charts").appendChild(figure(url, "Pass rate of A (" + a + ") and B (" + b + ") per prompt and target", "", "compare"));
  }
  return { run: run, suite: suite, compare: compare };
})();
