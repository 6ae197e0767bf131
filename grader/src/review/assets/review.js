// grader review: the pages' one script (served under a policy that runs no other). It keeps the
// grader's name, sorts and filters the class, and saves hand grades and rubric items through the API.
"use strict";

const TA_KEY = "grader-review-ta";

function taName() {
  return (localStorage.getItem(TA_KEY) || "").trim();
}

function rememberTa(name) {
  localStorage.setItem(TA_KEY, name);
  // The server reads it too: "next to grade" follows the class's split.
  document.cookie = TA_KEY + "=" + encodeURIComponent(name) + "; path=/; SameSite=Strict";
}

function setUpWho() {
  const input = document.getElementById("ta-name");
  if (!input) return;
  input.value = taName();
  if (input.value) rememberTa(input.value);
  input.addEventListener("change", () => rememberTa(input.value.trim()));
  document.getElementById("who").addEventListener("submit", (e) => e.preventDefault());
}

async function post(path, body, method = "POST") {
  const response = await fetch(path, {
    method,
    headers: { "Content-Type": "application/json" },
    credentials: "same-origin",
    body: JSON.stringify(body),
  });
  let data = {};
  try { data = await response.json(); } catch (_) { data = { error: "the review answered " + response.status }; }
  return { ok: response.ok, status: response.status, data };
}

// --- The class page -------------------------------------------------------------------------------

function setUpClass() {
  const table = document.getElementById("students");
  if (!table) return;
  const body = table.tBodies[0];
  const rows = Array.from(body.rows);
  const filter = document.getElementById("filter");
  const mine = document.getElementById("only-mine");
  const ungraded = document.getElementById("only-ungraded");
  function apply() {
    const words = filter.value.toLowerCase().split(/\s+/).filter(Boolean);
    const me = taName();
    for (const row of rows) {
      const text = row.textContent.toLowerCase();
      let shown = words.every((w) => text.includes(w));
      if (mine.checked) shown = shown && (row.dataset.assigned || "") === me;
      if (ungraded.checked) shown = shown && row.dataset.pending !== "0";
      row.hidden = !shown;
    }
  }
  for (const control of [filter, mine, ungraded]) control.addEventListener("input", apply);
  table.querySelectorAll("th[data-sort]").forEach((th, column) => {
    th.addEventListener("click", () => {
      const ascending = !th.classList.contains("sorted-asc");
      table.querySelectorAll("th").forEach((h) => h.classList.remove("sorted-asc", "sorted-desc"));
      th.classList.add(ascending ? "sorted-asc" : "sorted-desc");
      const key = (row) => {
        const cell = row.cells[column];
        if (th.dataset.sort === "number") return parseFloat(cell.dataset.value || cell.textContent) || 0;
        return cell.textContent.trim().toLowerCase();
      };
      const sorted = rows.slice().sort((a, b) => {
        const x = key(a), y = key(b);
        const order = typeof x === "number" ? x - y : x.localeCompare(y, undefined, { numeric: true });
        return ascending ? order : -order;
      });
      for (const row of sorted) body.appendChild(row);
    });
  });
}

// --- A student's page -----------------------------------------------------------------------------

function itemsOf(form) {
  return Array.from(form.querySelectorAll("input[name=item]"));
}

// Points from the items: the category's full points plus the items' sum, within 0..max; then the
// grader's own adjustment, within it again (as the server rescores when an item is edited).
function clamp(x, max) { return Math.min(Math.max(x, 0), max); }

function itemPoints(form) {
  const max = parseFloat(form.dataset.max);
  const sum = itemsOf(form).filter((i) => i.checked).reduce((s, i) => s + parseFloat(i.dataset.points), 0);
  return clamp(max + sum, max);
}

function showStatus(form, text, kind) {
  form.classList.remove("saved", "refused");
  if (kind) form.classList.add(kind);
  form.querySelector(".status").textContent = text;
}

