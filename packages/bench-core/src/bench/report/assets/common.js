// What bench's HTML report and `bench view` share: element building (every string from a run is
// set as text, never parsed as HTML), formatting, and one task shown whole.
var benchCommon = (function () {
  "use strict";
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
  // An evaluator's verdict in a word; a check that did not apply (a turn rightly never played) is
  // neither a pass nor a failure.
  function verdict(e) {
    if (e.error) return "error";
    if (e.details && e.details.not_applicable) return "not applicable";
    return e.passed ? "passed" : "failed";
  }
  function fallsShort(e) { var v = verdict(e); return v === "error" || v === "failed"; }
  function taskName(t) { return t.repeat ? t.id + " (run " + (t.repeat + 1) + ")" : t.id; }
  function targetName(t) {
    var target = t.target;
    if (target === undefined || target === null) return "";
    if (typeof target !== "object") return String(target);
    return String(target.label || target.name || target.model || target.type || JSON.stringify(target));
  }
  function why(t) {
    if (t.error) return "error: " + t.error;
    var parts = (t.evaluators || []).filter(function (e) { return fallsShort(e); })
      .map(function (e) { return e.name + ": " + (e.error ? "error: " + e.error : e.reason || ""); });
    if (parts.length) return parts.join("; ");
    return (t.evaluators || []).map(function (e) { return e.name + ": " + (e.reason || ""); }).join("; ");
  }
  function card(value, label) { return el("div", { cls: "card" }, el("b", { text: value }), el("span", { text: label })); }

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

  // One task whole: prompt next to response, vars, metadata, evaluators, scorecard, trajectory, change.
  function renderDetail(t, box) {
    box.textContent = "";
    box.hidden = false;
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
      var said = verdict(e);
      var details = e.details && Object.keys(e.details).length ? el("pre", { text: json(e.details) }) : "";
      evs.appendChild(el("tr", {}, el("td", { text: e.name + (e.type !== e.name ? " (" + e.type + ")" : "") }),
        el("td", { cls: said.replace(" ", "-"), text: said }), el("td", { text: num(e.score) }),
        el("td", { text: e.error ? e.error : e.reason || "" }), el("td", {}, details)));
    });
    section(box, "Evaluators", evs);
    if (t.conversation && typeof benchConversation !== "undefined") benchConversation.render(t, box);
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
  }

  return { el: el, $: $, pct: pct, num: num, json: json, interval: interval, taskName: taskName,
    targetName: targetName, why: why, verdict: verdict, fallsShort: fallsShort, card: card, renderDetail: renderDetail,
    renderTargetStatistics: renderTargetStatistics };
})();
