"""The page's one inline script (allowed by a CSP hash; no inline handlers anywhere): tabs,
'show all', filters by event type, search, expand/collapse, theme, anchor navigation, and the
lazy chunks of big pages (lazy.py): a chunk is rendered when its placeholder nears the screen,
and search reads the chunks not yet rendered as text, so it always covers every event."""

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

  // Lazy chunks: placeholders hold their estimated height until rendered.
  var openAll = null;  // the last expand/collapse-all choice, applied to chunks rendered later
  var query = "";
  var placeholders = {};
  function chunkData(k) { var el = document.getElementById("chunk-" + k); return el ? el.textContent : ""; }
  function renderChunk(ph) {
    if (!ph.parentNode) return;
    var k = ph.getAttribute("data-chunk");
    observer && observer.unobserve(ph);
    delete placeholders[k];
    var fragment = document.createRange().createContextualFragment(chunkData(k));
    var fresh = [].slice.call(fragment.children);
    // A chunk rendered above the screen must not push what the reader is looking at down: keep
    // the element after it where it was.
    var after = ph.nextElementSibling;
    var above = ph.getBoundingClientRect().bottom <= 0 && after;
    var before = above ? after.getBoundingClientRect().top : 0;
    ph.replaceWith(fragment);
    if (above) window.scrollBy(0, after.getBoundingClientRect().top - before);
    fresh.forEach(function (node) {
      if (openAll !== null) node.querySelectorAll("details").forEach(function (d) { d.open = openAll; });
      if (query) markMatches(node.matches(".ev") ? [node].concat([].slice.call(node.querySelectorAll(".ev"))) : node.querySelectorAll(".ev"));
    });
  }
  var observer = "IntersectionObserver" in window ? new IntersectionObserver(function (entries) {
    entries.forEach(function (entry) { if (entry.isIntersecting) renderChunk(entry.target); });
  }, { rootMargin: "1500px 0px" }) : null;
  timeline.querySelectorAll(".lazy").forEach(function (ph) {
    ph.style.height = ph.getAttribute("data-h") + "px";
    placeholders[ph.getAttribute("data-chunk")] = ph;
    if (observer) observer.observe(ph); else renderChunk(ph);
  });
  function renderChunkHolding(id) {  // the chunk whose HTML holds element `id`, rendered
    var needle = 'id="' + id + '"';
    for (var k in placeholders) {
      if (chunkData(k).indexOf(needle) !== -1) { renderChunk(placeholders[k]); return true; }
    }
    return false;
  }
  // Search text of a chunk not yet rendered: each event's own text (its head and body, up to its
  // subagents), tags removed and entities decoded, as the rendered event's would read.
  var chunkTexts = {};
  var ENTITIES = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: " " };
  function decode(text) {
    return text.replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z]+);/gi, function (whole, name) {
      if (name[0] === "#") return String.fromCodePoint(name[1] === "x" || name[1] === "X" ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10));
      return ENTITIES[name.toLowerCase()] || whole;
    });
  }
  function textsOf(k) {
    if (!chunkTexts[k]) {
      chunkTexts[k] = chunkData(k).split(/(?=<article |<details class="subagent")/).filter(function (piece) {
        return piece.indexOf("<article ") === 0;
      }).map(function (piece) { return decode(piece.replace(/<[^>]*>/g, "")).toLowerCase(); });
    }
    return chunkTexts[k];
  }

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
  function markMatches(events) {  // rendered events: match on their own text, open what hides them
    var hits = 0;
    [].forEach.call(events, function (ev) {
      if (ownText(ev).indexOf(query) === -1) return;
      hits++;
      ev.classList.add("match");
      for (var up = ev.parentElement; up && up !== timeline; up = up.parentElement) {
        if (up.classList.contains("ev")) up.classList.add("hasmatch");
        if (up.tagName === "DETAILS") up.open = true;
      }
    });
    return hits;
  }
  function runSearch() {
    query = searchBox.value.trim().toLowerCase();
    var events = timeline.querySelectorAll(".ev");
    events.forEach(function (ev) { ev.classList.remove("match", "nomatch", "hasmatch"); });
    for (var key in placeholders) placeholders[key].classList.remove("hasmatch");
    if (!query) { status.textContent = ""; timeline.classList.remove("searching"); return; }
    timeline.classList.add("searching");
    var hits = markMatches(events);
    for (var k in placeholders) {  // chunks not rendered yet: counted from their text
      var found = textsOf(k).filter(function (text) { return text.indexOf(query) !== -1; }).length;
      if (found) { hits += found; placeholders[k].classList.add("hasmatch"); }
    }
    status.textContent = hits + (hits === 1 ? " event matches" : " events match");
    showTab("timeline");
  }
  searchBox.addEventListener("input", function () { clearTimeout(timer); timer = setTimeout(runSearch, 150); });

  // Expand or collapse every reasoning block and subagent tree.
  function setAll(open) { openAll = open; timeline.querySelectorAll("details").forEach(function (d) { d.open = open; }); }
  document.getElementById("expand-all").addEventListener("click", function () { setAll(true); });
  document.getElementById("collapse-all").addEventListener("click", function () { setAll(false); });

  // Anchors: open whatever hides the target, then scroll to it.
  function follow() {
    var id = decodeURIComponent(location.hash.slice(1));
    if (!id) return;
    if (id.indexOf("tab-") === 0) { showTab(id.slice(4)); return; }
    var target = document.getElementById(id);
    if (!target && renderChunkHolding(id)) target = document.getElementById(id);
    if (!target) return;
    var panel = target.closest(".panel");
    if (panel) showTab(panel.id.slice(4));
    for (var up = target.parentElement; up; up = up.parentElement) { if (up.tagName === "DETAILS") up.open = true; }
    target.scrollIntoView({ block: "start" });
    // Chunks just above the target render as it comes into view; bring it back once they have.
    requestAnimationFrame(function () { requestAnimationFrame(function () { target.scrollIntoView({ block: "start" }); }); });
    target.classList.add("target");
  }
  window.addEventListener("hashchange", follow);
  follow();
})();
"""
