// The class page's sorting and filtering, over the tables the HTML already holds: without this
// script the page shows the same rows, in id order, with nothing to sort or filter them by.
// The view lives in the fragment (#sort=-total&status=pending&lost=kings&min=0&max=50&q=ada), so
// that it can be bookmarked, and the status counts at the top are links to theirs. `layout-check`
// in the fragment writes the page's measurements, once the view is applied, as JSON into a
// preformatted block of that id at the end of the page (what the browser tests read).
'use strict';
(() => {
  const FILTERS = ['q', 'status', 'lost', 'min', 'max'];
  const collator = new Intl.Collator(undefined, { numeric: true, sensitivity: 'base' });
  const students = document.getElementById('students-table');
  const form = document.getElementById('student-filters');
  const shown = document.getElementById('students-shown');
  const none = document.getElementById('students-none');
  let sorted = '';

  // A cell's sort key: its data-sort, else its text; a number column's empty key is a missing value.
  function key(cell, numeric) {
    const raw = cell.dataset.sort !== undefined ? cell.dataset.sort : cell.textContent.trim();
    if (!numeric) return raw;
    return raw === '' ? NaN : Number(raw);
  }

  // Sorts a table's rows by one column; missing values (pending, never run) go last either way,
  // and ties keep the order the page came in.
  function sortBy(table, column, descending) {
    const head = table.tHead.rows[0].cells;
    const numeric = head[column].dataset.type === 'number';
    const body = table.tBodies[0];
    const rows = Array.from(body.rows);
    rows.sort((a, b) => {
      const x = key(a.cells[column], numeric);
      const y = key(b.cells[column], numeric);
      const original = a.dataset.index - b.dataset.index;
      if (numeric && (Number.isNaN(x) || Number.isNaN(y))) {
        if (Number.isNaN(x) && Number.isNaN(y)) return original;
        return Number.isNaN(x) ? 1 : -1;
      }
      const order = numeric ? x - y : collator.compare(x, y);
      return (descending ? -order : order) || original;
    });
    body.append(...rows);
    for (const th of head) th.removeAttribute('aria-sort');
    head[column].setAttribute('aria-sort', descending ? 'descending' : 'ascending');
  }

  // Header cells become buttons that sort by their column: ascending first, then descending.
  function makeSortable(table, onSort) {
    Array.from(table.tBodies[0].rows).forEach((row, i) => { row.dataset.index = i; });
    Array.from(table.tHead.rows[0].cells).forEach((th, column) => {
      if (th.dataset.type === undefined) return;
      const button = document.createElement('button');
      button.type = 'button';
      button.className = 'sort';
      while (th.firstChild) button.appendChild(th.firstChild);
      th.appendChild(button);
      button.addEventListener('click', () => {
        const descending = th.getAttribute('aria-sort') === 'ascending';
        sortBy(table, column, descending);
        if (onSort) onSort(th.dataset.key, descending);
      });
    });
  }

  function columnOf(table, key) {
    return Array.from(table.tHead.rows[0].cells).findIndex((th) => th.dataset.key === key);
  }

  // Shows the students that every filter lets through, and says how many.
  function filter() {
    const q = form.elements.q.value.trim().toLowerCase();
    const status = form.elements.status.value;
    const lost = form.elements.lost.value ? columnOf(students, 'category:' + form.elements.lost.value) : -1;
    const min = parseFloat(form.elements.min.value);
    const max = parseFloat(form.elements.max.value);
    const rows = Array.from(students.tBodies[0].rows);
    let count = 0;
    for (const row of rows) {
      const text = (row.cells[0].textContent + ' ' + row.cells[1].textContent).toLowerCase();
      const percent = parseFloat(row.dataset.percent);
      const keep = (!q || text.includes(q))
        && (!status || row.dataset.flags.split(' ').includes(status))
        && (lost < 0 || row.cells[lost].classList.contains('lost'))
        && (Number.isNaN(min) || percent >= min)
        && (Number.isNaN(max) || percent <= max);
      row.hidden = !keep;
      count += keep ? 1 : 0;
    }
    const noun = rows.length === 1 ? 'student' : 'students';
    shown.textContent = count === rows.length ? `${rows.length} ${noun}` : `Showing ${count} of ${rows.length} ${noun}`;
    none.hidden = count > 0;
  }

  // The view as a fragment, kept in the address bar without adding to the history.
  function remember() {
    const params = new URLSearchParams();
    for (const name of FILTERS) {
      const value = form.elements[name].value.trim();
      if (value) params.set(name, value);
    }
    if (sorted) params.set('sort', sorted);
    const hash = params.toString();
    try {
      history.replaceState(null, '', hash ? '#' + hash : location.pathname + location.search);
    } catch (e) {
      // A browser that refuses (some do for file: pages) still shows the view.
    }
  }

  // Applies a fragment's view; one naming none (#cases) leaves the view as it is.
  function restore(params) {
    if (![...FILTERS, 'sort'].some((name) => params.has(name))) return;
    for (const name of FILTERS) {
      const field = form.elements[name];
      field.value = params.get(name) || '';
      // A select given a value it does not offer shows nothing: it means no filter.
      if (field.value !== (params.get(name) || '')) field.value = '';
    }
    const sort = params.get('sort') || '';
    const descending = sort.startsWith('-');
    const column = sort ? columnOf(students, descending ? sort.slice(1) : sort) : -1;
    if (column >= 0) {
      sortBy(students, column, descending);
      sorted = sort;
    }
    filter();
  }

  function layoutCheck() {
    const wrap = students.parentElement;
    const totals = Array.from(students.querySelectorAll('tbody tr:not([hidden]) td.total > span'));
    const lineHeight = totals.length ? parseFloat(getComputedStyle(totals[0]).lineHeight) : 0;
    const report = {
      innerWidth: window.innerWidth,
      scrollWidth: document.documentElement.scrollWidth,
      clientWidth: document.documentElement.clientWidth,
      tableScrollWidth: wrap.scrollWidth,
      tableClientWidth: wrap.clientWidth,
      lineHeight,
      totals: totals.length,
      totalLines: totals.reduce((most, span) => Math.max(most, span.getClientRects().length), 0),
      totalHeight: totals.reduce((most, span) => Math.max(most, span.getBoundingClientRect().height), 0),
      rows: Array.from(students.tBodies[0].rows).filter((row) => !row.hidden).map((row) => row.dataset.id),
      percents: Array.from(students.tBodies[0].rows).filter((row) => !row.hidden).map((row) => row.dataset.percent),
      shown: shown.textContent,
      sort: sorted,
    };
    const pre = document.createElement('pre');
    pre.id = 'layout-check';
    pre.textContent = JSON.stringify(report, null, 1);
    document.body.appendChild(pre);
  }

  for (const table of document.querySelectorAll('table.sortable')) {
    makeSortable(table, table === students ? (key, descending) => {
      sorted = (descending ? '-' : '') + key;
      remember();
    } : null);
  }
  if (students && form) {
    form.hidden = false;
    form.addEventListener('input', () => { filter(); remember(); });
    form.addEventListener('submit', (event) => event.preventDefault());
    form.addEventListener('reset', () => setTimeout(() => { filter(); remember(); }));
    window.addEventListener('hashchange', () => restore(new URLSearchParams(location.hash.slice(1))));
    const params = new URLSearchParams(location.hash.slice(1));
    restore(params);
    if (params.has('layout-check')) layoutCheck();
  }
})();
