import { api, refreshBalance, say } from "./console.js";

// /billing/done: watch the house's holdings until the checkout is no
// longer open (the provider's signed delivery landed), for up to two
// minutes, then show what the newest order credited and the balance.
const done = document.getElementById("done");
if (done) {
  const id = done.dataset.checkout;
  const watch = document.getElementById("watch");
  const began = Date.now();
  const tick = async () => {
    const res = await api("GET", "/api/toolkit/entitlements");
    if (res.ok && !res.data.checkouts.some((c) => c.id === id)) {
      const b = await refreshBalance();
      if (b) document.getElementById("now").textContent = b.balance;
      const e = res.data.entitlements[0];
      say(watch, e ? `The payment landed: +${e.tokens} tokens (${e.kind}).` : "This checkout is not open; nothing is waiting.");
      return;
    }
    if (Date.now() - began > 120000) {
      say(watch, "No confirmation yet. The Money page shows the balance once the provider confirms.");
      return;
    }
    setTimeout(tick, 1500);
  };
  tick();
}
