// What every console page does: act through the studio's API from forms
// and buttons that name their route (data-api="METHOD /path"), show the
// API's own answer, keep the balance in the bar fresh, and follow the job
// socket where a page shows work in progress. Nothing here decides what
// is allowed: the API answers, the page shows the answer.

// api calls the API from the page: same origin, the session cookie.
export async function api(method, path, body) {
  const init = { method, credentials: "same-origin", headers: { Accept: "application/json" } };
  if (body instanceof FormData) {
    init.body = body;
  } else if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  let res;
  try {
    res = await fetch(path, init);
  } catch {
    return { ok: false, status: 0, data: { message: "The studio cannot be reached. Check the connection and try again." } };
  }
  let data = {};
  if ((res.headers.get("Content-Type") || "").includes("json")) data = (await res.json().catch(() => null)) || {};
  if (res.status === 401 && data.error === "UNAUTHORIZED") {
    location.assign("/sign-in?next=" + encodeURIComponent(location.pathname + location.search));
  }
  return { ok: res.ok, status: res.status, data };
}

// say shows a message in a live region: polite for news, an alert for a refusal.
export function say(el, text, bad) {
  if (!el) return;
  el.textContent = text || "";
  el.classList.toggle("bad", !!bad);
  el.classList.toggle("ok", !bad && !!text);
  el.setAttribute("role", bad ? "alert" : "status");
}

// refusal is the API's own sentence for an answer that is not 2xx.
export function refusal(res) {
  return res.data.message || "The studio refused this (" + res.status + ").";
}

function setPath(obj, name, value) {
  const parts = name.split(".");
  let o = obj;
  for (const p of parts.slice(0, -1)) o = o[p] ??= {};
  o[parts[parts.length - 1]] = value;
}

// formBody reads a form's named fields as a JSON body. Empty fields are
// left out; data-type on a field reads it as a number, a list (comma
// separated, or every checked box of the name), JSON or a boolean;
// dotted names nest ("background.kind").
export function formBody(form) {
  const body = {};
  for (const el of form.elements) {
    if (!el.name || el.disabled || el.type === "submit" || el.type === "button" || el.type === "file") continue;
    const type = el.dataset.type;
    let v;
    if (el.type === "checkbox" && type === "list") {
      const list = body[el.name] ?? [];
      if (el.checked) list.push(el.value);
      body[el.name] = list;
      continue;
    } else if (el.type === "checkbox") {
      v = el.checked;
    } else if (el.type === "radio") {
      if (!el.checked) continue;
      v = el.value;
    } else {
      v = el.value;
      if (v === "" && !("keep" in el.dataset)) continue;
      if (el.type === "number" || type === "number") v = Number(v);
      else if (type === "list") v = v.split(",").map((s) => s.trim()).filter(Boolean);
      else if (type === "json") v = JSON.parse(v);
      else if (type === "bool") v = v === "true";
    }
    setPath(body, el.name, v);
  }
  return body;
}

function dig(obj, path) {
  return path.split(".").reduce((o, k) => (o == null ? undefined : o[k]), obj);
}

// fill writes an answer's fields into [data-field] elements of a target.
export function fill(target, data) {
  for (const el of target.querySelectorAll("[data-field]")) {
    const v = dig(data, el.dataset.field);
    if ("value" in el && el.tagName !== "BUTTON") el.value = v ?? "";
    else el.textContent = v ?? "";
  }
}

// then does what an element's data-then asks once the API accepted:
// reload, stay, go:/path/{field} (fields of the answer), show:#id (fill
// and reveal a panel, e.g. a secret shown once), open:field (go to the
// address the answer names, e.g. a checkout) or event:name.
function then(el, data) {
  const how = el.dataset.then || "reload";
  if (how === "stay") return;
  if (how === "reload") return location.reload();
  if (how.startsWith("go:")) {
    return location.assign(how.slice(3).replace(/\{([\w.]+)\}/g, (_, k) => encodeURIComponent(dig(data, k) ?? "")));
  }
  if (how.startsWith("show:")) {
    const target = document.querySelector(how.slice(5));
    fill(target, data);
    target.hidden = false;
    target.querySelector("[data-focus]")?.focus();
  }
  if (how.startsWith("open:")) return location.assign(dig(data, how.slice(5))); // a provider's page the API named
  if (how.startsWith("event:")) el.dispatchEvent(new CustomEvent(how.slice(6), { bubbles: true, detail: data }));
}

function msgFor(el) {
  if (el.dataset.msg) return document.querySelector(el.dataset.msg);
  return el.querySelector?.("[data-msg]") || el.closest("[data-msgs]")?.querySelector("[data-msg]");
}

function route(el) {
  const [method, path] = el.dataset.api.split(" ");
  return { method, path };
}

// arm makes a destructive button ask once: the first press turns it into
// its question, the second within five seconds acts.
function armed(btn) {
  if (!btn.dataset.confirm) return true;
  if (btn.dataset.armed) return true;
  btn.dataset.label = btn.textContent;
  btn.dataset.armed = "1";
  btn.textContent = btn.dataset.confirm;
  setTimeout(() => {
    if (!btn.dataset.armed) return;
    delete btn.dataset.armed;
    btn.textContent = btn.dataset.label;
  }, 5000);
  return false;
}