function setUpGradeForm(form) {
  const points = form.querySelector("input[name=points]");
  const max = parseFloat(form.dataset.max);
  // What the grader added over the items, kept while items are ticked.
  let adjustment = points.value === "" ? 0 : parseFloat(points.value) - itemPoints(form);
  points.addEventListener("input", () => {
    const typed = parseFloat(points.value);
    if (!Number.isNaN(typed)) adjustment = typed - itemPoints(form);
  });
  for (const item of itemsOf(form)) {
    item.addEventListener("change", () => {
      points.value = Math.round(clamp(itemPoints(form) + adjustment, max) * 100) / 100;
    });
  }
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    await saveGrade(form, form.dataset.version);
  });
  const withdraw = form.querySelector(".withdraw");
  if (withdraw) {
    withdraw.addEventListener("click", async () => {
      if (!taName()) {
        showStatus(form, "Say who you are first (Grading as ...).", "refused");
        return;
      }
      if (!confirm("Take this grade back? The category is then to grade again.")) return;
      const answer = await post("/api/hand-grades", {
        id: form.dataset.id, category: form.dataset.category, ta: taName(), replaces: form.dataset.version,
      }, "DELETE");
      if (answer.ok) location.reload();
      else showStatus(form, answer.data.error, "refused");
    });
  }
  const add = form.querySelector(".add-item");
  add.addEventListener("click", async () => {
    const title = form.querySelector("input[name=item-title]").value;
    const delta = parseFloat(form.querySelector("input[name=item-points]").value);
    const answer = await post("/api/rubric-items", { category: form.dataset.category, title, points: delta, ta: taName() });
    if (answer.ok) location.reload();
    else showStatus(form, answer.data.error, "refused");
  });
  form.querySelectorAll(".edit-item").forEach((button) => {
    button.addEventListener("click", async () => {
      const title = prompt("The item's text (every student who has it sees it):", button.dataset.title);
      if (title === null) return;
      const delta = prompt("Its points (negative: a deduction). Every grade with it moves:", button.dataset.points);
      if (delta === null) return;
      const answer = await post("/api/rubric-items", {
        category: form.dataset.category, item: button.dataset.item, title, points: parseFloat(delta), ta: taName(),
      });
      if (answer.ok) location.reload();
      else showStatus(form, answer.data.error, "refused");
    });
  });
}

async function saveGrade(form, replaces) {
  const ta = taName();
  if (!ta) {
    showStatus(form, "Say who you are first (Grading as ...).", "refused");
    document.getElementById("ta-name").focus();
    return;
  }
  const points = form.querySelector("input[name=points]").value;
  const body = {
    id: form.dataset.id,
    category: form.dataset.category,
    points: points === "" ? null : parseFloat(points),
    comment: form.querySelector("textarea[name=comment]").value,
    ta,
    items: itemsOf(form).filter((i) => i.checked).map((i) => i.value),
    replaces,
  };
  const answer = await post("/api/hand-grades", body);
  if (answer.ok) {
    form.dataset.version = answer.data.grade.version;
    showStatus(form, "Saved: " + answer.data.grade.points + " points, graded by " + ta + ".", "saved");
    return;
  }
  showStatus(form, answer.data.error, "refused");
  if (answer.status === 409 && answer.data.current) {
    const current = answer.data.current;
    const status = form.querySelector(".status");
    status.appendChild(document.createElement("br"));
    status.appendChild(document.createTextNode(
      "Theirs: " + current.points + " points" + (current.comment ? ", \u201c" + current.comment + "\u201d" : "") + ". "));
    const replace = document.createElement("button");
    replace.type = "button";
    replace.className = "replace";
    replace.textContent = "Save mine over theirs";
    replace.addEventListener("click", () => saveGrade(form, current.version));
    status.appendChild(replace);
  }
}

function setUpKeys() {
  document.addEventListener("keydown", (e) => {
    const target = e.target;
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    if (target && (target.tagName === "INPUT" || target.tagName === "TEXTAREA" || target.isContentEditable)) return;
    const go = { j: "next", k: "previous", n: "next-ungraded" }[e.key];
    const link = go && document.getElementById(go);
    if (link) location.href = link.href;
  });
}

document.addEventListener("DOMContentLoaded", () => {
  setUpWho();
  setUpClass();
  document.querySelectorAll("form.grade").forEach(setUpGradeForm);
  setUpKeys();
});
