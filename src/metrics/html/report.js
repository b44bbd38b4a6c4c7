// report.html's script: sortable and filterable tables, and the adversarial-example browser.
// Plain DOM, no library, no request: the data is the JSON element the page carries.
"use strict";

function cellKey(td) {
  const v = td.getAttribute("data-v");
  return v === null ? null : Number(v);
}

function sortBy(table, column, th) {
  const descending = th.getAttribute("aria-sort") === "ascending";
  for (const other of table.tHead.rows[0].cells) other.removeAttribute("aria-sort");
  th.setAttribute("aria-sort", descending ? "descending" : "ascending");
  const body = table.tBodies[0];
  const rows = Array.from(body.rows);
  const numeric = th.classList.contains("num");
  rows.sort((a, b) => {
    const x = a.cells[column], y = b.cells[column];
    let order;
    if (numeric) {
      const p = cellKey(x), q = cellKey(y);
      // Empty cells (undefined figures) sort last either way.
      if (p === null || q === null) return (p === null) - (q === null);
      order = p - q;
    } else {
      order = x.textContent.localeCompare(y.textContent, undefined, { numeric: true });
    }
    return descending ? -order : order;
  });
  for (const r of rows) body.appendChild(r);
}

for (const table of document.querySelectorAll("table.sortable")) {
  Array.from(table.tHead.rows[0].cells).forEach((th, i) => {
    th.querySelector("button").addEventListener("click", () => sortBy(table, i, th));
  });
  const filter = table.parentElement.querySelector("input.filter");
  if (filter) {
    filter.addEventListener("input", () => {
      const needle = filter.value.trim().toLowerCase();
      for (const r of table.tBodies[0].rows) {
        r.hidden = needle !== "" && !r.textContent.toLowerCase().includes(needle);
      }
    });
  }
}

// ---- the adversarial-example browser ----

const data = JSON.parse(document.getElementById("examples-data").textContent);
const pick = (name) => document.getElementById("pick-" + name);

function el(tag, props, ...children) {
  const e = document.createElement(tag);
  Object.assign(e, props || {});
  for (const c of children) e.append(c);
  return e;
}

function fill(select, options, keep) {
  const before = keep ? select.value : null;
  select.replaceChildren(...options.map(([value, label]) => el("option", { value, textContent: label })));
  if (before !== null && options.some(([v]) => v === before)) select.value = before;
}

