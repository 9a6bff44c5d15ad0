/* Ceiling site: the run index (runs.html). The runs arrive as one JSON table; the filters, the sort and
   the drawing happen here, so 10,000 runs filter in the browser without a page per filter. Only the first
   500 matches are drawn ("show more" adds 500): drawing every row of 10,000 is what would be slow. */
(function () {
  "use strict";
  var source = document.getElementById("run-data");
  var form = document.getElementById("run-filters");
  if (!source || !form) return;
  var data = JSON.parse(source.textContent);
  var C = {};
  data.columns.forEach(function (name, i) { C[name] = i; });
  var rows = data.rows, matching = rows, shown = 0, PAGE = 500, sortColumn = null, ascending = true;
  var body = document.querySelector("#run-index tbody"), count = document.getElementById("run-count");
  var more = document.getElementById("run-more");
  var EXACT = ["problem", "hw", "harness", "model", "status", "verdict", "kind"];
  var SORT_COLUMNS = ["run_id", "created", "hw", "problem", "system", "status", "score", "verdict", "ranked",
                      "tokens", "cost_usd", "agent_s"];

  function esc(text) {
    return String(text).replace(/[&<>"]/g, function (c) { return {"&": "&amp;", "<": "&lt;", ">": "&gt;", "\"": "&quot;"}[c]; });
  }
  function num(value, digits) { return value === null ? "—" : Number(value).toFixed(digits); }
  function chosen() {
    var f = {};
    Array.prototype.forEach.call(form.elements, function (el) { if (el.name && el.value) f[el.name] = el.value; });
    return f;
  }
  function matches(f, q) {
    return function (r) {
      for (var i = 0; i < EXACT.length; i++) {
        var key = EXACT[i];
        if (f[key] && r[C[key]] !== f[key]) return false;
      }
      if (f.ranked === "ranked" && r[C.ranked] !== "ranked") return false;
      if (f.ranked === "not" && r[C.ranked] === "ranked") return false;
      return !q || r[C.run_id].toLowerCase().indexOf(q) >= 0;
    };
  }
  function rowHtml(r) {
    var ranked = r[C.ranked] === "ranked" ? "<span class=\"status-passed\">ranked</span>" : "<span class=\"small\">" + esc(r[C.ranked]) + "</span>";
    var status = esc(r[C.status]) + (r[C.failure] ? " <span class=\"fail-class small\">(" + esc(r[C.failure]) + ")</span>" : "");
    return "<tr><td><a href=\"run/" + esc(r[C.run_id]) + ".html\">" + esc(r[C.run_id]) + "</a></td><td>" + esc(r[C.created]) +
      "</td><td>" + esc(r[C.hw]) + "</td><td><a href=\"problem/" + esc(r[C.problem]) + ".html\">" + esc(r[C.problem]) +
      "</a></td><td><a href=\"agent/" + esc(r[C.slug]) + ".html\">" + esc(r[C.system]) + "</a></td><td class=\"status-" +
      esc(r[C.status]) + "\">" + status + "</td><td class=\"num\">" + num(r[C.score], 3) + "</td><td>" + esc(r[C.verdict]) +
      "</td><td>" + ranked + "</td><td class=\"num\">" + (r[C.tokens] === null ? "—" : Number(r[C.tokens]).toLocaleString("en")) +
      "</td><td class=\"num\">" + num(r[C.cost_usd], 2) + "</td><td class=\"num\">" + num(r[C.agent_s], 0) + "</td></tr>";
  }
  function draw() {
    var html = [], end = Math.min(shown, matching.length);
    for (var i = 0; i < end; i++) html.push(rowHtml(matching[i]));
    body.innerHTML = html.join("");
    count.textContent = matching.length.toLocaleString("en") + " of " + rows.length.toLocaleString("en") + " runs" +
      (end < matching.length ? " (the first " + end.toLocaleString("en") + " shown)" : "");
    more.hidden = end >= matching.length;
  }
  function order() {
    if (sortColumn === null) return;
    var index = C[sortColumn], sign = ascending ? 1 : -1;
    matching = matching.slice().sort(function (a, b) {
      var x = a[index], y = b[index];
      if (x === y) return 0;
      if (x === null || x === "") return 1;  /* missing values stay at the bottom */
      if (y === null || y === "") return -1;
      return (x < y ? -1 : 1) * sign;
    });
  }
  function apply() {
    var f = chosen();
    matching = rows.filter(matches(f, (f.q || "").toLowerCase()));
    order();
    shown = PAGE;
    draw();
    var hash = Object.keys(f).map(function (k) { return encodeURIComponent(k) + "=" + encodeURIComponent(f[k]); }).join("&");
    if (window.history && window.history.replaceState) window.history.replaceState(null, "", hash ? "#" + hash : window.location.pathname);
  }
  function fromHash() {
    window.location.hash.replace(/^#/, "").split("&").forEach(function (pair) {
      var parts = pair.split("="), el = form.elements[decodeURIComponent(parts[0] || "")];
      if (el && parts.length === 2) el.value = decodeURIComponent(parts[1]);
    });
  }
  form.addEventListener("input", apply);
  form.addEventListener("change", apply);
  form.addEventListener("submit", function (e) { e.preventDefault(); });
  more.addEventListener("click", function () { shown += PAGE; draw(); });
  Array.prototype.forEach.call(document.querySelectorAll("#run-index thead th"), function (th, i) {
    th.tabIndex = 0;
    function sortBy() {
      var column = SORT_COLUMNS[i];
      ascending = sortColumn === column ? !ascending : th.getAttribute("data-sort") !== "num";
      sortColumn = column;
      Array.prototype.forEach.call(th.parentNode.children, function (h) { h.removeAttribute("aria-sort"); });
      th.setAttribute("aria-sort", ascending ? "ascending" : "descending");
      order();
      shown = PAGE;
      draw();
    }
    th.addEventListener("click", sortBy);
    th.addEventListener("keydown", function (e) { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); sortBy(); } });
  });
  window.ceilingRunIndex = {apply: apply};  /* the browser tests time a filter through it */
  fromHash();
  apply();
})();
