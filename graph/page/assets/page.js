// The upgrade-graph page of fbc: it draws the document fbc embedded
// (graph/page's Document) and shows what fbc computed. Nothing here decides
// an upgrade: a path is the chain of next steps fbc gives, followed as many
// times as fbc says the path moves (Step.moves), and the words come from
// fbc. Layout: versions down one axis (newest at the top), the bundles a
// channel (or, in the view of every channel, a set of channels) lists in
// one lane, lanes whose versions do not overlap sharing a column.
(function () {
  "use strict";

  var DATA = JSON.parse(document.getElementById("fbc-data").textContent);
  var SVGNS = "http://www.w3.org/2000/svg";
  var ROW = 26, BOX_H = 20, TOP = 34, LEFT = 46, GUTTER = 22, ARCS = 120, BADGES = 64, GAP = 4;
  var state = { pkg: 0, view: 0, selected: -1, zoom: 1, search: "" };
  var cache = { layout: null };

  // ---- DOM helpers: text goes in as text nodes, never as markup.
  function el(tag, attrs) {
    var n = document.createElement(tag);
    setAttrs(n, attrs);
    for (var i = 2; i < arguments.length; i++) append(n, arguments[i]);
    return n;
  }
  function sv(tag, attrs) {
    var n = document.createElementNS(SVGNS, tag);
    setAttrs(n, attrs);
    for (var i = 2; i < arguments.length; i++) append(n, arguments[i]);
    return n;
  }
  function setAttrs(n, attrs) {
    if (!attrs) return;
    Object.keys(attrs).forEach(function (k) {
      var v = attrs[k];
      if (v === null || v === undefined || v === false) return;
      if (k === "onclick") n.addEventListener("click", v);
      else n.setAttribute(k, v === true ? "" : String(v));
    });
  }
  function append(n, kid) {
    if (kid === null || kid === undefined || kid === false) return;
    if (Array.isArray(kid)) { kid.forEach(function (k) { append(n, k); }); return; }
    n.appendChild(typeof kid === "string" || typeof kid === "number" ? document.createTextNode(String(kid)) : kid);
  }
  function clear(n) { while (n.firstChild) n.removeChild(n.firstChild); return n; }
  function $(id) { return document.getElementById(id); }
  function plural(n, one, many) { return n === 1 ? one : many; }
  function counted(n, one, many) { return n + " " + plural(n, one, many); }
  function shq(s) {
    return /^[A-Za-z0-9_.\/:@=+,-]+$/.test(s) ? s : "'" + s.replace(/'/g, "'\\''") + "'";
  }

  // ---- the data
  function pkg() { return DATA.packages[state.pkg]; }
  function view() { return pkg().views[state.view]; }
  function bundle(i) { return pkg().bundles[i]; }
  function bname(i) { return i >= 0 ? bundle(i).name : "?"; }
  function isDiff() { return DATA.kind === "diff"; }
  function posIn(v, b) {
    if (!v._pos) { v._pos = new Map(); v.nodes.forEach(function (n, i) { v._pos.set(n, i); }); }
    var p = v._pos.get(b);
    return p === undefined ? -1 : p;
  }
  function stepAt(v, sim, b) {
    if (!sim) return null;
    var i = posIn(v, b);
    return i < 0 ? null : sim.steps[i];
  }
  function sims(v) {
    // On a diff page, each OLM before the change, then after it.
    var out = [];
    if (v.oldClassic) out.push({ key: "classic", label: "OLM classic, before the change", sim: v.oldClassic, side: "old" });
    if (v.classic) out.push({ key: "classic", label: isDiff() ? "OLM classic, after the change" : "OLM classic", sim: v.classic, side: "new" });
    if (v.oldV1) out.push({ key: "v1", label: "OLM v1, before the change", sim: v.oldV1, side: "old" });
    if (v.v1) out.push({ key: "v1", label: isDiff() ? "OLM v1, after the change" : "OLM v1", sim: v.v1, side: "new" });
    return out;
  }
  function channelsOf(b) {
    var p = pkg();
    if (!p._channelsOf) {
      p._channelsOf = p.bundles.map(function () { return []; });
      p.channels.forEach(function (c) {
        c.entries.forEach(function (e) {
          if (p._channelsOf[e.bundle].indexOf(c.name) < 0) p._channelsOf[e.bundle].push(c.name);
        });
      });
    }
    return p._channelsOf[b];
  }
  function channel(name) {
    var cs = pkg().channels;
    for (var i = 0; i < cs.length; i++) if (cs[i].name === name) return cs[i];
    return null;
  }
  function entryOf(chName, b) {
    var c = channel(chName);
    if (!c) return null;
    for (var i = 0; i < c.entries.length; i++) if (c.entries[i].bundle === b) return c.entries[i];
    return null;
  }

  // ---- paths: fbc's next steps, followed
  function follow(v, sim, from) {
    var first = stepAt(v, sim, from);
    if (!first) return null;
    var p = { bundles: [from], steps: [], error: pathError(first), moves: first.moves, fresh: false };
    return chain(v, sim, p, from, first, first.moves);
  }
  function followFresh(v, sim) {
    var f = sim.fresh;
    var p = { bundles: [], steps: [{ from: -1, step: f }], error: pathError(f), moves: f.moves, fresh: true };
    if (f.next < 0 || f.moves === 0) return p;
    p.bundles.push(f.next);
    return chain(v, sim, p, f.next, stepAt(v, sim, f.next), f.moves - 1);
  }
  // chain follows n next steps from bundle cur, whose step is st, adding
  // each to the path, then the step where the path stays or fails.
  function chain(v, sim, p, cur, st, n) {
    for (var k = 0; k < n && st; k++) {
      p.steps.push({ from: cur, step: st });
      cur = st.next;
      if (cur < 0) break;
      p.bundles.push(cur);
      st = stepAt(v, sim, cur);
    }
    if (st && (st.next < 0 || st.error)) p.steps.push({ from: cur, step: st });
    return p;
  }
  function pathError(st) { return st.pathError || st.error || ""; }
  // pathLine is the last line fbc upgrade-path prints (graph.Path.Line).
  function pathLine(p) {
    var names = p.bundles.map(bname);
    if (p.error) return "path: " + (names.length ? names.join(" -> ") : "nothing installed") + ", then resolution fails";
    if (p.moves === 0) return "path: no upgrade";
    if (p.fresh) {
      var ups = p.moves - 1;
      return "path: " + names.join(" -> ") + " (a fresh install" + (ups > 0 ? ", then " + counted(ups, "upgrade", "upgrades") : "") + ")";
    }
    return "path: " + names.join(" -> ") + " (" + counted(p.moves, "upgrade", "upgrades") + ")";
  }
  function command(s, from) {
    var cat = isDiff() ? (s.side === "old" ? DATA.old : DATA.new) : DATA.catalog;
    var c = "fbc upgrade-path " + shq(cat || "CATALOG") + " -p " + shq(pkg().name);
    if (from >= 0) {
      c += " --from " + shq(bname(from));
      var b = bundle(from);
      if (isDiff() && s.side === "new" && b.status === "removed") c += " --from-version " + shq(b.version);
    }
    if (s.sim.flags) c += " " + s.sim.flags;
    return c;
  }

  // ---- layout
  function layout() {
    var p = pkg(), v = view();
    var key = state.pkg + "/" + state.view;
    if (cache.layout && cache.layout.key === key) return cache.layout;
    var nodes = v.nodes.slice().sort(function (a, b) { return b - a; });
    var row = new Map();
    nodes.forEach(function (b, i) { row.set(b, i); });
    var lanes = [], byKey = new Map();
    nodes.forEach(function (b) {
      var k, label;
      if (v.channel) {
        var inCh = channelsOf(b).indexOf(v.channel) >= 0;
        k = inCh ? "in" : "out";
        label = inCh ? v.channel : "not in " + v.channel;
      } else {
        var cs = channelsOf(b).slice().sort();
        k = cs.join("\n");
        label = cs.length ? cs.join(", ") : "in no channel";
        if (!cs.length && bundle(b).missing) { k = "\u0000missing"; label = "no olm.bundle"; }
      }
      // A lane is the bundles of one key (a channel, or a set of
      // channels); it is cut where more than GAP rows of other lanes come
      // between two of its bundles, so that a sparse lane does not keep a
      // column to itself.
      var lane = byKey.get(k), r = row.get(b);
      if (!lane || r - lane.bottom > GAP) {
        lane = { key: k, label: label, nodes: [], top: r, bottom: r, ghost: v.channel && k === "out" };
        byKey.set(k, lane);
        lanes.push(lane);
      }
      lane.nodes.push(b);
      lane.bottom = r;
    });
    // Lanes whose rows do not overlap share a column; a lane goes back to
    // the column of the lane of its key before it when it can.
    var cols = [], colOf = new Map();
    lanes.forEach(function (lane) {
      var fits = function (i) { return i >= 0 && i < cols.length && cols[i].ghost === lane.ghost && cols[i].last < lane.top; };
      var col = colOf.has(lane.key) && fits(colOf.get(lane.key)) ? colOf.get(lane.key) : -1;
      for (var i = 0; i < cols.length && col < 0; i++) if (fits(i)) col = i;
      if (col < 0) { cols.push({ last: -1, ghost: lane.ghost }); col = cols.length - 1; }
      cols[col].last = lane.bottom;
      lane.col = col;
      colOf.set(lane.key, col);
    });
    var longest = 8;
    p.bundles.forEach(function (b) { longest = Math.max(longest, (b.version || "").length * 1.1 + b.name.length + 2); });
    var boxW = Math.min(430, Math.round(longest * 6.1) + 16 + BADGES);
    var colW = GUTTER + boxW + ARCS;
    var pos = new Map();
    lanes.forEach(function (lane, li) {
      lane.alt = li % 2 === 1;
      lane.nodes.forEach(function (b) {
        pos.set(b, { x: LEFT + lane.col * colW + GUTTER, y: TOP + row.get(b) * ROW, w: boxW, col: lane.col, lane: lane });
      });
    });
    cache.layout = {
      key: key, nodes: nodes, row: row, lanes: lanes, pos: pos, boxW: boxW, colW: colW,
      width: LEFT + cols.length * colW + 20, height: TOP + nodes.length * ROW + 20
    };
    return cache.layout;
  }
  function mid(p) { return p.y + BOX_H / 2; }
  function edgeD(a, b, lift) {
    var y1 = mid(a) + (lift || 0), y2 = mid(b) + (lift || 0);
    if (a.col === b.col) {
      var x = a.x + a.w, span = Math.abs(b.y - a.y) / ROW;
      var bulge = Math.min(14 + 16 * Math.sqrt(span), ARCS - 8) + (lift || 0) * 2;
      return "M" + x + " " + y1 + " C" + (x + bulge) + " " + y1 + " " + (x + bulge) + " " + y2 + " " + (x + 2) + " " + y2;
    }
    var x1 = a.x + a.w, x2 = b.x - 2;
    if (b.x < a.x) { x1 = a.x; x2 = b.x + b.w + 2; }
    var dx = (x2 - x1) / 2;
    return "M" + x1 + " " + y1 + " C" + (x1 + dx) + " " + y1 + " " + (x2 - dx) + " " + y2 + " " + x2 + " " + y2;
  }

  // ---- marks on nodes
  function headsOf(v) {
    var h = {};
    if (v.classic && v.classic.fresh.next >= 0) h.classic = v.classic.fresh.next;
    if (v.v1 && v.v1.fresh.next >= 0) h.v1 = v.v1.fresh.next;
    return h;
  }
  function notesOf(v, b) {
    var out = [];
    sims(v).forEach(function (s) {
      if (s.side !== "new") return; // a diff page marks what is wrong after the change
      var st = stepAt(v, s.sim, b);
      if (st && st.note) out.push({ label: s.label, note: st.note });
    });
    return out;
  }
  function findingsOf(b) {
    var p = pkg(), v = view(), name = bname(b);
    return (p.findings || []).filter(function (f) {
      return f.bundle === name && (!v.channel || !f.channel || f.channel === v.channel);
    });
  }
  function differenceOf(v, b) {
    var ds = v.differences || [];
    for (var i = 0; i < ds.length; i++) if (ds[i].bundle === b) return ds[i];
    return null;
  }
  function lifecycleOf(b) {
    var name = bundle(b).lifecycle, lc = pkg().lifecycle || [];
    for (var i = 0; i < lc.length; i++) if (lc[i].name === name) return lc[i];
    return null;
  }
  function today() { return new Date().toISOString().slice(0, 10); }
  function currentPhase(lv) {
    var t = today();
    for (var i = 0; i < lv.phases.length; i++) {
      var ph = lv.phases[i];
      if (ph.start <= t && t <= ph.end) return { index: i, phase: ph, state: "current" };
    }
    var last = lv.phases[lv.phases.length - 1];
    if (last && t > last.end) return { index: -1, phase: last, state: "ended" };
    return { index: -1, phase: lv.phases[0], state: "not started" };
  }

  // ---- drawing
  function draw() {
    var svg = clear($("svg")), v = view(), L = layout();
    svg.setAttribute("viewBox", "0 0 " + L.width + " " + L.height);
    svg.setAttribute("width", Math.round(L.width * state.zoom));
    svg.setAttribute("height", Math.round(L.height * state.zoom));
    var defs = sv("defs");
    [["replaces", "var(--replaces)"], ["skips", "var(--skips)"], ["range", "var(--range)"], ["bad", "var(--bad)"], ["good", "var(--good)"], ["classic", "var(--classic)"], ["v1", "var(--v1)"]].forEach(function (m) {
      defs.appendChild(sv("marker", { id: "arrow-" + m[0], viewBox: "0 0 10 10", refX: 9, refY: 5, markerWidth: 8, markerHeight: 8, markerUnits: "userSpaceOnUse", orient: "auto-start-reverse" },
        sv("path", { d: "M0 0 L10 5 L0 10 z", style: "fill:" + m[1] })));
    });
    svg.appendChild(defs);

    // lanes: a band behind each lane's rows, its channels written down the
    // gutter
    var bands = sv("g", { class: "lanes" });
    L.lanes.forEach(function (lane) {
      var x = LEFT + lane.col * L.colW, y = TOP + lane.top * ROW - 3, h = (lane.bottom - lane.top + 1) * ROW;
      bands.appendChild(sv("rect", { class: "lane-band" + (lane.alt ? " alt" : ""), x: x, y: y, width: GUTTER + L.boxW + 6, height: h, rx: 4 },
        sv("title", null, lane.label)));
      var fits = lane.label.length * 6 < h - 6;
      var label = fits ? lane.label : lane.label.slice(0, Math.max(1, Math.floor((h - 6) / 6) - 1)) + (lane.label.length * 6 >= h - 6 ? "…" : "");
      bands.appendChild(sv("text", { class: "lane-label", transform: "translate(" + (x + 13) + "," + (y + 4) + ") rotate(90)" }, label));
    });
    svg.appendChild(bands);
    svg.appendChild(sv("text", { class: "lane-title", x: 4, y: 14 }, "newer"));
    svg.appendChild(sv("text", { class: "lane-title", x: 4, y: L.height - 6 }, "older"));
    svg.appendChild(sv("line", { x1: 18, y1: 22, x2: 18, y2: L.height - 20, stroke: "#aab", "stroke-width": 1, "marker-start": "url(#arrow-replaces)" }));

    var edges = sv("g", { class: "edges" });
    v.edges.forEach(function (e) {
      var a = L.pos.get(e.from), b = L.pos.get(e.to);
      if (!a || !b) return;
      var cls = "edge " + e.kind, marker = e.kind;
      if (e.classicIgnores) { cls += " classic-ignores"; marker = "bad"; }
      if (e.v1Ignores) cls += " v1-ignores";
      if (e.status === "added") { cls += " added"; marker = "good"; }
      if (e.status === "removed") { cls += " removed"; marker = "bad"; }
      var tip = bname(e.to) + " " + e.kind + " " + bname(e.from);
      if (e.channels) tip += " (in " + e.channels.join(", ") + ")";
      if (e.status) tip += " — " + e.status + " by the change";
      if (e.classicIgnores) tip += "\nOLM classic ignores it: " + e.classicIgnores;
      if (e.v1Ignores) tip += "\nOLM v1 does not take it: " + e.v1Ignores;
      edges.appendChild(sv("path", { class: cls, d: edgeD(a, b), "marker-end": "url(#arrow-" + marker + ")", "data-from": bname(e.from), "data-to": bname(e.to), "data-kind": e.kind },
        sv("title", null, tip)));
    });
    // skipRanges: a bar beside the bundles a range contains, an arrow to
    // the entry that has it
    (v.ranges || []).forEach(function (r, k) {
      var target = L.pos.get(r.to);
      if (!target) return;
      var covered = [];
      r.covers.forEach(function (run) {
        v.nodes.forEach(function (b) { if (b >= run[0] && b <= run[1]) covered.push(b); });
      });
      var tip = bname(r.to) + " skipRange " + JSON.stringify(r.range) + (r.channels ? " (in " + r.channels.join(", ") + ")" : "") +
        "\ncontains " + counted(covered.length, "bundle", "bundles") + " drawn here" +
        (r.invalid ? "\n" + r.invalid : "") + (r.classicIgnores ? "\nOLM classic ignores it: " + r.classicIgnores : "") +
        (r.status ? "\n" + r.status + " by the change" : "");
      var cls = "edge range" + (r.classicIgnores || r.invalid ? " classic-ignores" : "") + (r.status ? " " + r.status : "");
      if (r.invalid) {
        edges.appendChild(sv("text", { class: "badge problem", x: target.x + 2, y: target.y - 1 }, "invalid skipRange", sv("title", null, tip)));
        return;
      }
      // segments: covered nodes next to each other in one column
      var byCol = new Map();
      covered.slice().sort(function (a, b) { return L.row.get(a) - L.row.get(b); }).forEach(function (b) {
        var p = L.pos.get(b), segs = byCol.get(p.col);
        if (!segs) { segs = []; byCol.set(p.col, segs); }
        var last = segs[segs.length - 1], r0 = L.row.get(b);
        var gap = last ? L.nodes.slice(last.rowEnd + 1, r0).some(function (x) { return L.pos.get(x).col === p.col; }) : true;
        if (!last || gap) segs.push({ rowStart: r0, rowEnd: r0, col: p.col, x: p.x });
        else last.rowEnd = r0;
      });
      var off = 4 + (k % 5) * 3;
      byCol.forEach(function (segs) {
        segs.forEach(function (sg) {
          var x = sg.x - GUTTER + off, y1 = TOP + sg.rowStart * ROW, y2 = TOP + sg.rowEnd * ROW + BOX_H;
          edges.appendChild(sv("rect", { class: "range-bar", x: x, y: y1, width: 3, height: y2 - y1, "data-to": bname(r.to) }, sv("title", null, tip)));
          var tx = target.x, ty = mid(target), sx = x, sy = y1 + 2;
          var d = "M" + sx + " " + sy + " C" + (sx - 24) + " " + sy + " " + (tx - 30) + " " + ty + " " + (tx - 2) + " " + ty;
          edges.appendChild(sv("path", { class: cls, d: d, "marker-end": "url(#arrow-" + (r.classicIgnores ? "bad" : r.status === "added" ? "good" : r.status === "removed" ? "bad" : "range") + ")", "data-to": bname(r.to), "data-kind": "skipRange" },
            sv("title", null, tip)));
        });
      });
    });
    svg.appendChild(edges);
    svg.appendChild(sv("g", { id: "routes" }));

    var heads = headsOf(v), nodesG = sv("g", { class: "nodes" });
    L.nodes.forEach(function (b) {
      var p = L.pos.get(b), bd = bundle(b), cls = ["node"];
      var entry = v.channel ? entryOf(v.channel, b) : null;
      if (bd.missing) cls.push("missing");
      if (bd.deprecated) cls.push("deprecated");
      if (bd.legacyDeprecated) cls.push("legacy-deprecated");
      if (p.lane.ghost) cls.push("ghost");
      if (entry && entry.skippedBy) cls.push("skipped");
      if (bd.status) cls.push(bd.status);
      else if (entry && entry.status) cls.push(entry.status);
      if (bd.oldVersion) cls.push("changed-version");
      var notes = notesOf(v, b), finds = findingsOf(b);
      var stranded = finds.some(function (f) { return f.rule === "stranded"; });
      if (notes.length || finds.some(function (f) { return f.severity === "error"; })) cls.push("problem");
      if (stranded) cls.push("stranded");
      var g = sv("g", { class: cls.join(" "), "data-bundle": bd.name, "data-index": b, transform: "translate(" + p.x + "," + p.y + ")", tabindex: 0, role: "button" });
      g.addEventListener("click", function () { select(b, false); });
      g.addEventListener("keydown", function (ev) { if (ev.key === "Enter" || ev.key === " ") { ev.preventDefault(); select(b, false); } });
      g.appendChild(sv("rect", { class: "box", width: p.w, height: BOX_H, rx: 4 }));
      if (notes.length || finds.length) g.appendChild(sv("rect", { class: "flag", x: 0, y: 0, width: 4, height: BOX_H, rx: 2 }));
      var lc = lifecycleOf(b);
      if (lc) {
        var cp = currentPhase(lc);
        var color = cp.state === "ended" ? "#9aa3ad" : cp.state === "not started" ? "#cfd6dd" : ["#2e7d32", "#e0a800", "#e07000", "#b23c17"][Math.min(cp.index, 3)];
        g.appendChild(sv("circle", { cx: p.w - 8, cy: BOX_H / 2, r: 4, fill: color }, sv("title", null, "lifecycle " + lc.name + ": " + cp.state + " " + cp.phase.name)));
      }
      var label = bd.version || "";
      var t = sv("text", { x: 8, y: 14 });
      if (label) t.appendChild(sv("tspan", { class: "version" }, label + (bd.oldVersion ? " (was " + bd.oldVersion + ")" : "")));
      var room = Math.floor((p.w - BADGES - 16) / 6.1) - (label.length + (bd.oldVersion ? bd.oldVersion.length + 7 : 0)) - 1;
      var name = bd.name.length > room ? bd.name.slice(0, Math.max(room - 1, 4)) + "…" : bd.name;
      t.appendChild(sv("tspan", { class: "name", dx: label ? 6 : 0 }, name));
      g.appendChild(t);
      var badges = [];
      if (heads.classic === b && heads.v1 === b) badges.push(["head", "head-classic", "the head: a fresh install gets it under both OLMs"]);
      else {
        if (heads.classic === b) badges.push(["head C", "head-classic", "OLM classic's head: a fresh install gets it"]);
        if (heads.v1 === b) badges.push(["head v1", "head-v1", "OLM v1's head: a fresh install gets it"]);
      }
      if (differenceOf(v, b)) badges.push(["≠", "differs", "OLM classic and OLM v1 upgrade it differently"]);
      if (stranded) badges.push(["stranded", "stranded", "the change strands clusters running it"]);
      else if (notes.length) badges.push(["!", "problem", notes.map(function (n) { return n.label + ": " + n.note; }).join("\n")]);
      var bx = p.w - (lc ? 16 : 6);
      badges.reverse().forEach(function (bg) {
        var w = bg[0].length * 6 + 4;
        bx -= w;
        g.appendChild(sv("text", { class: "badge " + bg[1], x: bx, y: 14 }, bg[0], sv("title", null, bg[2])));
      });
      var tip = bd.name + (bd.version ? " (" + bd.version + ")" : "") + (bd.missing ? "\nno olm.bundle in the catalog" : "") +
        (channelsOf(b).length ? "\nchannels: " + channelsOf(b).join(", ") : "\nin no channel") +
        (bd.deprecated ? "\ndeprecated: " + bd.deprecated : "") + (bd.legacyDeprecated ? "\ncarries olm.deprecated: OLM classic never installs it" : "") +
        (entry && entry.skippedBy ? "\n" + entry.skippedBy + " skips it: OLM classic never offers it in " + v.channel : "") +
        (bd.status ? "\n" + bd.status + " by the change" : "") + (!bd.status && entry && entry.status ? "\nits entry in " + v.channel + " was " + entry.status + " by the change" : "") +
        (bd.oldVersion ? "\nversion was " + bd.oldVersion : "");
      g.appendChild(sv("title", null, tip));
      nodesG.appendChild(g);
    });
    svg.appendChild(nodesG);
    $("view-note").textContent = viewNote(v, L);
    markSearch();
    markRoutes();
  }

  function viewNote(v, L) {
    var h = headsOf(v), parts = [];
    if (v.channel) {
      parts.push("Channel " + v.channel + (v.channel === pkg().defaultChannel ? " (the default channel)" : "") + ": " + counted(channelEntries(v.channel), "entry", "entries") + ".");
    } else {
      parts.push("Every channel: " + counted(L.nodes.length, "bundle", "bundles") + ", each once; lanes group them by the channels that list them.");
    }
    if (h.classic !== undefined && h.classic === h.v1) parts.push("Head: " + bname(h.classic) + ".");
    else {
      if (v.classic) parts.push("Classic head: " + (h.classic !== undefined ? bname(h.classic) : "none (" + v.classic.fresh.error + ")") + ".");
      if (v.v1) parts.push("v1 head: " + (h.v1 !== undefined ? bname(h.v1) : "none (" + v.v1.fresh.error + ")") + ".");
    }
    return parts.join(" ");
  }
  function channelEntries(name) {
    var c = channel(name);
    return c ? c.entries.filter(function (e) { return e.status !== "removed"; }).length : 0;
  }

  // ---- the selected bundle's paths, drawn over the graph
  function markRoutes() {
    var g = $("routes"), L = layout(), v = view();
    if (!g) return;
    clear(g);
    document.querySelectorAll("#svg .node").forEach(function (n) {
      n.classList.remove("on-classic", "on-v1", "selected");
    });
    if (state.selected < 0 || !L.pos.has(state.selected)) return;
    var sel = document.querySelector('#svg .node[data-index="' + state.selected + '"]');
    if (sel) sel.classList.add("selected");
    [["classic", v.classic, 0], ["v1", v.v1, 3]].forEach(function (r) {
      if (!r[1]) return;
      var p = follow(v, r[1], state.selected);
      if (!p) return;
      for (var i = 1; i < p.bundles.length; i++) {
        var a = L.pos.get(p.bundles[i - 1]), b = L.pos.get(p.bundles[i]);
        if (a && b) g.appendChild(sv("path", { class: "route " + r[0], d: edgeD(a, b, r[2]) }));
      }
      p.bundles.forEach(function (b) {
        var n = document.querySelector('#svg .node[data-index="' + b + '"]');
        if (n) n.classList.add("on-" + r[0]);
      });
    });
  }

  // ---- side panels
  function section(id, title) {
    var s = clear($(id));
    s.hidden = false;
    if (title) s.appendChild(el("h2", null, title));
    return s;
  }
  function bundleLink(b, label) {
    return el("span", { class: "link", onclick: function () { select(b, true); } }, label || bname(b));
  }

  function renderDetails() {
    var s = section("details"), v = view();
    if (state.selected < 0) {
      s.appendChild(el("p", { class: "muted" }, "Click a bundle to see its upgrade path under OLM classic and OLM v1, as fbc upgrade-path computes it."));
      return;
    }
    var b = state.selected, bd = bundle(b);
    s.appendChild(el("h2", { id: "selected-bundle" }, bd.name));
    var facts = el("div");
    facts.appendChild(el("div", null, "version ", el("b", null, bd.version || "none"), bd.oldVersion ? " (was " + bd.oldVersion + ")" : ""));
    if (bd.missing) facts.appendChild(el("div", { class: "banner bad" }, "No olm.bundle of this name: an entry or an edge names it."));
    if (bd.status) facts.appendChild(el("div", null, el("span", { class: "tag " + bd.status }, bd.status + " by the change")));
    var chs = channelsOf(b);
    var chLine = el("div", null, "channels: ");
    if (!chs.length) chLine.appendChild(document.createTextNode("none (no upgrade reaches it)"));
    chs.forEach(function (c, i) {
      if (i) chLine.appendChild(document.createTextNode(", "));
      chLine.appendChild(el("span", { class: "link", onclick: function () { showChannel(c); } }, c));
    });
    facts.appendChild(chLine);
    if (bd.deprecated) facts.appendChild(el("div", { class: "banner deprecated" }, "Deprecated: " + bd.deprecated));
    if (bd.legacyDeprecated) facts.appendChild(el("div", { class: "banner deprecated" }, "Carries the olm.deprecated property: OLM classic never installs it; OLM v1 ignores the property."));
    if (bd.dependencies) facts.appendChild(el("div", null, "declares dependencies (" + bd.dependencies + ")" + (isDiff() ? ": a diff page does not resolve them, as fbc diff does not" : "")));
    var entry = v.channel ? entryOf(v.channel, b) : null;
    if (entry) {
      var edges = [];
      if (entry.replaces) edges.push("replaces " + entry.replaces);
      (entry.skips || []).forEach(function (x) { edges.push("skips " + x); });
      if (entry.skipRange) edges.push("skipRange " + JSON.stringify(entry.skipRange));
      facts.appendChild(el("div", { class: "mono" }, "entry in " + v.channel + ": " + (edges.length ? edges.join("; ") : "no edges")));
      if (entry.status) facts.appendChild(el("div", null, el("span", { class: "tag " + entry.status }, "entry " + entry.status + " by the change")));
      if (entry.skippedBy) facts.appendChild(el("div", { class: "note" }, entry.skippedBy + " skips it: OLM classic never offers it in " + v.channel + "."));
    }
    var lc = lifecycleOf(b);
    if (lc) {
      var cp = currentPhase(lc);
      facts.appendChild(el("div", null, "lifecycle " + lc.name + ": " + (cp.state === "current" ? cp.phase.name + " until " + cp.phase.end : cp.state === "ended" ? "support ended " + cp.phase.end : "starts " + cp.phase.start)));
    }
    findingsOf(b).forEach(function (f) {
      facts.appendChild(el("div", { class: "banner " + (f.severity === "error" ? "bad" : "deprecated") }, f.severity + " " + f.rule + ": " + f.message));
    });
    var d = differenceOf(v, b);
    if (d) facts.appendChild(el("div", { class: "banner deprecated" }, "OLM classic and OLM v1 differ here: classic " + d.classic + "; v1 " + d.v1 + "."));
    s.appendChild(facts);
    sims(v).forEach(function (x) { s.appendChild(pathBlock(x, b)); });
  }

  function pathBlock(x, from) {
    var v = view();
    var box = el("div", { class: "path " + x.key + (x.side === "old" ? " old" : ""), id: (from >= 0 ? "path-" : "fresh-") + x.key + (x.side === "old" ? "-old" : ""), "data-semantics": x.key, "data-side": x.side });
    box.appendChild(el("h3", null, x.label));
    var p = from >= 0 ? follow(v, x.sim, from) : followFresh(v, x.sim);
    if (!p) {
      var why = isDiff() && x.side === "old" && bundle(from).status === "added" ? "the bundle was not in the catalog before the change" : "nothing to simulate from it (no olm.bundle, no version)";
      box.appendChild(el("div", { class: "muted" }, why));
      return box;
    }
    var last = p.steps[p.steps.length - 1];
    if (p.error && !(last && last.step.error)) box.appendChild(el("div", { class: "error" }, "error: " + p.error));
    box.appendChild(el("div", { class: "line" }, pathLine(p)));
    var ol = el("ol", { class: "steps" });
    p.steps.forEach(function (s) {
      var st = s.step, head;
      var fromName = s.from >= 0 ? bname(s.from) : "fresh install";
      if (st.error) head = fromName + " fails to resolve";
      else if (st.next >= 0) head = fromName + " -> " + bname(st.next) + (bundle(st.next).version ? " (" + bundle(st.next).version + ")" : "");
      else head = fromName + " stays";
      var li = el("li", null, el("span", { class: "mono" }, head), ": ", st.error ? el("span", { class: "error" }, st.error) : st.reason);
      if (st.candidates && st.candidates.length) {
        var det = el("details", null, el("summary", null, counted(st.candidates.length + (st.more || 0), "successor", "successors") + " (" + (x.key === "classic" ? "closest to the channel head first" : "highest version first, deprecated last") + ")"));
        var ul = el("ul", { class: "plain mono" });
        st.candidates.forEach(function (c) {
          var b = bundle(c.bundle);
          ul.appendChild(el("li", null, (c.bundle === st.next ? "* " : "  ") + b.name + (b.version ? " (" + b.version + ")" : "") + ": " + c.text));
        });
        if (st.more) ul.appendChild(el("li", { class: "muted" }, "and " + st.more + " more"));
        det.appendChild(ul);
        li.appendChild(det);
      }
      ol.appendChild(li);
    });
    if (p.steps.length > 4) {
      box.appendChild(el("details", { class: "steps" }, el("summary", null, counted(p.steps.length, "step", "steps") + ", each with its reason"), ol));
    } else {
      box.appendChild(ol);
    }
    var first = from >= 0 ? stepAt(v, x.sim, from) : null;
    if (first && first.note) box.appendChild(el("div", { class: "note" }, "fbc upgrade-path --all: " + first.note));
    else if (first && first.hops !== undefined && first.hops !== null) box.appendChild(el("div", { class: "muted" }, "reaches the channel's head in " + counted(first.hops, "upgrade", "upgrades")));
    box.appendChild(el("code", { class: "cmd" }, command(x, from)));
    return box;
  }

  function renderInfo() {
    var p = pkg(), v = view(), s = section("info", "Package " + p.name);
    if (p.status) s.appendChild(el("div", null, el("span", { class: "tag " + (p.status === "changed" ? "warn" : p.status) }, p.status + " by the change")));
    if (p.deprecated) s.appendChild(el("div", { class: "banner deprecated" }, "The package is deprecated: " + p.deprecated));
    s.appendChild(el("div", null, "default channel: ", el("b", null, p.defaultChannel || "none"), p.oldDefaultChannel ? " (was " + p.oldDefaultChannel + ")" : ""));
    var counts = counted(p.bundles.filter(function (b) { return !b.missing; }).length, "bundle", "bundles") + " in " + counted(p.channels.length, "channel", "channels");
    s.appendChild(el("div", { class: "muted" }, counts));
    if (v.channel) {
      var c = channel(v.channel);
      if (c.deprecated) s.appendChild(el("div", { class: "banner deprecated" }, "Channel " + c.name + " is deprecated: " + c.deprecated));
      if (c.heads.length > 1) s.appendChild(el("div", { class: "banner bad" }, "Channel " + c.name + " has " + c.heads.length + " heads (" + c.heads.map(bname).join(", ") + "): OLM classic cannot order it."));
    }
    var fresh = el("div");
    fresh.appendChild(el("h3", null, "A new subscription" + (v.channel ? " to " + v.channel : " without a channel")));
    sims(v).forEach(function (x) { fresh.appendChild(pathBlock(x, -1)); });
    s.appendChild(fresh);
  }

  function renderProblems() {
    var v = view(), s = section("problems", "Dead ends and failures");
    var items = [];
    v.nodes.forEach(function (b) {
      notesOf(v, b).forEach(function (n) { items.push(el("li", null, bundleLink(b), " ", el("span", { class: "tag bad" }, n.label), " ", n.note)); });
    });
    if (!items.length) {
      s.appendChild(el("p", { class: "muted" }, "fbc upgrade-path --all finds no dead end, failure or blocked path" + (v.channel ? " in " + v.channel : " in any channel") + "."));
      return;
    }
    s.appendChild(el("p", { class: "muted" }, "What fbc upgrade-path --all says of the bundles" + (v.channel ? " of " + v.channel : " in each of their channels") + ":"));
    s.appendChild(el("ul", { class: "plain", id: "problem-list" }, items));
  }

  function renderDifferences() {
    var v = view(), s = section("differences", "Where OLM classic and OLM v1 differ"), h = headsOf(v);
    var items = [];
    if (v.classic && v.v1 && h.classic !== h.v1) {
      items.push(el("li", null, "a fresh install gets ", h.classic !== undefined ? bundleLink(h.classic) : "nothing", " under classic and ", h.v1 !== undefined ? bundleLink(h.v1) : "nothing", " under v1"));
    }
    v.edges.forEach(function (e) {
      if (e.v1Ignores && e.status !== "removed") items.push(el("li", null, bundleLink(e.from), " → ", bundleLink(e.to), ": ", e.v1Ignores));
    });
    (v.differences || []).forEach(function (d) {
      items.push(el("li", { "data-bundle": bname(d.bundle) }, bundleLink(d.bundle), ": ", el("span", { class: "tag classic" }, "classic"), d.classic, " ", el("span", { class: "tag v1" }, "v1"), d.v1));
    });
    if (!items.length) {
      s.appendChild(el("p", { class: "muted" }, "None in this view: both OLMs take every bundle the same way."));
      return;
    }
    s.appendChild(el("ul", { class: "plain", id: "difference-list" }, items));
  }

  function renderFindings() {
    if (!isDiff()) return;
    var p = pkg(), s = section("findings", "Findings of fbc diff");
    var fs = p.findings || [];
    if (!fs.length) { s.appendChild(el("p", { class: "muted" }, "No finding in this package.")); return; }
    var ul = el("ul", { class: "plain", id: "finding-list" });
    fs.forEach(function (f) {
      var place = f.channel ? f.channel : "";
      var li = el("li", { class: f.severity },
        el("span", { class: "tag " + (f.severity === "error" ? "bad" : "warn") }, f.severity), " ", el("b", null, f.rule),
        f.semantics && f.semantics.length ? " (" + f.semantics.join(", ") + ")" : "", " ", place, f.bundle ? " " + f.bundle : "", ": ", f.message);
      li.classList.add("link");
      li.addEventListener("click", function () {
        if (f.channel) showChannel(f.channel);
        if (f.bundle) {
          var bs = pkg().bundles;
          for (var i = 0; i < bs.length; i++) if (bs[i].name === f.bundle) select(i, true);
        }
      });
      ul.appendChild(li);
    });
    s.appendChild(ul);
  }

  function renderChanges() {
    if (!isDiff()) return;
    var p = pkg(), s = section("changes", "Changes");
    var cs = p.changes || [];
    if (!cs.length) { s.appendChild(el("p", { class: "muted" }, "No change to this package's graph.")); return; }
    var ul = el("ul", { class: "plain mono" });
    cs.forEach(function (c) { ul.appendChild(el("li", null, c)); });
    s.appendChild(el("details", { open: cs.length <= 12 }, el("summary", null, counted(cs.length, "change", "changes") + " to this package, as fbc diff lists them"), ul));
  }

  function renderLifecycle() {
    var lc = pkg().lifecycle;
    if (!lc || !lc.length) { $("lifecycle").hidden = true; return; }
    var s = section("lifecycle", "Lifecycle");
    s.appendChild(el("p", { class: "muted" }, "From the package's io.openshift.operators.lifecycles.v1alpha1 blob; the current phase is today's (" + today() + ")."));
    var t = el("table", { class: "lc" }, el("tr", null, el("th", null, "version"), el("th", null, "phase"), el("th", null, "from"), el("th", null, "to")));
    lc.forEach(function (lv) {
      var cp = currentPhase(lv);
      lv.phases.forEach(function (ph, i) {
        t.appendChild(el("tr", { class: cp.state === "current" && cp.index === i ? "current" : "" },
          el("td", null, i === 0 ? lv.name : ""), el("td", null, ph.name + (cp.state === "current" && cp.index === i ? " (now)" : "")), el("td", null, ph.start), el("td", null, ph.end)));
      });
      (lv.platforms || []).forEach(function (pl) {
        t.appendChild(el("tr", null, el("td"), el("td", { colspan: 3, class: "muted" }, "runs on " + pl.name + " " + pl.versions.join(", "))));
      });
    });
    s.appendChild(t);
  }

  function renderWarnings() {
    var ws = DATA.warnings || [];
    if (!ws.length) { $("warnings").hidden = true; return; }
    var s = section("warnings", "Warnings");
    var ul = el("ul", { class: "plain mono" });
    ws.forEach(function (w) { ul.appendChild(el("li", null, w)); });
    s.appendChild(ul);
  }

  function legendSwatch(d, cls, marker) {
    return sv("svg", { width: 46, height: 14, viewBox: "0 0 46 14" },
      sv("path", { class: "edge " + cls, d: d || "M2 7 L40 7", "marker-end": marker ? "url(#arrow-" + marker + ")" : null }));
  }
  function nodeSwatch(cls, text) {
    return sv("svg", { width: 46, height: 18, viewBox: "0 0 46 18" },
      sv("g", { class: "node " + cls }, sv("rect", { class: "box", x: 1, y: 1, width: 44, height: 16, rx: 3 }), text ? sv("text", { class: "badge " + text[1], x: 6, y: 13 }, text[0]) : null));
  }
  function renderLegend() {
    var s = section("legend", "Legend");
    var rows = [
      [legendSwatch(null, "replaces", "replaces"), "replaces: the newer entry upgrades the bundle it replaces"],
      [legendSwatch(null, "skips", "skips"), "skips: the newer entry upgrades a bundle it skips"],
      [sv("svg", { width: 46, height: 14 }, sv("rect", { class: "range-bar", x: 2, y: 1, width: 3, height: 12 }), sv("path", { class: "edge range", d: "M5 3 L40 7", "marker-end": "url(#arrow-range)" })), "skipRange: the bar spans the bundles the range contains"],
      [legendSwatch(null, "replaces classic-ignores", "bad"), "an edge OLM classic ignores (its newer end is skipped)"],
      [legendSwatch(null, "replaces v1-ignores", "replaces"), "a downgrade OLM v1 does not take"],
      [sv("svg", { width: 46, height: 14 }, sv("path", { class: "route classic", d: "M2 7 L44 7" })), "the selected bundle's path under OLM classic"],
      [sv("svg", { width: 46, height: 14 }, sv("path", { class: "route v1", d: "M2 7 L44 7" })), "the selected bundle's path under OLM v1"],
      [nodeSwatch("", ["head", "head-classic"]), "the head: where a fresh install lands (head C, head v1: when the OLMs disagree)"],
      [nodeSwatch("", ["≠", "differs"]), "OLM classic and OLM v1 upgrade this bundle differently"],
      [nodeSwatch("problem", ["!", "problem"]), "a dead end, a failure or a blocked path (fbc upgrade-path --all)"],
      [nodeSwatch("deprecated"), "deprecated (olm.deprecations, or the olm.deprecated property: dashed)"],
      [nodeSwatch("skipped"), "skipped in this channel: OLM classic never offers it"],
      [nodeSwatch("missing"), "named by an entry or an edge, no olm.bundle"]
    ];
    if (isDiff()) {
      rows.push([nodeSwatch("added"), "added by the change (edges: green)"]);
      rows.push([nodeSwatch("removed"), "removed by the change (edges: red, dashed)"]);
      rows.push([nodeSwatch("stranded", ["stranded", "stranded"]), "clusters running it are stranded by the change"]);
    }
    if (pkg().lifecycle && pkg().lifecycle.length) rows.push([sv("svg", { width: 46, height: 14 }, sv("circle", { cx: 23, cy: 7, r: 4, fill: "#2e7d32" })), "lifecycle phase today (green: the first phase, amber and orange: later ones, grey: ended)"]);
    rows.forEach(function (r) { s.appendChild(el("div", { class: "legend-row" }, r[0], el("span", null, r[1]))); });
  }

  // ---- channel switch, package picker, search, zoom
  function renderChannels() {
    var nav = clear($("channels")), p = pkg();
    var order = p.views.map(function (v, i) { return i; });
    order.sort(function (a, b) { return a === 0 ? -1 : b === 0 ? 1 : natural(p.views[a].channel, p.views[b].channel); });
    order.forEach(function (i) {
      var v = p.views[i];
      var c = v.channel ? channel(v.channel) : null;
      var label = v.channel ? v.channel : "All channels";
      var count = v.channel ? channelEntries(v.channel) : p.bundles.filter(function (b) { return !b.missing; }).length;
      var cls = [];
      if (c && c.deprecated) cls.push("deprecated");
      if (c && c.status) cls.push(c.status);
      var btn = el("button", { type: "button", role: "tab", "aria-selected": i === state.view ? "true" : "false", "data-channel": v.channel, class: cls.join(" "),
        title: (c && c.deprecated ? "deprecated: " + c.deprecated : "") + (c && c.status ? " " + c.status + " by the change" : "") },
        label, v.channel && v.channel === p.defaultChannel ? " ★" : "", el("span", { class: "count" }, String(count)));
      btn.addEventListener("click", function () { state.view = i; update(); });
      nav.appendChild(btn);
    });
  }
  // natural compares names with their numbers as numbers (stable-3.9
  // before stable-3.10).
  function natural(a, b) {
    var ra = a.match(/\d+|\D+/g) || [], rb = b.match(/\d+|\D+/g) || [];
    for (var i = 0; i < Math.min(ra.length, rb.length); i++) {
      var x = ra[i], y = rb[i];
      if (x === y) continue;
      var nx = /^\d/.test(x), ny = /^\d/.test(y);
      if (nx && ny && +x !== +y) return +x - +y;
      return x < y ? -1 : 1;
    }
    return ra.length - rb.length;
  }
  function showChannel(name) {
    var vs = pkg().views;
    for (var i = 0; i < vs.length; i++) if (vs[i].channel === name) { state.view = i; update(); return; }
  }
  function renderPicker() {
    var show = DATA.packages.length > 1 || isDiff();
    $("picker").hidden = !show;
    if (!show) return;
    var sel = clear($("package")), f = $("package-filter").value.trim().toLowerCase();
    DATA.packages.forEach(function (p, i) {
      if (f && p.name.toLowerCase().indexOf(f) < 0 && i !== state.pkg) return;
      var extra = counted(p.bundles.filter(function (b) { return !b.missing; }).length, "bundle", "bundles");
      if (p.problems) extra += ", " + counted(p.problems, isDiff() ? "finding" : "problem", isDiff() ? "findings" : "problems");
      if (p.status) extra += ", " + p.status;
      sel.appendChild(el("option", { value: i, selected: i === state.pkg }, p.name + " (" + extra + ")"));
    });
  }
  function markSearch() {
    var q = state.search.trim().toLowerCase(), n = 0, first = null;
    document.querySelectorAll("#svg .node").forEach(function (g) {
      var b = bundle(+g.getAttribute("data-index"));
      var hit = q !== "" && ((b.version || "").toLowerCase().indexOf(q) === 0 || b.name.toLowerCase().indexOf(q) >= 0);
      g.classList.toggle("match", hit);
      if (hit) { n++; if (!first) first = g; }
    });
    $("search-count").textContent = q ? counted(n, "match", "matches") : "";
    return first;
  }
  function setZoom(z) {
    state.zoom = Math.max(0.25, Math.min(3, z));
    var L = layout(), svg = $("svg");
    svg.setAttribute("width", Math.round(L.width * state.zoom));
    svg.setAttribute("height", Math.round(L.height * state.zoom));
  }
  function scrollToNode(b) {
    var L = layout(), p = L.pos.get(b), box = $("graph");
    if (!p) return;
    box.scrollTo({ left: Math.max(0, p.x * state.zoom - box.clientWidth / 3), top: Math.max(0, p.y * state.zoom - box.clientHeight / 3) });
  }

  // ---- state
  function select(b, scroll) {
    state.selected = b;
    if (!layout().pos.has(b)) {
      // Not in this view: show every channel, where every bundle is.
      state.view = 0;
      update();
    } else {
      renderDetails();
      markRoutes();
      writeHash();
    }
    if (scroll) scrollToNode(b);
  }
  function update() {
    cache.layout = null;
    if (state.selected >= 0 && !layout().pos.has(state.selected)) state.selected = -1;
    var p = pkg();
    $("title").textContent = isDiff() ? "fbc diff: " + DATA.old + " → " + DATA.new + " — " + p.name : (DATA.packages.length > 1 ? DATA.catalog + " — " : "") + p.name + ": upgrade graph";
    document.title = $("title").textContent;
    renderPicker();
    renderChannels();
    draw();
    renderDetails();
    renderFindings();
    renderInfo();
    renderProblems();
    renderDifferences();
    renderLifecycle();
    renderChanges();
    writeHash();
  }
  function writeHash() {
    var parts = ["p=" + encodeURIComponent(pkg().name)];
    if (view().channel) parts.push("c=" + encodeURIComponent(view().channel));
    if (state.selected >= 0) parts.push("b=" + encodeURIComponent(bname(state.selected)));
    try { history.replaceState(null, "", "#" + parts.join("&")); } catch (e) { /* a page some browsers open without history */ }
  }
  function readHash() {
    var h = {};
    location.hash.replace(/^#/, "").split("&").forEach(function (kv) {
      var i = kv.indexOf("=");
      if (i <= 0) return;
      // A link cut short or typed by hand ("#p=100%") must not stop the
      // page: a part that does not decode is ignored.
      try { h[kv.slice(0, i)] = decodeURIComponent(kv.slice(i + 1)); } catch (e) { /* not percent-encoded */ }
    });
    if (h.p) DATA.packages.forEach(function (p, i) { if (p.name === h.p) state.pkg = i; });
    if (!h.c && !h.p && DATA.channel) h.c = DATA.channel;
    if (h.c) pkg().views.forEach(function (v, i) { if (v.channel === h.c) state.view = i; });
    if (h.b) pkg().bundles.forEach(function (b, i) { if (b.name === h.b) state.selected = i; });
  }

  function init() {
    if (isDiff()) {
      var d = DATA.diff, vd = $("verdict");
      vd.hidden = false;
      vd.className = d.safe ? "safe" : "unsafe";
      vd.textContent = d.verdict + (d.preexisting ? " (" + counted(d.preexisting, "problem", "problems") + " there before)" : "") +
        (DATA.unchanged ? "; " + counted(DATA.unchanged, "package", "packages") + " unchanged" : "");
    }
    if (!DATA.packages.length) {
      $("title").textContent = DATA.title;
      $("view-note").textContent = isDiff() ? "The change touches no package's upgrade graph." : "No package to draw.";
      renderWarnings();
      renderLegend();
      return;
    }
    readHash();
    $("package").addEventListener("change", function (e) {
      state.pkg = +e.target.value; state.view = 0; state.selected = -1; update();
    });
    $("package-filter").addEventListener("input", renderPicker);
    $("search").addEventListener("input", function (e) { state.search = e.target.value; markSearch(); });
    $("search").addEventListener("keydown", function (e) {
      if (e.key === "Enter") { var g = markSearch(); if (g) select(+g.getAttribute("data-index"), true); }
      if (e.key === "Escape") { e.target.value = ""; state.search = ""; markSearch(); }
    });
    $("zoom-in").addEventListener("click", function () { setZoom(state.zoom * 1.25); });
    $("zoom-out").addEventListener("click", function () { setZoom(state.zoom / 1.25); });
    $("zoom-reset").addEventListener("click", function () { setZoom(1); });
    renderWarnings();
    renderLegend();
    update();
    if (state.selected >= 0) scrollToNode(state.selected);
    document.body.setAttribute("data-ready", "true");
  }
  init();
})();
