// The live panel of a study: polls the progress JSON every 2 s; when a trial finishes it re-fetches the page and
// swaps in the new tables, redrawing the charts with Plotly.react, without reloading the page.
"use strict";

(function () {
  var POLL_MS = 2000;
  var panel = document.getElementById("study-live");
  if (!panel) {
    return;
  }
  var lastKey = null;

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
    panel.querySelector('[data-live="status_label"]').className = "badge " + progress.status;
    setText("finished", progress.finished);
    setText("total", progress.total);
    setText("failed", progress.failed);
    setText("current", describe(progress.current));
    setText("elapsed", duration(progress.elapsed_s));
    setText("remaining", progress.ended ? "—" : duration(progress.remaining_s));
    panel.querySelector('[data-live="bar"]').style.width = progress.percent + "%";
    panel.querySelector(".progress").setAttribute("aria-valuenow", progress.percent);
    var cancel = panel.querySelector('[data-live="cancel"]');
    if (cancel) {
      cancel.hidden = progress.ended;
    }
    var retry = panel.querySelector('[data-live="retry"]');
    if (retry) {
      retry.hidden = !(progress.failed > 0);
    }
  }

  function redrawChart(oldChart, newDoc) {
    var source = newDoc.getElementById(oldChart.dataset.figure);
    var current = document.getElementById(oldChart.dataset.figure);
    if (!source || !current || !window.Plotly) {
      return;
    }
    current.textContent = source.textContent;
    var figure = JSON.parse(source.textContent);
    window.Plotly.react(oldChart, figure.data, figure.layout, window.benchdashCharts.config(oldChart.dataset.pngName));
  }

  function sectionIds(root) {
    return Array.prototype.map.call(root.querySelectorAll(".scenario-section"), function (s) { return s.id; }).join(",");
  }

  // Sections whose scenario is already drawn keep their chart element (Plotly.react); the rest is swapped.
  function refreshResults(newDoc) {
    var main = document.querySelector("main.page");
    var newMain = newDoc.querySelector("main.page");
    if (!main || !newMain) {
      return;
    }
    if (sectionIds(main) !== sectionIds(newMain)) {
      var keep = document.getElementById("study-live");
      Array.prototype.slice.call(main.children).forEach(function (child) {
        if (child !== keep && !child.contains(keep) && child.tagName !== "SCRIPT") { child.remove(); }
      });
      Array.prototype.slice.call(newMain.children).forEach(function (child) {
        if (child.id !== "study-live" && child.tagName !== "SCRIPT" && child.tagName !== "LINK") { main.appendChild(child); }
      });
      if (window.benchdashCharts) { window.benchdashCharts.drawAll(main); }
      return;
    }
    main.querySelectorAll(".scenario-section").forEach(function (section) {
      var fresh = newDoc.getElementById(section.id);
      Array.prototype.slice.call(section.children).forEach(function (child) {
        if (!child.classList.contains("chart") && child.tagName !== "SCRIPT") { child.remove(); }
      });
      Array.prototype.slice.call(fresh.children).forEach(function (child) {
        if (!child.classList.contains("chart") && child.tagName !== "SCRIPT") { section.appendChild(child); }
      });
      section.querySelectorAll("[data-figure]").forEach(function (chart) { redrawChart(chart, newDoc); });
    });
    var trials = document.getElementById("trials");
    var newTrials = newDoc.getElementById("trials");
    if (trials && newTrials) {
      trials.replaceWith(newTrials);
    }
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
        var key = progress.finished + "/" + progress.failed + "/" + progress.cancelled + "/" + progress.status;
        var changed = lastKey !== null && key !== lastKey;
        lastKey = key;
        var next = progress.ended ? null : window.setTimeout(poll, POLL_MS);
        if (changed) {
          return fetchPage();
        }
        return next;
      })
      .catch(function () { window.setTimeout(poll, POLL_MS * 2); });
  }

  poll();
})();
