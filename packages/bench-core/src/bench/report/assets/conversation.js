// A conversation task's transcript as turns: who said what, tool calls, and the verdicts given on
// each turn (per-turn checks, `over: each_turn` rows, a check that points at one turn). Every string
// from the data is set as text, never as markup.
var benchConversation = (function () {
  "use strict";
  var B = benchCommon, el = B.el;

  function turnVerdicts(t) {
    var found = {};
    (t.evaluators || []).forEach(function (e) {
      var d = e.details || {};
      var rows = Array.isArray(d.turns) ? d.turns : typeof d.turn === "number" ? [Object.assign({}, e, { turn: d.turn })] : [];
      rows.forEach(function (r) {
        if (typeof r !== "object" || r === null) return;
        var verdict = r.error ? "error" : r.passed ? "passed" : "failed";
        (found[r.turn] = found[r.turn] || []).push({ name: e.name, verdict: verdict, why: r.error || r.reason || "" });
      });
    });
    return found;
  }

  function verdictList(rows) {
    return el("ul", { cls: "turn-verdicts" }, rows.map(function (v) {
      return el("li", { cls: v.verdict }, el("b", { text: v.name + ": " + v.verdict }), v.why ? " " + v.why : "");
    }));
  }

  function message(m) {
    var content = m.content === null || m.content === undefined ? "" : typeof m.content === "string" ? m.content : JSON.stringify(m.content);
    var box = el("div", { cls: "message " + String(m.role) }, el("span", { cls: "role", text: String(m.role) }));
    if (content) box.appendChild(el("pre", { text: content }));
    (Array.isArray(m.tool_calls) ? m.tool_calls : []).forEach(function (c) {
      var f = (c && c.function) || {};
      box.appendChild(el("code", { cls: "tool-call", text: "-> " + f.name + "(" + (f.arguments || "") + ")" }));
    });
    return box;
  }

  // The messages cut into turns: each user message opens one (messages before the first are turn 0).
  function turns(messages) {
    var out = [{ number: 0, messages: [] }];
    messages.forEach(function (m) {
      if (m && m.role === "user") out.push({ number: out.length, messages: [] });
      out[out.length - 1].messages.push(m || {});
    });
    return out.filter(function (turn) { return turn.messages.length; });
  }

  function render(t, box) {
    var c = t.conversation;
    if (!c || !Array.isArray(c.messages)) return;
    var by = {};
    (Array.isArray(c.turns) ? c.turns : []).forEach(function (r) { if (r) by[r.turn] = r.by; });
    var verdicts = turnVerdicts(t);
    var list = el("ol", { id: "transcript", cls: "transcript" });
    turns(c.messages).forEach(function (turn) {
      var rows = verdicts[turn.number] || [];
      var failed = rows.some(function (v) { return v.verdict !== "passed"; });
      var head = turn.number ? "turn " + turn.number + (by[turn.number] ? " (" + by[turn.number] + ")" : "") : "before the first turn";
      var item = el("li", { cls: "turn" + (failed ? " failed-turn" : ""), "data-turn": String(turn.number) }, el("h4", { text: head }));
      turn.messages.forEach(function (m) { item.appendChild(message(m)); });
      if (rows.length) item.appendChild(verdictList(rows));
      list.appendChild(item);
    });
    var sim = c.simulator;
    var title = "Conversation (" + (Array.isArray(c.turns) ? c.turns.length : 0) + " turns" +
      (sim && typeof sim.calls === "number" ? ", simulated user " + sim.calls + " calls, " + (sim.cached || 0) + " cached" : "") + ")";
    box.appendChild(el("h3", { text: title }));
    box.appendChild(list);
  }

  return { render: render, turns: turns, turnVerdicts: turnVerdicts };
})();