async function act(el, method, path, body, busy) {
  const msg = msgFor(el);
  busy.setAttribute("aria-busy", "true");
  busy.disabled = true;
  say(msg, "");
  const res = await api(method, path, body);
  busy.removeAttribute("aria-busy");
  busy.disabled = false;
  if (!res.ok) {
    say(msg, refusal(res), true);
    return null;
  }
  if (el.dataset.done) say(msg, el.dataset.done);
  then(el, res.data);
  return res.data;
}

document.addEventListener("submit", (e) => {
  const form = e.target.closest("form[data-api]");
  if (!form) return;
  e.preventDefault();
  const { method, path } = route(form);
  const btn = e.submitter || form.querySelector("[type=submit]") || form;
  if (btn.dataset && !armed(btn)) return;
  act(form, method, path, method === "GET" || method === "DELETE" ? undefined : formBody(form), btn);
});

document.addEventListener("click", (e) => {
  const btn = e.target.closest("button[data-api]");
  if (!btn || btn.form?.dataset.api) return;
  if (!armed(btn)) return;
  const { method, path } = route(btn);
  const body = btn.dataset.body ? JSON.parse(btn.dataset.body) : method === "POST" ? {} : undefined;
  act(btn, method, path, body, btn);
});

// Copy buttons: data-copy names the element whose text or value is copied.
document.addEventListener("click", async (e) => {
  const btn = e.target.closest("button[data-copy]");
  if (!btn) return;
  const src = document.querySelector(btn.dataset.copy);
  const text = src.value ?? src.textContent;
  try {
    await navigator.clipboard.writeText(text);
    say(msgFor(btn), "Copied.");
  } catch {
    if (src.select) src.select();
    say(msgFor(btn), "Select the text and copy it.");
  }
});

// The balance in the bar.
export async function refreshBalance() {
  const el = document.getElementById("balance");
  if (!el) return null;
  const res = await api("GET", "/api/toolkit/ai/billing/balance");
  if (res.ok) {
    el.querySelector("b").textContent = res.data.balance;
    el.dataset.balance = res.data.balance;
  }
  return res.ok ? res.data : null;
}

// The job socket: one per page, opened when a page asks to follow jobs.
// After a reconnect the events missed are read back with ?since=.
const followers = new Set();
let socket = null;
let lastSeq = 0;
let retry = 1000;
let replayAll = false; // read every job back when the socket opens

function deliver(msg) {
  if (msg.type === "job" && msg.job) lastSeq = Math.max(lastSeq, msg.job.eventSeq || 0);
  for (const f of followers) f(msg);
}

function connect() {
  if (socket) return;
  socket = new WebSocket((location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/api/toolkit/jobs/ws");
  socket.addEventListener("open", async () => {
    retry = 1000;
    if (lastSeq > 0 || replayAll) { // what changed while the socket was closed (or before it opened)
      replayAll = false;
      const res = await api("GET", "/api/toolkit/jobs?since=" + lastSeq);
      if (res.ok) for (const job of res.data.jobs) deliver({ type: "job", job });
    }
  });
  socket.addEventListener("message", (e) => {
    try {
      deliver(JSON.parse(e.data));
    } catch {
      /* not ours */
    }
  });
  socket.addEventListener("close", () => {
    socket = null;
    setTimeout(connect, retry);
    retry = Math.min(retry * 2, 30000);
  });
}

// follow calls fn with every message of the job socket.
export function follow(fn, since) {
  if (since && since > lastSeq) lastSeq = since;
  followers.add(fn);
  connect();
}

// Elements that show a job (data-job="<id>") follow it: their
// [data-job-status] says its state; data-reload reloads the page once
// the job has settled, so the server shows the result.
// data-seq is the job's eventSeq when the page was rendered: a change the
// socket carried before it opened is read back from there.
// A page showing work in flight without its cursor (a look's frames) reads
// every job's latest state once the socket is open (since=0).
const shown = document.querySelectorAll("[data-job]");
if (shown.length) {
  const seqs = [...shown].map((el) => Number(el.dataset.seq || 0)).filter((n) => n > 0);
  if (document.querySelector("[data-reload]:not([data-seq])")) {
    seqs.length = 0;
    replayAll = true;
  }
  follow((msg) => {
    if (msg.type !== "job") return;
    for (const el of document.querySelectorAll(`[data-job="${msg.job.id}"]`)) {
      el.dataset.state = msg.job.status;
      const s = el.querySelector("[data-job-status]");
      if (s) s.textContent = msg.job.status;
      if ("reload" in el.dataset && ["done", "failed", "cancelled"].includes(msg.job.status)) setTimeout(() => location.reload(), 300);
    }
    if (["done", "failed", "cancelled"].includes(msg.job.status)) refreshBalance();
  }, seqs.length ? Math.min(...seqs) : 0);
}

// The selection: every checked frame rides in the action bar's forms.
const grid = document.getElementById("grid");
const bar = document.getElementById("selection");
if (grid && bar) {
  const update = () => {
    const ids = [...grid.querySelectorAll('input[name="pick"]:checked')].map((i) => i.value);
    for (const el of bar.querySelectorAll("[data-picked]")) el.value = JSON.stringify(ids);
    bar.hidden = ids.length === 0;
    document.getElementById("picked").textContent = ids.length + " selected";
    const dev = document.getElementById("develop-picked");
    if (dev) dev.href = "/develop?image=" + encodeURIComponent(ids[0] || "");
  };
  grid.addEventListener("change", update);
  update();
}
