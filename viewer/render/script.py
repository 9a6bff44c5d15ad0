"""The page's one inline script (allowed by a CSP hash; no inline handlers anywhere): tabs,
'show all', filters by event type, search, expand/collapse, theme, and anchor navigation."""

SCRIPT = r"""
(function () {
  "use strict";
  var root = document.documentElement;
  var timeline = document.getElementById("timeline");

  // Theme: the saved choice, else the system's.
  var saved = null;
  try { saved = localStorage.getItem("ceiling-viewer-theme"); } catch (e) {}
  var dark = saved ? saved === "dark" : window.matchMedia && matchMedia("(prefers-color-scheme: dark)").matches;
  root.setAttribute("data-theme", dark ? "dark" : "light");
  document.getElementById("theme").addEventListener("click", function () {
    var next = root.getAttribute("data-theme") === "dark" ? "light" : "dark";
    root.setAttribute("data-theme", next);
    try { localStorage.setItem("ceiling-viewer-theme", next); } catch (e) {}
  });

  // Tabs.
  function showTab(key) {
    var panel = document.getElementById("tab-" + key);
    if (!panel) return;
    document.querySelectorAll(".panel").forEach(function (p) { p.hidden = p !== panel; });
    document.querySelectorAll(".tab").forEach(function (t) {
      t.setAttribute("aria-selected", t.getAttribute("data-tab") === key ? "true" : "false");
    });
  }
  document.querySelectorAll(".tab").forEach(function (t) {
    t.addEventListener("click", function () {
      showTab(t.getAttribute("data-tab"));
      history.replaceState(null, "", "#tab-" + t.getAttribute("data-tab"));
    });
  });

  // Long text: the full version waits in a <template>.
  function expand(button) {
    var template = document.getElementById(button.getAttribute("data-template"));
    var box = button.parentNode;
    var previewBox = box.querySelector(".preview");
    if (!template || !previewBox) return;
    previewBox.replaceChildren(template.content.cloneNode(true));
    button.remove();
  }
  document.addEventListener("click", function (event) {
    var target = event.target;
    if (target instanceof Element && target.classList.contains("show-all")) expand(target);
  });

  // Filters by event type: one class on the timeline per hidden kind, so CSS does the work.
  document.querySelectorAll("input[data-kind]").forEach(function (box) {
    box.addEventListener("change", function () {
      timeline.classList.toggle("hide-" + box.getAttribute("data-kind"), !box.checked);
    });
  });

  // Search: an event matches on its own text (including folded text); its ancestors stay visible.
  var cache = new WeakMap();
  function ownText(ev) {
    var text = cache.get(ev);
    if (text === undefined) {
      text = "";
      ev.querySelectorAll(":scope > .ev-head, :scope > .ev-body").forEach(function (part) {
        text += " " + part.textContent;
        part.querySelectorAll("template").forEach(function (t) { text += " " + t.content.textContent; });
      });
      text = text.toLowerCase();
      cache.set(ev, text);
    }
    return text;
  }
  var searchBox = document.getElementById("search");
  var status = document.getElementById("search-status");
  var timer = null;
  function runSearch() {
    var query = searchBox.value.trim().toLowerCase();
    var events = timeline.querySelectorAll(".ev");
    var hits = 0;
    events.forEach(function (ev) { ev.classList.remove("match", "nomatch", "hasmatch"); });
    if (!query) { status.textContent = ""; timeline.classList.remove("searching"); return; }
    timeline.classList.add("searching");
    events.forEach(function (ev) {
      if (ownText(ev).indexOf(query) !== -1) {
        hits++;
        ev.classList.add("match");
        for (var up = ev.parentElement; up && up !== timeline; up = up.parentElement) {
          if (up.classList.contains("ev")) up.classList.add("hasmatch");
          if (up.tagName === "DETAILS") up.open = true;
        }
      }
    });
    status.textContent = hits + (hits === 1 ? " event matches" : " events match");
    showTab("timeline");
  }
  searchBox.addEventListener("input", function () { clearTimeout(timer); timer = setTimeout(runSearch, 150); });

  // Expand or collapse every reasoning block and subagent tree.
  function setAll(open) { timeline.querySelectorAll("details").forEach(function (d) { d.open = open; }); }
  document.getElementById("expand-all").addEventListener("click", function () { setAll(true); });
  document.getElementById("collapse-all").addEventListener("click", function () { setAll(false); });

  // Anchors: open whatever hides the target, then scroll to it.
  function follow() {
    var id = decodeURIComponent(location.hash.slice(1));
    if (!id) return;
    if (id.indexOf("tab-") === 0) { showTab(id.slice(4)); return; }
    var target = document.getElementById(id);
    if (!target) return;
    var panel = target.closest(".panel");
    if (panel) showTab(panel.id.slice(4));
    for (var up = target.parentElement; up; up = up.parentElement) { if (up.tagName === "DETAILS") up.open = true; }
    target.scrollIntoView({ block: "start" });
    target.classList.add("target");
  }
  window.addEventListener("hashchange", follow);
  follow();
})();
"""
