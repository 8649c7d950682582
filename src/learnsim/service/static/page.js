// learnsim serve: search as one types. The page works without this script (the form is a plain
// GET); with it, the results part is fetched from the same server-rendered view (fragment=1), so
// the text of documents is escaped in one place, on the server, and never built into HTML here.
(function () {
  "use strict";
  var form = document.getElementById("search");
  var box = document.getElementById("q");
  var results = document.getElementById("results");
  if (!form || !box || !results || !window.fetch) { return; }
  var timer = null;
  var latest = 0;
  function run() {
    var q = box.value.trim();
    if (!q) { return; }
    var params = new URLSearchParams(new FormData(form));
    params.set("q", q);
    var mine = ++latest;
    fetch("/?" + params.toString() + "&fragment=1", { headers: { "Accept": "text/html" } })
      .then(function (r) { return r.ok ? r.text() : null; })
      .then(function (fragment) {
        if (fragment === null || mine !== latest) { return; }   // an older answer, or an error page
        results.innerHTML = fragment;
        history.replaceState(null, "", "/?" + params.toString());
        // as the server writes it: a query that is not ASCII between the isolates FSI and PDI,
        // so that a right-to-left override in it reorders itself alone, not the words after it
        document.title = (/^[\x00-\x7f]*$/.test(q) ? q : "\u2068" + q + "\u2069") + " - learnsim";
      })
      .catch(function () { /* the next keystroke, or the form, tries again */ });
  }
  box.addEventListener("input", function () {
    clearTimeout(timer);
    timer = setTimeout(run, 250);
  });
})();
