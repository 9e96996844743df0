// Draws every element with data-figure="ID" from the JSON in <script id="ID" type="application/json">.
"use strict";

window.benchdashCharts = {
  config: function (pngName) {
    return {
      responsive: true,
      displaylogo: false,
      modeBarButtonsToRemove: ["select2d", "lasso2d"],
      toImageButtonOptions: { format: "png", filename: pngName || "benchdash", scale: 2 },
    };
  },

  drawAll: function (root) {
    (root || document).querySelectorAll("[data-figure]").forEach(function (element) {
      var source = document.getElementById(element.dataset.figure);
      if (!source || !window.Plotly) {
        return;
      }
      var figure = JSON.parse(source.textContent);
      window.Plotly.newPlot(element, figure.data, figure.layout, window.benchdashCharts.config(element.dataset.pngName));
    });
  },
};
