// plotly's own words (the toolbar's tooltips, month names, date formats) in the page's language: the locale files
// loaded before this script (static/vendor/plotly-locale-ja.js, from plotly.js 4.1.1's dist/) register theirs, and
// every chart of the page then uses the one its <html lang> names; English needs none.
// CORRECTIONS win over the vendored file's words, which stays as shipped: its ja calls Pan 拡大, as Zoom in.
"use strict";

(function () {
  var CORRECTIONS = { ja: { dictionary: { Pan: "移動" } } };
  var language = document.documentElement.lang;
  if (window.Plotly && language && language !== "en") {
    window.Plotly.setPlotConfig({ locale: language, locales: CORRECTIONS });
  }
})();
