// plotly's own words (the toolbar's tooltips, month names, date formats) in the page's language: the locale files
// loaded before this script (static/vendor/plotly-locale-ja.js, from plotly.js 4.1.1's dist/) register theirs, and
// every chart of the page then uses the one its <html lang> names; English needs none.
"use strict";

(function () {
  var language = document.documentElement.lang;
  if (window.Plotly && language && language !== "en") {
    window.Plotly.setPlotConfig({ locale: language });
  }
})();
