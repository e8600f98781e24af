import { api, refusal, say } from "./console.js";

// Looks: composing one (its pieces each with a role), the factory's plan
// and run, a destination's custom size, and the reviewers' marks arriving
// on the contact sheet.

const compose = document.getElementById("compose");
compose?.addEventListener("submit", async (e) => {
  e.preventDefault();
  const msg = document.getElementById("compose-msg");
  const [kind, value] = compose.elements.background.value.split(":");
  const body = {
    name: compose.elements.name.value.trim(),
    modelAssetId: compose.querySelector('input[name="model"]:checked')?.value || "",
    itemAssetIds: [...compose.querySelectorAll('input[name="piece"]:checked')].map((c) => ({
      assetId: c.value,
      role: compose.querySelector(`select[data-role-for="${c.value}"]`).value,
    })),
    background: kind === "asset" ? { kind, assetId: value } : { kind, value },
    aesthetic: compose.elements.aesthetic.value,
  };
  const res = await api("POST", "/api/toolkit/lookbook/looks", body);
  if (!res.ok) {
    say(msg, refusal(res), true);
    return;
  }
  location.assign("/looks/" + encodeURIComponent(res.data.look.id));
});

// The factory: plan (reads only), then create the planned looks as drafts.
const plan = document.getElementById("plan");
if (plan) {
  let planned = null;
  const out = document.getElementById("planned");
  plan.addEventListener("submit", async (e) => {
    e.preventDefault();
    const msg = document.getElementById("plan-msg");
    const body = {
      assetIds: [...plan.querySelectorAll('input[name="piece"]:checked')].map((c) => c.value),
      quality: plan.elements.quality.value,
    };
    if (plan.elements.model.value) body.assetIds.push(plan.elements.model.value); // the plan casts a model among the assets
    const res = await api("POST", "/api/toolkit/factory/plan", body);
    if (!res.ok) {
      say(msg, refusal(res), true);
      out.hidden = true;
      return;
    }
    say(msg, "");
    planned = res.data;
    const list = document.getElementById("planned-looks");
    list.replaceChildren(
      ...planned.looks.map((l) => {
        const li = document.createElement("li");
        li.textContent = `${l.name}: ${l.itemAssetIds.length} piece(s)`;
        return li;
      }),
    );
    const c = planned.cost;
    document.getElementById("planned-cost").textContent =
      `${planned.looks.length} look(s), ${c.frames} frames at ${c.quality}: ${c.total} tokens when developed (${planned.balance} spendable now).` +
      (planned.truncated ? " More pieces than 20 looks: the rest are left out." : "") +
      (planned.modelReady ? "" : " Choose a model first.");
    out.hidden = false;
    document.getElementById("run").focus();
  });
  document.getElementById("run").addEventListener("click", async () => {
    const msg = document.getElementById("run-msg");
    const model = plan.elements.model.value || planned.preset.modelAssetId;
    const keys = [...plan.querySelectorAll('input[name="keys"]:checked')].map((c) => c.value);
    const body = {
      looks: planned.looks.map((l) => ({
        name: l.name,
        itemAssetIds: l.itemAssetIds,
        background: l.background,
        variationKeys: keys.length ? keys : l.variationKeys,
      })),
      quality: planned.cost.quality,
    };
    if (model) body.modelAssetId = model;
    const res = await api("POST", "/api/toolkit/factory/run", body);
    if (!res.ok) {
      say(msg, refusal(res), true);
      return;
    }
    location.assign("/looks");
  });
}

// A custom destination takes a width and a height.
for (const sel of document.querySelectorAll("select[data-output]")) {
  const show = () => {
    for (const f of sel.closest("form").querySelectorAll("[data-custom]")) {
      f.hidden = sel.value !== "custom";
      f.querySelector("input").disabled = sel.value !== "custom";
    }
  };
  sel.addEventListener("change", show);
  show();
}

// The reviewers' marks arrive while the page is open: read them again
// every few seconds and write each frame's line.
const marked = [...document.querySelectorAll("[data-marks-for]")];
if (marked.length) {
  const ids = marked.map((el) => el.dataset.marksFor);
  const render = (el, marks) => {
    el.replaceChildren();
    for (const m of marks) {
      const who = document.createElement("span");
      who.textContent = (m.recipientLabel || "Reviewer") + ": ";
      const v = document.createElement("span");
      v.className = m.verdict ? "mark-" + m.verdict : "";
      v.textContent = m.verdict || "no mark";
      el.append(who, v, m.note ? " “" + m.note + "” " : " ");
    }
  };
  const read = async () => {
    if (!document.hidden) {
      const res = await api("GET", "/api/toolkit/share-marks?assetIds=" + encodeURIComponent(ids.join(",")));
      if (res.ok) {
        for (const el of marked) render(el, res.data.marks.filter((m) => m.assetId === el.dataset.marksFor));
      }
    }
    setTimeout(read, 3000);
  };
  setTimeout(read, 3000);
}
