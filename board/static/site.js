/* Ceiling site: sortable tables and Plotly figures. No network, no inline handlers. */
(function () {
  "use strict";
  /* Phones: the navigation collapses behind a Menu button (CSS hides it only once this script runs). */
  document.documentElement.classList.add("js");
  var header = document.querySelector("header.top"), toggle = document.querySelector(".menu-toggle");
  if (header && toggle) {
    toggle.addEventListener("click", function () {
      var open = header.classList.toggle("open");
      toggle.setAttribute("aria-expanded", open ? "true" : "false");
    });
  }
  function cellValue(row, index, numeric) {
    var cell = row.children[index];
    var raw = cell ? (cell.getAttribute("data-value") !== null ? cell.getAttribute("data-value") : cell.textContent.trim()) : "";
    if (!numeric) return raw.toLowerCase();
    var n = parseFloat(raw);
    return isNaN(n) ? null : n;
  }
  function sortTable(table, index, th) {
    var numeric = th.getAttribute("data-sort") === "num";
    var current = th.getAttribute("aria-sort");
    var ascending = current ? current === "descending" : !numeric;  /* numbers first sort high to low */
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    rows.sort(function (a, b) {
      var x = cellValue(a, index, numeric), y = cellValue(b, index, numeric);
      if (x === y) return 0;
      if (x === null || x === "") return 1;   /* missing values stay at the bottom */
      if (y === null || y === "") return -1;
      return (x < y ? -1 : 1) * (ascending ? 1 : -1);
    });
    rows.forEach(function (r) { body.appendChild(r); });
    Array.prototype.forEach.call(table.querySelectorAll("th[data-sort]"), function (h) { h.removeAttribute("aria-sort"); });
    th.setAttribute("aria-sort", ascending ? "ascending" : "descending");
  }
  Array.prototype.forEach.call(document.querySelectorAll("table.sortable"), function (table) {
    var headers = table.tHead ? table.tHead.rows[table.tHead.rows.length - 1].cells : [];
    Array.prototype.forEach.call(headers, function (th, index) {
      if (!th.hasAttribute("data-sort")) return;
      th.tabIndex = 0;
      th.addEventListener("click", function () { sortTable(table, index, th); });
      th.addEventListener("keydown", function (e) { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); sortTable(table, index, th); } });
    });
  });
  if (window.Plotly) {
    Array.prototype.forEach.call(document.querySelectorAll("div.plot[data-figure]"), function (div) {
      var source = document.getElementById(div.getAttribute("data-figure"));
      if (!source) return;
      var figure = JSON.parse(source.textContent);
      window.Plotly.newPlot(div, figure.data, figure.layout, {displaylogo: false, responsive: true});
    });
  }
})();
