// The study page: one TPS-vs-clients chart per scenario. The live panel (study_live.js) redraws them with Plotly.react.
"use strict";

document.addEventListener("DOMContentLoaded", function () {
  window.benchdashCharts.drawAll(document);
});
