// Draws every element with data-figure="ID" from the JSON in <script id="ID" type="application/json">, and exports a
// chart as a 16:9 PNG or SVG that carries its title, the study, the host and the source (#chart-export).
// Nothing here offers to send a chart off the machine: no plotly logo, no "share"/cloud button, no server URL.
"use strict";

window.benchdashCharts = (function () {
  var EXPORT_WIDTH = 1600;
  var EXPORT_HEIGHT = 900; // 16:9
  var CLOUD_BUTTONS = ["sendChartToCloud", "editInChartStudio", "toImage", "select2d", "lasso2d"];
  var DARK = window.matchMedia ? window.matchMedia("(prefers-color-scheme: dark)") : null;
  // plotly.js's own colours, which exports keep whatever the page's: a paper for a report.
  var LIGHT = {
    paper: "#fff", ink: "#444", grid: "#eee", line: "#444", modebar: "rgba(255, 255, 255, 0.5)", icons: "rgba(68, 68, 68, 0.3)",
  };

  function axisNames(layout) {
    return ["xaxis", "yaxis"].concat(Object.keys(layout).filter(function (name) { return /^[xy]axis\d+$/.test(name); }));
  }

  // The layout in the given colours (no figure sets these of its own: benchdash/*/charts.py).
  function coloured(layout, colours) {
    var result = Object.assign({}, layout, {
      paper_bgcolor: colours.paper, plot_bgcolor: colours.paper,
      font: Object.assign({}, layout.font || {}, { color: colours.ink }),
      modebar: { bgcolor: colours.modebar, color: colours.icons, activecolor: colours.ink },
    });
    axisNames(layout).forEach(function (name) {
      result[name] = Object.assign({}, layout[name] || {}, {
        gridcolor: colours.grid, zerolinecolor: colours.line, linecolor: colours.line,
      });
    });
    return result;
  }

  // Under the system's dark setting a chart takes the page's colours (site.css): the page shows through its
  // background, its text and grid in the page's ink and lines.
  function themed(layout) {
    if (!DARK || !DARK.matches) {
      return layout;
    }
    var style = window.getComputedStyle(document.documentElement);
    var ink = style.getPropertyValue("--ink").trim();
    var line = style.getPropertyValue("--line").trim();
    var muted = style.getPropertyValue("--muted").trim();
    return coloured(layout, {
      paper: "rgba(0, 0, 0, 0)", ink: ink, grid: line, line: line, modebar: "rgba(0, 0, 0, 0)", icons: muted,
    });
  }

  function exportInfo() {
    var element = document.getElementById("chart-export");
    return element ? element.dataset : {};
  }

  // The export's title names what the chart shows (data-export-title: scenario, study or trend) and its unit (the y
  // axis title), unless the title already says it.
  function exportTitle(chart) {
    var title = chart.dataset.exportTitle || document.title;
    var yaxis = (chart.layout || {}).yaxis || {};
    var unit = yaxis.title && yaxis.title.text ? yaxis.title.text : "";
    return unit && title.indexOf(unit) < 0 ? title + " · " + unit : title;
  }

  // The legend goes right of the plot, one entry a line, with room for the longest name: never clipped.
  function exportLegend(chart) {
    var longest = (chart.data || []).reduce(function (most, trace) {
      return Math.max(most, String(trace.name || "").length);
    }, 0);
    return { right: Math.min(EXPORT_WIDTH * 0.4, 70 + 10 * longest), legend: {
      orientation: "v", x: 1.01, xanchor: "left", y: 1, yanchor: "top", font: { size: 14 },
    } };
  }

  // A copy of the chart's figure with the title on top and the study, host and source (or the chart's own caption,
  // data-export-caption) under the plot.
  function exportFigure(chart) {
    var info = exportInfo();
    var layout = coloured(JSON.parse(JSON.stringify(chart.layout || {})), LIGHT);
    var lines = [info.captionStudy, info.captionHost, info.captionSource].filter(Boolean);
    if (!lines.length) {
      lines = [chart.dataset.exportCaption || document.title, "benchdash: " + window.location.href];
    }
    var placed = exportLegend(chart);
    layout.title = { text: exportTitle(chart), x: 0.02, xanchor: "left", font: { size: 22 } };
    layout.width = EXPORT_WIDTH;
    layout.height = EXPORT_HEIGHT;
    layout.margin = Object.assign({}, layout.margin || {}, { t: 90, b: 150, r: placed.right });
    if (layout.showlegend !== false) {
      layout.legend = placed.legend;
    }
    layout.annotations = (layout.annotations || []).concat([{
      text: lines.join("<br>"), xref: "paper", yref: "paper", x: 0, y: -0.13, xanchor: "left", yanchor: "top",
      align: "left", showarrow: false, font: { size: 13, color: "#444" },
    }]);
    return { data: chart.data, layout: layout };
  }

  function exportImage(chart, format) {
    var figure = exportFigure(chart);
    var options = { format: format, width: EXPORT_WIDTH, height: EXPORT_HEIGHT, scale: format === "png" ? 2 : 1 };
    return window.Plotly.toImage(figure, options);
  }

  function download(chart, format) {
    return exportImage(chart, format).then(function (url) {
      var link = document.createElement("a");
      link.href = url;
      link.download = (chart.dataset.pngName || "benchdash") + "." + format;
      document.body.appendChild(link);
      link.click();
      link.remove();
    });
  }

  function config(pngName) {
    var info = exportInfo();
    var icons = window.Plotly ? window.Plotly.Icons : {};
    return {
      responsive: true,
      displaylogo: false,
      showSendToCloud: false,
      showEditInChartStudio: false,
      showLink: false,
      plotlyServerURL: "",
      modeBarButtonsToRemove: CLOUD_BUTTONS,
      modeBarButtonsToAdd: [
        { name: "benchdash-png", title: info.labelPng || "PNG", icon: icons.camera, click: function (gd) { download(gd, "png"); } },
        { name: "benchdash-svg", title: info.labelSvg || "SVG", icon: icons.disk, click: function (gd) { download(gd, "svg"); } },
      ],
      toImageButtonOptions: {
        format: "png", filename: pngName || "benchdash", width: EXPORT_WIDTH, height: EXPORT_HEIGHT, scale: 2,
      },
    };
  }

  function figureOf(element) {
    var source = document.getElementById(element.dataset.figure);
    return source ? JSON.parse(source.textContent) : null;
  }

  // A chart's zoom lives in the page's address, one parameter a chart ("z.<figure id>=x0,x1,y0,y1"), so that a
  // link pasted into a report opens the chart as its author saw it; the page's own filters stay in the query.
  function zoomParameter(element) {
    return "z." + element.dataset.figure;
  }

  function zoomOf(element) {
    var text = new URLSearchParams(window.location.search).get(zoomParameter(element));
    var parts = text ? text.split(",") : [];
    if (parts.length !== 4) {
      return null;
    }
    var values = parts.map(function (part) { return part !== "" && isFinite(part) ? Number(part) : part; });
    return { x: values.slice(0, 2), y: values.slice(2, 4) };
  }

  function zoomed(layout, zoom) {
    if (!zoom) {
      return layout;
    }
    return Object.assign({}, layout, {
      xaxis: Object.assign({}, layout.xaxis || {}, { range: zoom.x, autorange: false }),
      yaxis: Object.assign({}, layout.yaxis || {}, { range: zoom.y, autorange: false }),
    });
  }

  function rounded(value) {
    return typeof value === "number" ? String(Math.round(value * 1000) / 1000) : String(value);
  }

  // After a zoom, a pan or a reset (a double click), the address says the chart's range, without a new history entry.
  function rememberZoom(element) {
    var xaxis = (element.layout || {}).xaxis || {};
    var yaxis = (element.layout || {}).yaxis || {};
    var url = new URL(window.location.href);
    if ((xaxis.autorange !== false && yaxis.autorange !== false) || !xaxis.range || !yaxis.range) {
      url.searchParams.delete(zoomParameter(element));
    } else {
      url.searchParams.set(zoomParameter(element), xaxis.range.concat(yaxis.range).map(rounded).join(","));
    }
    window.history.replaceState(window.history.state, "", url.toString());
  }

  // Draws one chart, or redraws it in place (Plotly.react) once drawn, at the zoom its address gives.
  function draw(element) {
    var figure = figureOf(element);
    if (!figure || !window.Plotly) {
      return;
    }
    var drawn = element.classList.contains("js-plotly-plot");
    var plot = drawn ? window.Plotly.react : window.Plotly.newPlot;
    var layout = zoomed(themed(figure.layout || {}), zoomOf(element));
    plot(element, figure.data, layout, config(element.dataset.pngName)).then(function () {
      if (!drawn) {
        element.on("plotly_relayout", function () { rememberZoom(element); });
      }
    });
  }

  // The page's address, zooms and filters in it, to the clipboard; where the clipboard is closed (a plain http
  // page), the address selected in a box for the member to copy.
  function copyLink(button) {
    var done = function () { button.textContent = button.dataset.copied || button.textContent; };
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(window.location.href).then(done);
      return;
    }
    var box = document.createElement("input");
    box.value = window.location.href;
    box.readOnly = true;
    button.insertAdjacentElement("afterend", box);
    box.select();
  }

  document.addEventListener("click", function (event) {
    var button = event.target.closest ? event.target.closest("[data-copy-link]") : null;
    if (button) {
      copyLink(button);
    }
  });

  function onScreen(element) {
    var box = element.getBoundingClientRect();
    return box.top < window.innerHeight && box.bottom > 0;
  }

  // The charts further down, one a task once the page has loaded: the first screen is not kept waiting for them.
  function drawLater(elements) {
    if (!elements.length) {
      return;
    }
    var next = function () {
      draw(elements.shift());
      drawLater(elements);
    };
    if (document.readyState === "complete") {
      window.setTimeout(next, 0);
    } else {
      window.addEventListener("load", function () { window.setTimeout(next, 0); }, { once: true });
    }
  }

  // Draws (or redraws) every chart under root: those on screen at once, the others after the page has loaded.
  function drawAll(root) {
    var later = [];
    (root || document).querySelectorAll("[data-figure]").forEach(function (element) {
      if (onScreen(element)) {
        draw(element);
      } else {
        later.push(element);
      }
    });
    drawLater(later);
  }

  // A change of the system's setting redraws the charts in its colours.
  if (DARK && DARK.addEventListener) {
    DARK.addEventListener("change", function () { drawAll(document); });
  }

  return {
    config: config, drawAll: drawAll, exportImage: exportImage, exportFigure: exportFigure, exportTitle: exportTitle,
  };
})();
