// The new-study form: picking a study preset fills in its design and the seed's procedure (scenarios, client
// levels, repetitions, run order, duration, scale, postgresql.conf); picking a settings preset fills in its
// postgresql.conf. Everything stays editable.
"use strict";

document.addEventListener("DOMContentLoaded", function () {
  var presets = JSON.parse(document.getElementById("study-presets").textContent);

  function setField(name, value) {
    var field = document.getElementById("id_" + name);
    if (field) {
      field.value = value;
    }
  }

  function setScenarios(ids) {
    document.querySelectorAll("input[name=scenarios]").forEach(function (box) {
      box.checked = ids.indexOf(box.value) !== -1;
    });
  }

  var studyPreset = document.getElementById("id_client_preset");
  if (studyPreset) {
    studyPreset.addEventListener("change", function () {
      var preset = presets[studyPreset.value];
      if (!preset) {
        return;
      }
      ["client_levels", "repetitions", "run_order", "host_order", "duration_s", "scale", "pg_settings", "statistic", "warmup_runs"].forEach(function (name) {
        setField(name, preset[name]);
      });
      setScenarios(preset.scenarios);
    });
  }

  var settingsPreset = document.getElementById("id_settings_preset");
  if (settingsPreset) {
    settingsPreset.addEventListener("change", function () {
      var preset = presets[settingsPreset.value];
      if (preset) {
        setField("pg_settings", preset.pg_settings);
      }
    });
  }

  // Any change after a preview makes its numbers stale: hide the queue button until previewed again.
  var form = document.querySelector("form.study-form");
  var queue = form && form.querySelector("button[name=queue]");
  if (queue) {
    form.addEventListener("change", function () {
      queue.hidden = true;
      var preview = document.getElementById("study-preview");
      if (preview) {
        preview.classList.add("stale");
      }
    });
  }
});
