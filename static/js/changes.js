// The changes pages: each series' chart with its changes marked, and a minor series' TPS per minor.
"use strict";

document.addEventListener("DOMContentLoaded", function () {
  window.benchdashCharts.drawAll(document);
});
