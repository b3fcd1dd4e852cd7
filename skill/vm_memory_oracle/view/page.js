// The memory page: reads the memory's record from the page itself (script#memory-data) and
// draws it. Every string of the memory goes in as text, never as markup. Facts are rendered
// a chunk at a time as the reader scrolls or searches, so a page of 100,000 facts opens at
// once; the charts are inline SVG drawn here.
"use strict";
(function () {
  const CHUNK = 150; // facts rendered at a time
  const CURVE_DAYS = 180; // the activation curve's span: the next six months
  const CHANGES_SHOWN = 300;
  const SVG = "http://www.w3.org/2000/svg";
  const data = JSON.parse(document.getElementById("memory-data").textContent);
  const made = Date.parse(data.made);
  const all = [];
  data.subjects.forEach(function (subject) {
    subject.facts.forEach(function (fact) { all.push(fact); });
  });
  let matching = all;
  let shown = 0;
  let lastSubject = null;
  let selected = all.length ? all[0] : null;

  function el(tag, attrs, text) {
    const node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (key) { node.setAttribute(key, attrs[key]); });
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }
  function svgEl(tag, attrs, text) {
    const node = document.createElementNS(SVG, tag);
    Object.keys(attrs || {}).forEach(function (key) { node.setAttribute(key, attrs[key]); });
    if (text !== undefined) node.textContent = String(text);
    return node;
  }
  function day(stamp) { return stamp ? stamp.slice(0, 10) : ""; }
  function folded(text) { return String(text || "").normalize("NFKC").toLocaleLowerCase(); }
  // The file a source names, as a link: a session log of the data directory, or the file
  // an import read ("import:/path"); null for a source that names no file.
  function sourceUrl(source) {
    const file = source.replace(/ via proposal-.*$/, "").replace(/:\d+$/, "");
    if (/^(sessions|daily|episodes)\//.test(file)) {
      return "file://" + encodeURI(data.data_path.replace(/\/$/, "") + "/" + file);
    }
    if (/^import:\//.test(file)) return "file://" + encodeURI(file.slice("import:".length));
    return null;
  }
  function sourceNode(source, attrs) {
    const url = sourceUrl(source);
    if (url === null) return el("span", attrs, source);
    attrs.href = url;
    return el("a", attrs, source);
  }
  function haystack(fact) {
    if (fact._words === undefined) {
      const parts = [fact.sentence, fact.subject, fact.source, fact.origin, fact.category, fact.turn];
      fact.history.forEach(function (former) { parts.push(former.sentence); });
      fact._words = folded(parts.join(" \u0000 "));
    }
    return fact._words;
  }

  // -- the facts ----------------------------------------------------------------------------
  function factNode(fact) {
    const node = el("article", { class: "fact", "data-id": fact.id });
    if (fact === selected) node.classList.add("selected");
    const head = el("div");
    head.appendChild(el("span", { class: "sentence" }, fact.sentence));
    if (fact.pinned) head.appendChild(el("span", { class: "badge" }, "pinned"));
    if (fact.in_memory_md) head.appendChild(el("span", { class: "badge" }, "in MEMORY.md"));
    if (!fact.trusted) head.appendChild(el("span", { class: "badge untrusted" }, fact.origin));
    node.appendChild(head);
    const meta = el("div", { class: "meta" });
    const bar = el("span", { class: "bar", title: "activation " + fact.activation });
    const fill = el("span");
    fill.style.width = Math.round(Math.max(0, Math.min(1, fact.activation)) * 100) + "%";
    bar.appendChild(fill);
    meta.appendChild(bar);
    meta.appendChild(document.createTextNode(
      "activation " + fact.activation.toFixed(2) + " · learned " + day(fact.learned) +
      " · said by " + fact.origin + (fact.sender ? " (" + fact.sender + ")" : "") +
      ", " + fact.session + (fact.channel ? " on " + fact.channel : "") + " · "));
    meta.appendChild(sourceNode(fact.source, { class: "source" }));
    if (fact.category) meta.appendChild(document.createTextNode(" · " + fact.category));
    node.appendChild(meta);
    if (fact.turn) {
      const details = el("details");
      details.appendChild(el("summary", {}, "the turn's own words"));
      details.appendChild(el("blockquote", {}, fact.turn));
      node.appendChild(details);
    }
    if (fact.history.length) {
      const history = el("ul", { class: "history" });
      fact.history.forEach(function (former) {
        const item = el("li");
        item.appendChild(el("s", {}, former.sentence));
        item.appendChild(document.createTextNode(
          " · learned " + day(former.learned) + ", replaced " + day(former.replaced_at) + " · "));
        item.appendChild(sourceNode(former.source, {}));
        history.appendChild(item);
      });
      node.appendChild(history);
    }
    node.addEventListener("click", function (event) {
      if (event.target.closest("a, summary")) return;
      select(fact);
    });
    return node;
  }

  function renderMore() {
    const list = document.getElementById("facts");
    const end = Math.min(matching.length, shown + CHUNK);
    const fragment = document.createDocumentFragment();
    for (let i = shown; i < end; i++) {
      const fact = matching[i];
      if (fact.subject !== lastSubject) {
        lastSubject = fact.subject;
        fragment.appendChild(el("h3", { class: "subject" }, fact.subject));
      }
      fragment.appendChild(factNode(fact));
    }
    list.appendChild(fragment);
    shown = end;
    count();
  }

  function count() {
    const total = all.length;
    const text = matching.length === total
      ? total + " facts, " + shown + " shown"
      : matching.length + " of " + total + " facts match, " + shown + " shown";
    document.getElementById("count").textContent = text + " (more appear as you scroll)";
  }

  function search(query) {
    const terms = folded(query).split(/\s+/).filter(Boolean);
    matching = terms.length
      ? all.filter(function (fact) {
        const words = haystack(fact);
        return terms.every(function (term) { return words.indexOf(term) >= 0; });
      })
      : all;
    document.getElementById("facts").textContent = "";
    shown = 0;
    lastSubject = null;
    renderMore();
  }

  // -- the charts ---------------------------------------------------------------------------
  function axes(svg, width, height, pad, label) {
    svg.appendChild(svgEl("line", { x1: pad, y1: height - pad, x2: width - 8, y2: height - pad, stroke: "#9aa3b2" }));
    svg.appendChild(svgEl("line", { x1: pad, y1: 8, x2: pad, y2: height - pad, stroke: "#9aa3b2" }));
    svg.appendChild(svgEl("text", { x: pad + 4, y: 16 }, label));
  }

  function perDayChart() {
    const width = 480, height = 180, pad = 28;
    const svg = svgEl("svg", { viewBox: "0 0 " + width + " " + height, width: "100%", role: "img", id: "per-day-chart" });
    const days = data.per_day;
    const most = days.reduce(function (m, d) { return Math.max(m, d[1]); }, 0);
    axes(svg, width, height, pad, "most in a day: " + most);
    const step = days.length ? (width - pad - 12) / days.length : 0;
    days.forEach(function (d, i) {
      const h = most ? (height - 2 * pad) * d[1] / most : 0;
      const bar = svgEl("rect", {
        class: "day", x: pad + 2 + i * step, y: height - pad - h,
        width: Math.max(1, step - 2), height: h, fill: "#3a7bd5",
      });
      bar.appendChild(svgEl("title", {}, d[0] + ": " + d[1] + " fact(s)"));
      svg.appendChild(bar);
    });
    if (days.length) {
      svg.appendChild(svgEl("text", { x: pad, y: height - 10 }, days[0][0]));
      svg.appendChild(svgEl("text", { x: width - 70, y: height - 10 }, days[days.length - 1][0]));
    }
    const holder = document.getElementById("per-day");
    holder.textContent = "";
    holder.appendChild(svg);
  }

  // activation(t) = a0 * 0.5 ** ((t - last_accessed) / half_life_eff), with
  // half_life_eff = half_life_days / (1 - 0.5 * importance); a pinned fact does not fade.
  function activationAt(fact, daysAhead) {
    if (fact.pinned) return fact.a0;
    const importance = Math.max(0, Math.min(1, fact.importance));
    const halfLife = data.half_life_days / (1 - 0.5 * importance);
    const elapsed = Math.max(0, (made - Date.parse(fact.last_accessed)) / 86400000 + daysAhead);
    return fact.a0 * Math.pow(0.5, elapsed / halfLife);
  }

  function curveChart() {
    const holder = document.getElementById("curve");
    holder.textContent = "";
    const caption = document.getElementById("curve-caption");
    if (!selected) { caption.textContent = "Activation over the next months: no fact"; return; }
    const width = 480, height = 180, pad = 28;
    const svg = svgEl("svg", { viewBox: "0 0 " + width + " " + height, width: "100%", role: "img", id: "curve-chart" });
    axes(svg, width, height, pad, "1.0");
    const x = function (d) { return pad + (width - pad - 24) * d / CURVE_DAYS; };
    const y = function (a) { return height - pad - (height - 2 * pad) * a; };
    [["search", data.search_threshold], ["prune", data.prune_threshold]].forEach(function (t) {
      svg.appendChild(svgEl("line", { x1: pad, x2: width - 8, y1: y(t[1]), y2: y(t[1]), stroke: "#e0a080", "stroke-dasharray": "4 3" }));
      svg.appendChild(svgEl("text", { x: width - 60, y: y(t[1]) - 2 }, t[0] + " " + t[1]));
    });
    const points = [];
    let below = null;
    for (let d = 0; d <= CURVE_DAYS; d += 2) {
      const a = activationAt(selected, d);
      if (below === null && a < data.search_threshold) below = d;
      points.push(x(d).toFixed(1) + "," + y(a).toFixed(1));
    }
    svg.appendChild(svgEl("polyline", { points: points.join(" "), fill: "none", stroke: "#3a7bd5", "stroke-width": 2, class: "curve" }));
    [0, 30, 60, 90, 120, 150, 180].forEach(function (d) {
      svg.appendChild(svgEl("text", { x: x(d), y: height - 10, "text-anchor": "middle" }, d + "d"));
    });
    holder.appendChild(svg);
    caption.textContent = "Activation of “" + selected.sentence + "” over the next six months" +
      (selected.pinned ? " (pinned: it does not fade)"
        : below === null ? "" : ": below the search threshold in about " + below + " days, unless recalled or said again");
  }

  function select(fact) {
    selected = fact;
    document.querySelectorAll(".fact.selected").forEach(function (n) { n.classList.remove("selected"); });
    const node = document.querySelector('.fact[data-id="' + fact.id + '"]');
    if (node) node.classList.add("selected");
    curveChart();
  }

  // -- what changed, health -----------------------------------------------------------------
  function changes() {
    const body = document.querySelector("#changes tbody");
    data.changes.slice(0, CHANGES_SHOWN).forEach(function (change) {
      const row = el("tr", { class: "change kind-" + change.kind });
      row.appendChild(el("td", {}, change.at));
      row.appendChild(el("td", {}, change.kind));
      row.appendChild(el("td", {}, change.action));
      const what = el("td", {}, change.change);
      if (change.untrusted) {
        what.appendChild(el("span", { class: "badge flag" }, change.untrusted + " from outside (untrusted)"));
      }
      row.appendChild(what);
      body.appendChild(row);
    });
  }

  function consolidations() {
    const holder = document.getElementById("consolidations");
    data.consolidations.forEach(function (run) {
      const block = el("div", { class: "consolidation" });
      block.appendChild(el("h3", {}, "Consolidation of " + run.started_at + " (" + run.report + ")"));
      if (!run.changes.length) {
        block.appendChild(el("p", {}, "No change."));
        holder.appendChild(block);
        return;
      }
      const table = el("table", { class: "reported" });
      const head = el("tr");
      ["Step", "Change", "Fact or file", "Said by", "Reason"].forEach(function (name) {
        head.appendChild(el("th", {}, name));
      });
      table.appendChild(head);
      run.changes.forEach(function (change) {
        const row = el("tr", { class: "reported-change" + (change.untrusted ? " untrusted" : "") });
        row.appendChild(el("td", {}, change.step));
        row.appendChild(el("td", {}, change.change));
        row.appendChild(el("td", { title: change.target }, change.sentence || change.target));
        const said = el("td", {}, change.said_by);
        if (change.untrusted) said.appendChild(el("span", { class: "badge flag" }, "from outside (untrusted)"));
        row.appendChild(said);
        row.appendChild(el("td", {}, change.reason));
        table.appendChild(row);
      });
      block.appendChild(table);
      if (run.more) block.appendChild(el("p", {}, run.more + " more changes in " + run.report));
      holder.appendChild(block);
    });
  }

  function health() {
    const holder = document.getElementById("health-body");
    const h = data.health;
    holder.appendChild(el("p", { class: "status-" + (h.status || "unknown") }, "Status: " + (h.status || "no health check yet")));
    [["Problems", h.problems], ["Warnings", h.warnings], ["Findings", h.findings]].forEach(function (pair) {
      if (!pair[1].length) return;
      holder.appendChild(el("h3", {}, pair[0]));
      const list = el("ul");
      pair[1].forEach(function (line) { list.appendChild(el("li", {}, line)); });
      holder.appendChild(list);
    });
    const probe = h.probe;
    holder.appendChild(el("p", {}, probe
      ? "Quality probe " + probe.at + ": " + probe.passed + " of " + probe.total + " canaries recalled"
      : "The quality probe has not run yet."));
    const table = el("table", { class: "figures" });
    Object.keys(h.figures).forEach(function (key) {
      const row = el("tr");
      row.appendChild(el("th", {}, key));
      row.appendChild(el("td", {}, h.figures[key]));
      table.appendChild(row);
    });
    holder.appendChild(table);
  }

  document.getElementById("made").textContent =
    "Made " + data.made + " from " + data.data_path + ": a snapshot; make it again to see what changed since.";
  let timer = null;
  document.getElementById("search").addEventListener("input", function (event) {
    clearTimeout(timer);
    const query = event.target.value;
    timer = setTimeout(function () { search(query); }, 60);
  });
  const more = document.getElementById("more");
  const observer = new IntersectionObserver(function (entries) {
    if (entries.some(function (e) { return e.isIntersecting; }) && shown < matching.length) {
      renderMore();
      observer.unobserve(more); // observed again: called again while the end is still in sight
      observer.observe(more);
    }
  }, { rootMargin: "800px" });
  observer.observe(more);
  search("");
  perDayChart();
  curveChart();
  changes();
  consolidations();
  health();
  document.body.setAttribute("data-ready-ms", Math.round(performance.now()));
  document.body.setAttribute("data-ready", "yes");
})();
