import { refreshBalance, say } from "./console.js";

// The library: uploads by drag-and-drop or the picker, several at once,
// each with its progress; and the selection the action bar works on.

const drop = document.getElementById("drop");
if (drop) {
  const input = document.getElementById("files");
  const list = document.getElementById("uploads");
  const msg = document.getElementById("upload-msg");
  const kind = document.getElementById("upload-kind");

  // send uploads one file with XMLHttpRequest, whose upload events report
  // progress (fetch does not), and resolves with the API's answer.
  const send = (file, row) =>
    new Promise((resolve) => {
      const form = new FormData();
      form.append("file", file);
      form.append("kind", kind.value);
      if (drop.dataset.folder) form.append("folderId", drop.dataset.folder);
      const xhr = new XMLHttpRequest();
      const bar = row.querySelector("progress");
      xhr.upload.addEventListener("progress", (e) => {
        if (e.lengthComputable) bar.value = e.loaded / e.total;
      });
      xhr.addEventListener("load", () => {
        let body = {};
        try {
          body = JSON.parse(xhr.responseText);
        } catch {
          /* not JSON */
        }
        const ok = xhr.status === 201;
        bar.value = 1;
        row.querySelector("span").textContent = file.name + (ok ? ": uploaded" : ": " + (body.message || "refused (" + xhr.status + ")"));
        row.dataset.state = ok ? "done" : "failed";
        resolve(ok);
      });
      xhr.addEventListener("error", () => {
        row.querySelector("span").textContent = file.name + ": the studio cannot be reached";
        row.dataset.state = "failed";
        resolve(false);
      });
      xhr.open("POST", "/api/toolkit/assets/upload");
      xhr.setRequestHeader("Accept", "application/json");
      xhr.send(form);
    });

  const upload = async (files) => {
    files = [...files].filter((f) => f.size > 0);
    if (!files.length) return;
    const rows = files.map((f) => {
      const li = document.createElement("li");
      const name = document.createElement("span");
      name.textContent = f.name;
      const bar = document.createElement("progress");
      bar.max = 1;
      bar.value = 0;
      bar.setAttribute("aria-label", "Uploading " + f.name);
      li.append(name, bar);
      list.append(li);
      return li;
    });
    say(msg, "Uploading " + files.length + (files.length === 1 ? " file…" : " files…"));
    let done = 0;
    let ok = 0;
    // Two at a time: the server decodes each image; more would only queue.
    const queue = files.map((f, i) => [f, rows[i]]);
    const worker = async () => {
      for (let item; (item = queue.shift()); ) {
        if (await send(...item)) ok++;
        done++;
        say(msg, done + " of " + files.length + " done");
      }
    };
    await Promise.all([worker(), worker()]);
    say(msg, ok + " of " + files.length + " uploaded" + (ok < files.length ? "; see the refusals above." : "."), ok < files.length);
    refreshBalance();
    if (ok > 0) setTimeout(() => location.reload(), ok < files.length ? 2500 : 400);
  };

  input.addEventListener("change", () => upload(input.files));
  for (const type of ["dragenter", "dragover"]) {
    drop.addEventListener(type, (e) => {
      e.preventDefault();
      drop.classList.add("over");
    });
  }
  drop.addEventListener("dragleave", (e) => {
    if (!drop.contains(e.relatedTarget)) drop.classList.remove("over");
  });
  drop.addEventListener("drop", (e) => {
    e.preventDefault();
    drop.classList.remove("over");
    upload(e.dataTransfer.files);
  });
}
