import { api, follow, refusal, say } from "./console.js";

// Develop: the form is the submit route's multipart form (the same form
// the preflight route reads): a role names a library asset by its id or
// carries a new file; options are the tool's declared ones.

const form = document.getElementById("develop");

// build reads the form as the submit route's fields.
function build() {
  const fd = new FormData();
  fd.append("tool", form.dataset.tool);
  fd.append("quality", form.querySelector('input[name="quality"]:checked')?.value || "1k");
  for (const set of form.querySelectorAll("fieldset[data-role]")) {
    const role = set.dataset.role;
    const files = set.querySelector("input[data-file]").files;
    if (files.length) {
      for (const f of files) fd.append(role, f);
      continue;
    }
    for (const c of set.querySelectorAll(`input[name="${role}"]:checked`)) if (c.value) fd.append(role, c.value);
  }
  for (const el of form.querySelectorAll("[data-option]")) {
    if (el.value.trim() !== "") fd.append(el.dataset.option, el.value.trim());
  }
  return fd;
}

// where is this page's address after a submit: the tool, the chosen
// library inputs and the quality, with the new job beside them.
function where(jobId) {
  const q = new URLSearchParams({ tool: form.dataset.tool });
  for (const c of form.querySelectorAll("fieldset[data-role] input:checked")) if (c.value) q.append(c.name, c.value);
  q.set("quality", form.querySelector('input[name="quality"]:checked')?.value || "1k");
  q.set("job", jobId);
  return "/develop?" + q.toString();
}

if (form) {
  const msg = document.getElementById("develop-msg");
  const button = document.getElementById("submit");
  let key = crypto.randomUUID(); // one submit, however often it is pressed

  form.addEventListener("change", () => {
    key = crypto.randomUUID();
    preflight();
  });
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    button.disabled = true;
    button.setAttribute("aria-busy", "true");
    say(msg, "Submitting…");
    const fd = build();
    fd.append("idempotencyKey", key);
    const res = await api("POST", "/api/toolkit/jobs/submit", fd);
    button.disabled = false;
    button.removeAttribute("aria-busy");
    if (!res.ok) {
      say(msg, refusal(res) + (res.data.need ? ` (needs ${res.data.need}, ${res.data.spendable} spendable)` : ""), true);
      return;
    }
    say(msg, "Queued.");
    location.assign(where(res.data.jobId));
  });

  // The preflight answer before the button: price, balance and what
  // submit would refuse, free and kept nowhere.
  const box = document.getElementById("preflight");
  let timer = 0;
  let asked = 0;
  async function preflight() {
    if (!box) return;
    clearTimeout(timer);
    timer = setTimeout(async () => {
      const n = ++asked;
      const res = await api("POST", "/api/toolkit/ai/preflight", build());
      if (n !== asked) return; // a newer question is on its way
      box.replaceChildren();
      const p = document.createElement("p");
      if (!res.ok) {
        p.textContent = refusal(res);
        box.append(p);
        return;
      }
      const a = res.data;
      const b = document.createElement("b");
      b.textContent = a.ok ? "Ready" : "Not yet";
      p.append(b, ` · ${a.price} tokens · ${a.spendable} spendable` + (a.engine ? ` · engine ${a.engine}` : ""));
      box.append(p);
      if (a.problems?.length) {
        const ul = document.createElement("ul");
        for (const pr of a.problems) {
          const li = document.createElement("li");
          li.textContent = pr.message;
          ul.append(li);
        }
        box.append(ul);
      }
      // The answer's note says what the serving engine makes of the tool
      // (a composite, a proof) and how to read the answer: beside the
      // button it stands for the catalog's note, and keeps its weight.
      if (a.note) {
        const catalog = document.getElementById("tool-note");
        const note = document.createElement("p");
        note.className = catalog ? "notice small" : "small quiet";
        note.dataset.note = "";
        note.textContent = a.note;
        box.append(note);
        if (catalog) catalog.hidden = true;
      }
      box.dataset.ok = a.ok ? "true" : "false";
    }, 250);
  }
  preflight();
}

// A develop that landed without its verdict yet: the judge writes it just
// after; look again until it is there (every 1.5 s for a minute, then
// every 5 s for five more: a busy judge may take that long), then show
// the page with it.
const awaiting = document.querySelector("[data-await-verdict]");
if (awaiting) {
  const id = awaiting.dataset.job;
  let tries = 0;
  const look = async () => {
    const res = await api("GET", "/api/toolkit/judge/verdicts?jobIds=" + encodeURIComponent(id));
    if (res.ok && res.data.verdicts.length) return location.reload();
    if (++tries < 100) setTimeout(look, tries < 40 ? 1500 : 5000);
  };
  setTimeout(look, 800);
}

// The runs page follows every job and shows their new states.
const runs = document.querySelector("[data-follow-all]");
if (runs) {
  let timer = 0;
  follow((msg) => {
    if (msg.type !== "job") return;
    clearTimeout(timer);
    timer = setTimeout(() => location.reload(), 800);
  });
}
