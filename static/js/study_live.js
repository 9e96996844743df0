// The live panel of a study: polls the progress JSON every 2 s and keeps the panel and the title's status badge
// current; when a trial finishes (or the study ends) it re-fetches the page and swaps in the new results, redrawing
// the charts with Plotly.react, without reloading the page. Stylesheets live in <head> and are never touched.
"use strict";

(function () {
  var POLL_MS = 2000;
  var panel = document.getElementById("study-live");
  if (!panel) {
    return;
  }
  // The results the page was drawn with: a trial that finishes before the first poll still brings its results in.
  var shownKey = panel.dataset.resultsKey;

  function duration(seconds) {
    if (seconds === null || seconds === undefined) {
      return "—";
    }
    var total = Math.round(seconds);
    var hours = Math.floor(total / 3600);
    var minutes = Math.floor((total % 3600) / 60);
    var secs = total % 60;
    var pad = function (value) { return String(value).padStart(2, "0"); };
    return (hours ? hours + ":" + pad(minutes) : String(minutes)) + ":" + pad(secs);
  }

  function setText(name, text) {
    var element = panel.querySelector('[data-live="' + name + '"]');
    if (element) {
      element.textContent = text;
    }
  }

  function describe(current) {
    if (!current) {
      return panel.dataset.labelNone;
    }
    return "#" + current.position + " " + current.build + " · " + current.scenario + " · c=" + current.clients +
      " · r=" + current.repetition + (current.attempt > 1 ? " (×" + current.attempt + ")" : "");
  }

  function show(progress) {
    setText("status_label", progress.status_label);
    document.querySelectorAll("[data-study-status]").forEach(function (badge) {
      badge.textContent = progress.status_label;
      badge.className = "badge " + progress.status;
    });
    panel.querySelector('[data-live="status_label"]').className = "badge " + progress.status;
    setText("finished", progress.finished);
    setText("total", progress.total);
    setText("failed", progress.failed);
    setText("current", progress.ended ? panel.dataset.labelNone : describe(progress.current));
    setText("elapsed", duration(progress.elapsed_s));
    setText("remaining", progress.ended ? "—" : duration(progress.remaining_s));
    var bar = panel.querySelector('[data-live="bar"]');
    bar.style.width = progress.percent + "%";
    bar.className = "progress-bar " + progress.status; // a failed study's bar is red, a cancelled one's grey
    panel.querySelector(".progress").setAttribute("aria-valuenow", progress.percent);
    var cancel = panel.querySelector('[data-live="cancel"]');
    if (cancel) {
      cancel.hidden = progress.ended;
    }
    showWaits(progress.waiting || []);
    var failure = panel.querySelector('[data-live="failure_reason"]');
    failure.hidden = !progress.failure_reason;
    failure.querySelector("span").textContent = progress.failure_reason || "";
    var retry = panel.querySelector('[data-live="retry"]');
    if (retry) {
      retry.hidden = !(progress.failed > 0);
    }
  }

  // "Waiting for host X since ...", one line per host an attempt waits for; "Host X busy with another benchdash
  // installation (id) since ..." where the next trial waits for another installation's to end.
  function showWaits(waits) {
    var box = panel.querySelector('[data-live="waiting"]');
    box.replaceChildren.apply(box, waits.map(function (wait) {
      var line = document.createElement("p");
      var label = wait.busy_with ? box.dataset.labelBusy : box.dataset.label;
      line.className = "notice";
      line.textContent = label.replace("{host}", wait.host).replace("{installation}", wait.busy_with)
        .replace("{since}", new Date(wait.since).toLocaleString());
      return line;
    }));
  }

  // The page's content under <main>, without the live panel, scripts and stylesheets, which stay as they are.
  function contentOf(main) {
    return Array.prototype.filter.call(main.children, function (child) {
      return child.id !== "study-live" && child.tagName !== "SCRIPT" && child.tagName !== "LINK" && child.tagName !== "STYLE";
    });
  }

  // Swap in the fresh content; a chart already drawn keeps its element (moved into the fresh content) and is
  // redrawn in place with Plotly.react, so the page neither flickers nor jumps.
  function refreshResults(newDoc) {
    var main = document.querySelector("main.page");
    var newMain = newDoc.querySelector("main.page");
    if (!main || !newMain) {
      return;
    }
    var drawn = {};
    main.querySelectorAll(".js-plotly-plot[data-figure]").forEach(function (chart) { drawn[chart.dataset.figure] = chart; });
    var fresh = contentOf(newMain).map(function (child) { return document.importNode(child, true); });
    fresh.forEach(function (child) {
      child.querySelectorAll("[data-figure]").forEach(function (placeholder) {
        var kept = drawn[placeholder.dataset.figure];
        if (kept) { placeholder.replaceWith(kept); }
      });
    });
    contentOf(main).forEach(function (child) { child.remove(); });
    fresh.forEach(function (child) { main.appendChild(child); });
    if (window.benchdashCharts) { window.benchdashCharts.drawAll(main); }
  }

  function fetchPage() {
    return fetch(window.location.href, { headers: { "X-Requested-With": "fetch" }, credentials: "same-origin" })
      .then(function (response) { return response.text(); })
      .then(function (html) { refreshResults(new DOMParser().parseFromString(html, "text/html")); });
  }

  function poll() {
    fetch(panel.dataset.progressUrl, { credentials: "same-origin" })
      .then(function (response) { return response.json(); })
      .then(function (progress) {
        show(progress);
        var changed = progress.results_key !== shownKey;
        shownKey = progress.results_key;
        // Polled until settled: a cancelled study's running trial stops after the study, and its row follows.
        var next = progress.settled ? null : window.setTimeout(poll, POLL_MS);
        if (changed) {
          return fetchPage();
        }
        return next;
      })
      .catch(function () { window.setTimeout(poll, POLL_MS * 2); });
  }

  // Cancel asks first (data-confirm on the form).
  panel.addEventListener("submit", function (event) {
    var message = event.target.dataset.confirm;
    if (message && !window.confirm(message)) {
      event.preventDefault();
    }
  });

  poll();
})();
