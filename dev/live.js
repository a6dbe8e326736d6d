// make dev's live reload: served only by the dev program, never built into the site. It reloads the page after
// each good build, and shows a failed build's errors over the page (the previous good build keeps serving).
(() => {
  const id = "twofold-dev-overlay";
  function overlay(text) {
    let el = document.getElementById(id);
    if (!text) {
      if (el) el.remove();
      return;
    }
    if (!el) {
      el = document.createElement("div");
      el.id = id;
      el.setAttribute("role", "alert");
      el.style.cssText = "position:fixed;inset:0;z-index:2147483647;background:rgba(20,20,20,.92);color:#fff;" +
        "font:14px/1.5 ui-monospace,monospace;padding:2rem;overflow:auto;white-space:pre-wrap";
      document.body.appendChild(el);
    }
    el.textContent = "The build failed; the page shows the last good build.\n\n" + text;
  }
  const events = new EventSource("/__twofold/events");
  events.addEventListener("reload", () => location.reload());
  events.addEventListener("failed", (e) => overlay(e.data));
  events.addEventListener("ok", () => overlay(""));
})();