// Words, numbers (with their separators), spaces and single marks, so that a changed number or
// an inserted mark is one token.
function tokens(text) {
  return text.match(/\d[\d,.]*\d|\d|[A-Za-z']+|\s+|[^\sA-Za-z\d]/g) || [];
}

// The tokens of `b` that are not in a longest common subsequence with `a`, as a set of indices.
function changed(a, b) {
  const n = a.length, m = b.length;
  const L = Array.from({ length: n + 1 }, () => new Uint16Array(m + 1));
  for (let i = n - 1; i >= 0; i--)
    for (let j = m - 1; j >= 0; j--)
      L[i][j] = a[i] === b[j] ? L[i + 1][j + 1] + 1 : Math.max(L[i + 1][j], L[i][j + 1]);
  const out = new Set();
  let i = 0, j = 0;
  while (j < m) {
    if (i < n && a[i] === b[j]) { i++; j++; }
    else if (i < n && L[i + 1][j] >= L[i][j + 1]) i++;
    else out.add(j++);
  }
  return out;
}

function markedQuestion(text, other) {
  const mine = tokens(text), theirs = tokens(other);
  const diff = changed(theirs, mine);
  const p = el("p", { className: "question" });
  mine.forEach((t, k) => p.append(diff.has(k) && t.trim() ? el("mark", { className: "changed", textContent: t }) : t));
  return p;
}

// The reply with the last place it shows the extracted answer marked.
function markedReply(reply) {
  const pre = el("div", { className: "reply" });
  const text = reply.response || "";
  const at = reply.extracted ? text.lastIndexOf(reply.extracted) : -1;
  if (at < 0) pre.append(text || "(no reply)");
  else pre.append(text.slice(0, at), el("mark", { className: "read", textContent: reply.extracted }), text.slice(at + reply.extracted.length));
  return pre;
}

function verdictText(r) {
  if (!r) return el("span", { className: "note", textContent: "no reply stored" });
  if (r.correct === null) return el("span", { className: "note", textContent: "ungraded" });
  return el("span", { className: r.correct ? "ok" : "wrong", textContent: r.correct ? "right" : "wrong" });
}

function side(title, q, other, reply) {
  return el("div", { className: "side" },
    el("h3", { textContent: title }),
    markedQuestion(q.question, other.question),
    el("p", {}, "gold answer: ", el("strong", { textContent: q.answer ?? "" })),
    el("p", {}, "reply read as ", el("strong", { textContent: reply && reply.extracted !== null ? reply.extracted : "nothing" }),
      reply && reply.rule ? ` (rule ${reply.rule}) ` : " ", verdictText(reply)),
    reply ? markedReply(reply) : el("p", { className: "note", textContent: "This model has no stored reply to this question." }));
}

function problemsOf(dataset, attack) {
  return data.problems.filter((p) => p.dataset === dataset && p.attack === attack && p.original && p.variants.length);
}

function render() {
  const problems = problemsOf(pick("dataset").value, pick("attack").value);
  fill(pick("problem"), problems.map((p, i) => [String(i), `${p.problem_id} (fools ${Math.max(...p.variants.map((v) => v.fooled))})`]), true);
  const problem = problems[Number(pick("problem").value)];
  const box = document.getElementById("example");
  document.getElementById("example-empty").hidden = Boolean(problem);
  if (!problem) { box.replaceChildren(); return; }
  fill(pick("variant"), problem.variants.map((v, i) => [String(i), v.id]), true);
  const variant = problem.variants[Number(pick("variant").value)] || problem.variants[0];
  const model = pick("model").value;
  const o = problem.original.replies[model], v = variant.replies[model];
  const adversarial = Boolean(v && v.adversarial);
  const verdict = el("p", { className: "verdict" + (adversarial ? " adversarial" : "") },
    adversarial ? `An adversarial example for ${model}: it answers the original rightly and this variant wrongly.`
      : `Not an adversarial example for ${model}` + (o && v ? ` (original ${o.correct ? "right" : "wrong"}, variant ${v.correct ? "right" : "wrong"}).` : "."));
  const all = el("table", { className: "replies" },
    el("thead", {}, el("tr", {}, ...["model", "original read as", "variant read as", "adversarial example"].map((h) => el("th", { textContent: h })))),
    el("tbody", {}, ...data.models.map((m) => {
      const a = problem.original.replies[m.name], b = variant.replies[m.name];
      const read = (r) => el("td", {}, r ? `${r.extracted ?? "nothing"} ` : "", verdictText(r));
      return el("tr", {}, el("td", {}, m.name, m.simulated ? el("span", { className: "sim", textContent: " simulated" }) : ""),
        read(a), read(b), el("td", { textContent: b && b.adversarial ? "yes" : "no" }));
    })));
  box.replaceChildren(verdict,
    el("div", { className: "pair" }, side("Original", problem.original, variant, o), side(`Variant ${variant.id}`, variant, problem.original, v)),
    all);
}

function start() {
  const datasets = [...new Set(data.problems.map((p) => p.dataset))];
  fill(pick("dataset"), datasets.map((d) => [d, d]));
  const attacksFor = () => [...new Set(data.problems.filter((p) => p.dataset === pick("dataset").value).map((p) => p.attack))];
  fill(pick("attack"), attacksFor().map((a) => [a, a]));
  fill(pick("model"), data.models.map((m) => [m.name, m.name + (m.simulated ? " (simulated)" : "")]));
  // A new dataset or attack starts at its first problem, a new problem at its first variant.
  const reset = (name) => pick(name).replaceChildren();
  pick("dataset").addEventListener("change", () => { fill(pick("attack"), attacksFor().map((a) => [a, a]), true); reset("problem"); reset("variant"); render(); });
  pick("attack").addEventListener("change", () => { reset("problem"); reset("variant"); render(); });
  pick("problem").addEventListener("change", () => { reset("variant"); render(); });
  for (const name of ["variant", "model"]) pick(name).addEventListener("change", render);
  render();
}

start();

// ---- plot tips: the exact figure of the mark under the pointer, at once (the SVG <title> is
// the browser's own tooltip, which comes late) ----

const tip = el("div", { className: "tip", hidden: true });
document.body.append(tip);
document.addEventListener("mouseover", (e) => {
  const mark = e.target.closest && e.target.closest("g.tips > *");
  tip.hidden = !mark;
  if (mark) tip.textContent = mark.querySelector("title").textContent;
});
document.addEventListener("mousemove", (e) => {
  tip.style.left = e.clientX + 12 + "px";
  tip.style.top = e.clientY + 12 + "px";
});
