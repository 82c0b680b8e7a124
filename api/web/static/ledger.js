// Progressive enhancement of the turn page: keyboard stepping (n / p / arrows, j to jump) and
// in-place stepping (the server renders the same HTML with ?partial=1; links keep working without it).
(function () {
  "use strict";

  function turnEl() { return document.getElementById("turn"); }

  function load(url, push) {
    var partial = url + (url.indexOf("?") < 0 ? "?" : "&") + "partial=1";
    return fetch(partial, { credentials: "same-origin", headers: { "Accept": "text/html" } })
      .then(function (r) {
        if (!r.ok || r.redirected) { window.location.href = url; return; }
        return r.text().then(function (html) {
          document.getElementById("main").innerHTML = html;
          if (push) { history.pushState({ url: url }, "", url); }
          var cur = document.querySelector("#timeline li.current");
          if (cur && cur.scrollIntoView) { cur.scrollIntoView({ block: "nearest" }); }
        });
      })
      .catch(function () { window.location.href = url; });
  }

  function go(id) {
    var a = document.getElementById(id);
    if (a) { load(a.getAttribute("href"), true); }
  }

  document.addEventListener("click", function (ev) {
    var a = ev.target.closest && ev.target.closest("a");
    if (!a || !turnEl() || ev.ctrlKey || ev.metaKey || ev.shiftKey) { return; }
    if (a.closest(".stepper") || a.closest("#timeline")) {
      var href = a.getAttribute("href");
      if (href && href.indexOf(turnEl().dataset.base) === 0) { ev.preventDefault(); load(href, true); }
    }
  });

  document.addEventListener("submit", function (ev) {
    if (ev.target.id !== "jump" || !turnEl()) { return; }
    ev.preventDefault();
    var step = document.getElementById("jump-step").value;
    load(turnEl().dataset.base + "?step=" + encodeURIComponent(step), true);
  });

  document.addEventListener("keydown", function (ev) {
    if (!turnEl() || ev.altKey || ev.ctrlKey || ev.metaKey) { return; }
    var tag = (ev.target.tagName || "").toLowerCase();
    if (tag === "input" || tag === "textarea" || tag === "select") { return; }
    if (ev.key === "n" || ev.key === "ArrowRight") { ev.preventDefault(); go("next"); }
    else if (ev.key === "p" || ev.key === "ArrowLeft") { ev.preventDefault(); go("prev"); }
    else if (ev.key === "j") {
      ev.preventDefault();
      var input = document.getElementById("jump-step");
      if (input) { input.focus(); input.select(); }
    }
  });

  // An error page's "back" (no inline script: the pages' Content-Security-Policy forbids it); without script,
  // the link leads to the campaigns.
  document.addEventListener("click", function (ev) {
    var a = ev.target.closest && ev.target.closest("a[data-back]");
    if (a && history.length > 1) { ev.preventDefault(); history.back(); }
  });

  // A login link a game master handed out (/ui/login#token=...): the token sits after "#", which the browser
  // never sends to the server; fill the form with it and take it out of the address bar and the history.
  (function () {
    var input = document.getElementById("token");
    var m = /^#token=([A-Za-z0-9_\-]+)$/.exec(window.location.hash);
    if (input && m) {
      input.value = m[1];
      history.replaceState(null, "", window.location.pathname + window.location.search);
    }
  })();

  window.addEventListener("popstate", function () {
    if (turnEl()) { load(window.location.pathname + window.location.search, false); }
  });
})();
