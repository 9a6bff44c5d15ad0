"""The page's stylesheet: light and dark themes through CSS variables, laid out for a laptop
screen. Events far off screen are skipped by the browser (`content-visibility: auto`)."""

CSS = r"""
:root { --bg:#fbfbfa; --fg:#1d1f21; --muted:#6a6f76; --card:#ffffff; --line:#dfe1e4; --accent:#2457c5;
  --user:#e8f0fe; --assistant:#ffffff; --reasoning:#f6f3fb; --tool:#f3f7f3; --system:#f4f4f2; --error:#fdecea;
  --raw:#fff7e0; --ins:#e6ffec; --del:#ffebe9; --code:#f6f8fa; }
:root[data-theme=dark] { --bg:#15171a; --fg:#e3e5e8; --muted:#9aa0a6; --card:#1d2024; --line:#33373d; --accent:#8ab4f8;
  --user:#1c2a40; --assistant:#1d2024; --reasoning:#262033; --tool:#1b261d; --system:#22252a; --error:#3a1f1f;
  --raw:#332c18; --ins:#12361f; --del:#3d1a1a; --code:#272822; }
* { box-sizing: border-box; }
body { margin:0; background:var(--bg); color:var(--fg); font:14px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; }
main { max-width:1280px; margin:0 auto; padding:16px 20px 80px; }
a { color:var(--accent); }
h1 { font-size:20px; margin:0 0 4px; word-break:break-all; }
h3 { font-size:15px; margin:16px 0 6px; word-break:break-all; }
.muted, .src { color:var(--muted); }
pre { margin:0; padding:8px 10px; background:var(--code); border-radius:4px; overflow:auto; max-height:none;
  white-space:pre-wrap; overflow-wrap:anywhere; font:12.5px/1.45 ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; }
.cards { display:grid; grid-template-columns:repeat(auto-fill, minmax(170px, 1fr)); gap:8px; margin:12px 0; }
.card { background:var(--card); border:1px solid var(--line); border-radius:6px; padding:8px 10px; min-width:0; }
.card .k { color:var(--muted); font-size:12px; }
.card .v { font-weight:600; overflow-wrap:anywhere; }
.banner { background:var(--error); border:1px solid #d93025; border-radius:6px; padding:8px 12px; margin:8px 0; }
.warn { background:var(--raw); border-radius:6px; padding:6px 12px; margin:4px 0; }
.toolbar { position:sticky; top:0; z-index:5; background:var(--bg); border-bottom:1px solid var(--line);
  padding:8px 0; display:flex; flex-wrap:wrap; gap:6px 14px; align-items:center; }
.tabs { display:flex; flex-wrap:wrap; gap:4px; }
.tab { background:var(--card); color:var(--fg); border:1px solid var(--line); border-radius:4px; padding:4px 10px; cursor:pointer; }
.tab[aria-selected=true] { background:var(--accent); color:var(--bg); border-color:var(--accent); }
button { font:inherit; }
.toolbar button:not(.tab) { background:none; border:1px solid var(--line); color:var(--fg); border-radius:4px; padding:3px 8px; cursor:pointer; }
#search { width:240px; padding:4px 8px; border:1px solid var(--line); border-radius:4px; background:var(--card); color:var(--fg); }
.filters label { margin-right:8px; white-space:nowrap; }
.ev { border:1px solid var(--line); border-left:4px solid var(--line); border-radius:5px; margin:6px 0; padding:6px 10px;
  background:var(--assistant); content-visibility:auto; contain-intrinsic-size:auto 90px; }
.ev-user { background:var(--user); border-left-color:#4a7bd8; }
.ev-reasoning { background:var(--reasoning); border-left-color:#8a63c9; }
.ev-tool { background:var(--tool); border-left-color:#3d9a50; }
.ev-system { background:var(--system); border-left-color:#999; }
.ev-error, .ev.is-error { background:var(--error); border-left-color:#d93025; }
.ev-raw { background:var(--raw); border-left-color:#c99a06; }
.off-branch { opacity:.6; }
.ev.target { outline:2px solid var(--accent); }
.ev-head { display:flex; flex-wrap:wrap; gap:4px 10px; align-items:baseline; font-size:13px; }
.ev-head .kind, summary .kind { font-weight:700; text-transform:uppercase; font-size:11px; letter-spacing:.04em; color:var(--muted); }
.tool-name { font-weight:600; font-family:ui-monospace, Menlo, monospace; overflow-wrap:anywhere; }
.summary { color:var(--muted); font-family:ui-monospace, Menlo, monospace; font-size:12px; overflow-wrap:anywhere; min-width:0; flex:1 1 200px; }
.ev-head time, .dur { color:var(--muted); font-size:12px; }
.anchor { margin-left:auto; color:var(--muted); text-decoration:none; }
.badge { font-size:11px; border:1px solid var(--line); border-radius:10px; padding:0 7px; color:var(--muted); white-space:nowrap; }
.badge.err { color:#d93025; border-color:#d93025; }
.badge.pending { color:#b06000; border-color:#b06000; }
.ev-body { margin-top:4px; min-width:0; }
.label { font-size:11px; color:var(--muted); text-transform:uppercase; margin:6px 0 2px; overflow-wrap:anywhere; }
.show-all { margin-top:4px; background:none; border:1px dashed var(--line); color:var(--accent); border-radius:4px; padding:2px 8px; cursor:pointer; }
.md { overflow-wrap:anywhere; }
.md p { margin:4px 0; }
.md table { border-collapse:collapse; }
.md td, .md th { border:1px solid var(--line); padding:2px 6px; }
.md-image { color:var(--muted); }
details.subagent { border:1px solid var(--line); border-left:4px solid #8a63c9; border-radius:5px; margin:8px 0 4px 12px; padding:4px 8px; background:var(--bg); }
details.subagent > summary { cursor:pointer; display:flex; flex-wrap:wrap; gap:4px 10px; align-items:baseline; }
.sub-events { padding-left:4px; }
.reasoning-body > summary { cursor:pointer; color:var(--muted); }
.hl.diff .gi { background:var(--ins); display:inline-block; min-width:100%; }
.hl.diff .gd { background:var(--del); display:inline-block; min-width:100%; }
table.facts th { text-align:left; color:var(--muted); font-weight:500; padding:2px 16px 2px 0; vertical-align:top; }
table.shapes { border-collapse:collapse; margin:8px 0; }
table.shapes th, table.shapes td { border:1px solid var(--line); padding:3px 8px; text-align:left; }
table.shapes tr.status-ok td { background:var(--ins); }
table.shapes tr:not(.status-ok) td { background:var(--del); }
.file { border-top:1px solid var(--line); margin-top:12px; }
.empty { color:var(--muted); font-style:italic; margin:2px 0; }
.raw-note { margin:0 0 4px; color:var(--muted); font-size:12px; }
#timeline.hide-user .ev-user, #timeline.hide-assistant .ev-assistant, #timeline.hide-reasoning .ev-reasoning,
#timeline.hide-tool .ev-tool, #timeline.hide-system .ev-system, #timeline.hide-error .ev-error, #timeline.hide-raw .ev-raw { display:none; }
#timeline.searching .ev:not(.match):not(.hasmatch), #timeline.searching .lazy:not(.hasmatch) { display:none; }
.lazy { contain:strict; }
#timeline.searching .ev.match { outline:2px solid #f0b400; }
.change-head { font-size:12px; margin:6px 0 2px; overflow-wrap:anywhere; }
.change-head .action { font-weight:600; color:var(--muted); }
.change-head .path { font-family:ui-monospace, Menlo, monospace; }
.ev.quiet { padding:2px 10px; border-left-color:var(--line); background:transparent; contain-intrinsic-size:auto 24px; }
.quiet-line { margin:0; color:var(--muted); font-size:12px; }
.checklist ul { list-style:none; margin:4px 0; padding:0; }
.checklist li { padding:1px 0; }
.checklist .mark { display:inline-block; width:1.3em; }
.checklist .todo-completed { color:var(--muted); text-decoration:line-through; }
.checklist .todo-in_progress { font-weight:600; }
.command code { font:600 13px ui-monospace, Menlo, monospace; background:var(--code); padding:2px 6px; border-radius:4px; }
details.preamble, details.unknown-notice { border:1px dashed var(--line); border-radius:5px; margin:6px 0; padding:4px 10px; }
details.preamble > summary, details.unknown-notice > summary { cursor:pointer; color:var(--muted); }
@media (max-width: 700px) { main { padding:8px; } #search { width:100%; } }
"""
