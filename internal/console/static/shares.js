import { api } from "./console.js";

// The answers arrive while the page is open: read the list again every
// few seconds and write each link's counts.
const table = document.getElementById("shares");
if (table) {
  const read = async () => {
    if (!document.hidden) {
      const res = await api("GET", "/api/share");
      if (res.ok) {
        for (const s of res.data.shares) {
          const row = table.querySelector(`tr[data-share="${s.id}"]`);
          if (!row) continue;
          for (const k of ["answered", "kept", "passed"]) row.querySelector(`[data-field="${k}"]`).textContent = s[k];
        }
      }
    }
    setTimeout(read, 3000);
  };
  setTimeout(read, 3000);
}
