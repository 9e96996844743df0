// The new-study form: picking a preset fills in its client levels or its postgresql.conf settings (still editable).
"use strict";

document.addEventListener("DOMContentLoaded", function () {
  var presets = JSON.parse(document.getElementById("study-presets").textContent);

  function fillFrom(selectId, targetId, key) {
    var select = document.getElementById(selectId);
    var target = document.getElementById(targetId);
    if (!select || !target) {
      return;
    }
    select.addEventListener("change", function () {
      var preset = presets[select.value];
      if (preset) {
        target.value = preset[key];
      }
    });
  }

  fillFrom("id_client_preset", "id_client_levels", "client_levels");
  fillFrom("id_settings_preset", "id_pg_settings", "pg_settings");

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
