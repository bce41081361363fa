// Two outputs side by side with their differences highlighted: word by word for text, field by
// field for JSON, turn by turn for two conversations. Every string is set as text.
var benchDiff = (function () {
  "use strict";
  var el = benchCommon.el;
  var MAX_WORDS = 3000;

  // The words (and the spaces between them) of a and b, each marked same, deleted or inserted.
  function words(a, b) {
    var x = a.split(/(\s+)/), y = b.split(/(\s+)/);
    if (x.length > MAX_WORDS || y.length > MAX_WORDS) return null;
    var n = x.length, m = y.length, table = [];
    for (var i = 0; i <= n; i++) table.push(new Int32Array(m + 1));
    for (i = n - 1; i >= 0; i--) {
      for (var j = m - 1; j >= 0; j--) {
        table[i][j] = x[i] === y[j] ? table[i + 1][j + 1] + 1 : Math.max(table[i + 1][j], table[i][j + 1]);
      }
    }
    var left = [], right = [];
    i = 0; j = 0;
    while (i < n || j < m) {
      if (i < n && j < m && x[i] === y[j]) { left.push(["same", x[i]]); right.push(["same", y[j]]); i++; j++; }
      else if (j < m && (i === n || table[i][j + 1] >= table[i + 1][j])) { right.push(["ins", y[j]]); j++; }
      else { left.push(["del", x[i]]); i++; }
    }
    return [left, right];
  }

  // Every path where two JSON values differ: [path, a, b] (undefined: absent on that side).
  function fields(a, b, path, out) {
    var objects = a && b && typeof a === "object" && typeof b === "object" && Array.isArray(a) === Array.isArray(b);
    if (!objects) {
      if (JSON.stringify(a) !== JSON.stringify(b)) out.push([path || "(top)", a, b]);
      return out;
    }
    var keys = new Set(Object.keys(a).concat(Object.keys(b)));
    keys.forEach(function (k) { fields(a[k], b[k], path + (Array.isArray(a) ? "[" + k + "]" : (path ? "." : "") + k), out); });
    return out;
  }
  function parsed(text) {
    try { var v = JSON.parse(text); return v && typeof v === "object" ? v : undefined; } catch (e) { return undefined; }
  }
  function shown(v) { return v === undefined ? "(absent)" : JSON.stringify(v); }

  function side(parts) {
    return el("pre", { cls: "diff-side" }, parts.map(function (p) {
      return p[0] === "same" ? document.createTextNode(p[1]) : el("span", { cls: p[0] === "del" ? "diff-del" : "diff-ins", text: p[1] });
    }));
  }

  // Draws the diff of two texts into `box`, under `titles` (the two sides' names).
  function render(a, b, titles, box) {
    box.textContent = "";
    box.hidden = false;
    box.appendChild(el("h3", { text: "Diff: " + titles[0] + " → " + titles[1] }));
    var ja = parsed(a), jb = parsed(b);
    if (ja !== undefined && jb !== undefined) {
      var rows = fields(ja, jb, "", []);
      var table = el("table", { cls: "diff-fields" }, el("tr", {}, el("th", { text: "field" }), el("th", { text: titles[0] }), el("th", { text: titles[1] })));
      rows.forEach(function (r) { table.appendChild(el("tr", {}, el("td", { text: r[0] }), el("td", { cls: "diff-del", text: shown(r[1]) }), el("td", { cls: "diff-ins", text: shown(r[2]) }))); });
      box.appendChild(rows.length ? table : el("p", { text: "the two JSON values are equal" }));
      return;
    }
    var d = words(a, b);
    if (d === null) d = [[["del", a]], [["ins", b]]];  // too long to compare word by word
    box.appendChild(el("div", { cls: "pair" }, side(d[0]), side(d[1])));
  }

  // What a run answered: its response, or its error when it has none.
  function outputOf(t) { return t.response === null || t.response === undefined ? (t.error ? "error: " + t.error : "") : String(t.response); }

  // A turn's messages as text: "role: content", tool calls as "-> name(arguments)".
  function turnText(turn) {
    return turn.messages.map(function (m) {
      var content = m.content === null || m.content === undefined ? "" : typeof m.content === "string" ? m.content : JSON.stringify(m.content);
      var calls = (Array.isArray(m.tool_calls) ? m.tool_calls : []).map(function (c) {
        var f = (c && c.function) || {};
        return "-> " + f.name + "(" + (f.arguments || "") + ")";
      });
      return [String(m.role) + ": " + content].concat(calls).join("\n");
    }).join("\n");
  }

  // Two conversations turn by turn: each turn's messages diffed word by word, a turn one side
  // lacks shown as "(absent)".
  function turns(a, b, titles, box) {
    var cut = benchConversation.turns;
    var x = cut(a.conversation.messages), y = cut(b.conversation.messages);
    var byX = {}, byY = {}, numbers = new Set();
    x.forEach(function (t) { byX[t.number] = t; numbers.add(t.number); });
    y.forEach(function (t) { byY[t.number] = t; numbers.add(t.number); });
    box.appendChild(el("p", { cls: "muted", text: "turn by turn: " + x.length + " and " + y.length + " turns" }));
    Array.from(numbers).sort(function (p, q) { return p - q; }).forEach(function (n) {
      var ta = byX[n] ? turnText(byX[n]) : "(absent)", tb = byY[n] ? turnText(byY[n]) : "(absent)";
      var head = (n ? "turn " + n : "before the first turn") + (ta === tb ? " (same)" : "");
      var d = words(ta, tb) || [[["del", ta]], [["ins", tb]]];
      box.appendChild(el("div", { cls: "diff-turn" + (ta === tb ? "" : " diff-turn-changed"), "data-turn": String(n) },
        el("h4", { text: head }), el("div", { cls: "pair" }, side(d[0]), side(d[1]))));
    });
  }

  // Two runs' records compared: per turn when both are conversations, else their outputs.
  function tasks(a, b, titles, box) {
    var conversations = [a, b].every(function (t) { return t.conversation && Array.isArray(t.conversation.messages); });
    if (!conversations) return render(outputOf(a), outputOf(b), titles, box);
    box.textContent = "";
    box.hidden = false;
    box.appendChild(el("h3", { text: "Diff: " + titles[0] + " → " + titles[1] }));
    turns(a, b, titles, box);
  }

  return { render: render, tasks: tasks, outputOf: outputOf, words: words, fields: fields };
})();
