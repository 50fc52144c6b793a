// Sort a table by the clicked column: numbers by data-value, text otherwise. The page reads
// fully without this script; it only reorders rows.
(function () {
  "use strict";
  function key(cell) {
    var raw = cell.getAttribute("data-value");
    if (raw !== null && raw !== "") { return { n: parseFloat(raw), t: "" }; }
    return { n: NaN, t: cell.textContent.trim() };
  }
  function compare(a, b) {
    var an = isNaN(a.n), bn = isNaN(b.n);
    if (!an && !bn) { return a.n - b.n; }
    if (an !== bn) { return an ? 1 : -1; }
    return a.t.localeCompare(b.t);
  }
  document.querySelectorAll("table.sortable").forEach(function (table) {
    var heads = table.tHead ? table.tHead.rows[0].cells : [];
    Array.prototype.forEach.call(heads, function (th, column) {
      th.addEventListener("click", function () {
        var descending = th.getAttribute("aria-sort") === "ascending";
        Array.prototype.forEach.call(heads, function (h) { h.removeAttribute("aria-sort"); });
        th.setAttribute("aria-sort", descending ? "descending" : "ascending");
        var body = table.tBodies[0];
        var rows = Array.prototype.slice.call(body.rows);
        rows.sort(function (r1, r2) {
          var c = compare(key(r1.cells[column]), key(r2.cells[column]));
          return descending ? -c : c;
        });
        rows.forEach(function (r) { body.appendChild(r); });
      });
    });
  });
}());
