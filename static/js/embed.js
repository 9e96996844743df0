// An embedded chart (/embed/.../): the one chart of the page, drawn as on the study and trends pages.
"use strict";

document.addEventListener("DOMContentLoaded", function () {
  window.benchdashCharts.drawAll(document);
});
