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

  // The map's pan and zoom (the turn page's map, and the one a step loads in place): the wheel or the + / −
  // buttons zoom, dragging moves it, "whole map" goes back; only the SVG's viewBox changes, nothing is fetched.
  // A drag that moved is not a click: the place under it does not open.
  document.documentElement.classList.add("js");
  (function () {
    var drag = null, dragged = false;
    function svgIn(el) { var box = el && el.closest && el.closest("#map-svg"); return box ? box.querySelector("svg") : null; }
    function nums(text) { return text.split(/[\s,]+/).map(Number); }
    function box(svg) {
      if (!svg.dataset.home) { svg.dataset.home = svg.getAttribute("viewBox"); }
      return nums(svg.getAttribute("viewBox"));
    }
    function show(svg, v) { svg.setAttribute("viewBox", v.map(function (x) { return x.toFixed(2); }).join(" ")); }
    function zoom(svg, factor, cx, cy) {
      var v = box(svg), home = nums(svg.dataset.home);
      var w = Math.min(home[2], Math.max(home[2] / 32, v[2] * factor)), k = w / v[2];
      show(svg, [cx - (cx - v[0]) * k, cy - (cy - v[1]) * k, w, v[3] * k]);
    }
    function at(svg, ev) {
      var r = svg.getBoundingClientRect(), v = box(svg);
      return [v[0] + (ev.clientX - r.left) / r.width * v[2], v[1] + (ev.clientY - r.top) / r.height * v[3]];
    }
    document.addEventListener("wheel", function (ev) {
      var svg = svgIn(ev.target);
      if (!svg || ev.ctrlKey) { return; }
      ev.preventDefault();
      var p = at(svg, ev);
      zoom(svg, ev.deltaY < 0 ? 0.8 : 1.25, p[0], p[1]);
    }, { passive: false });
    document.addEventListener("pointerdown", function (ev) {
      var svg = svgIn(ev.target);
      if (!svg || ev.button !== 0) { return; }
      drag = { svg: svg, x: ev.clientX, y: ev.clientY, v: box(svg), moved: false };
    });
    // A place is a link: the browser would drag the link itself (and cancel the pointer) instead of the map.
    document.addEventListener("dragstart", function (ev) { if (svgIn(ev.target)) { ev.preventDefault(); } });
    document.addEventListener("pointermove", function (ev) {
      if (!drag) { return; }
      var dx = ev.clientX - drag.x, dy = ev.clientY - drag.y;
      if (!drag.moved && Math.abs(dx) + Math.abs(dy) < 5) { return; }
      drag.moved = true;
      var r = drag.svg.getBoundingClientRect(), v = drag.v;
      show(drag.svg, [v[0] - dx / r.width * v[2], v[1] - dy / r.height * v[3], v[2], v[3]]);
    });
    document.addEventListener("pointerup", function () { dragged = !!(drag && drag.moved); drag = null; });
    document.addEventListener("click", function (ev) {
      if (dragged && svgIn(ev.target)) { ev.preventDefault(); ev.stopPropagation(); }
      dragged = false;
      var b = ev.target.closest && ev.target.closest("[data-map-zoom]");
      var svg = b && document.querySelector("#map-svg svg");
      if (!svg) { return; }
      var v = box(svg);
      if (b.dataset.mapZoom === "home") { show(svg, nums(svg.dataset.home)); }
      else { zoom(svg, b.dataset.mapZoom === "in" ? 0.5 : 2, v[0] + v[2] / 2, v[1] + v[3] / 2); }
    }, true);
  })();

  window.addEventListener("popstate", function () {
    if (turnEl()) { load(window.location.pathname + window.location.search, false); }
  });
})();
