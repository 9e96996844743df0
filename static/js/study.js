// The study, trial and report pages: draw every chart. On a running study the live panel (study_live.js) redraws
// them with Plotly.react as trials finish.
"use strict";

document.addEventListener("DOMContentLoaded", function () {
  window.benchdashCharts.drawAll(document);
});
