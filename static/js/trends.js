// The trends page: the version index and each study's curves.
"use strict";

document.addEventListener("DOMContentLoaded", function () {
  window.benchdashCharts.drawAll(document);
});
