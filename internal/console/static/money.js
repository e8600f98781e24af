import { refreshBalance, say } from "./console.js";

// /billing/done: watch the balance until the provider's signed delivery
// has landed (the balance moves), for up to two minutes.
const done = document.getElementById("done");
if (done) {
  const start = Number(done.dataset.start || 0);
  const watch = document.getElementById("watch");
  const began = Date.now();
  const tick = async () => {
    const b = await refreshBalance();
    if (b) document.getElementById("now").textContent = b.balance;
    if (b && b.balance !== start) {
      say(watch, "The payment landed: " + (b.balance - start > 0 ? "+" : "") + (b.balance - start) + " tokens.");
      return;
    }
    if (Date.now() - began > 120000) {
      say(watch, "No confirmation yet. The balance on the Money page updates once the provider confirms.");
      return;
    }
    setTimeout(tick, 1500);
  };
  tick();
}
