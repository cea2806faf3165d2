(function () {
  'use strict';
  var root = document.body.getAttribute('data-root') || '';
  var q = document.getElementById('q');
  var results = document.getElementById('results');

  function openTo(id) {
    var el = document.getElementById(id);
    if (!el) return;
    for (var p = el.parentElement; p; p = p.parentElement) if (p.tagName === 'DETAILS') p.open = true;
    var prior = document.querySelector('.hit');
    if (prior) prior.classList.remove('hit');
    el.classList.add('hit');
    el.scrollIntoView({ block: 'start' });
  }
  function onHash() {
    var id = location.hash.slice(1);
    if (!id) return;
    try { id = decodeURIComponent(id); } catch (e) { return; }
    openTo(id);
  }
  window.addEventListener('hashchange', onHash);
  onHash();

  document.addEventListener('click', function (e) {
    var t = e.target;
    if (!t || !t.getAttribute) return;
    var mode = t.getAttribute('data-expand');
    if (!mode) return;
    var all = document.querySelectorAll('details.kids');
    for (var i = 0; i < all.length; i++) all[i].open = mode === 'open';
  });

  function withIndex(then) {
    if (window.CLUSTERSPEC_DOCS_INDEX) return then(window.CLUSTERSPEC_DOCS_INDEX);
    var s = document.createElement('script');
    s.src = root + 'search-index.js';
    s.onload = function () { then(window.CLUSTERSPEC_DOCS_INDEX); };
    document.head.appendChild(s);
  }

  function item(href, label, detail) {
    var li = document.createElement('li');
    var a = document.createElement('a');
    a.href = root + href;
    a.textContent = label;
    li.appendChild(a);
    if (detail) {
      var span = document.createElement('span');
      span.textContent = ' ' + detail;
      li.appendChild(span);
    }
    return li;
  }

  function search(index) {
    var text = q.value.trim().toLowerCase();
    results.textContent = '';
    if (!text) { results.hidden = true; return; }
    var hits = [];
    index.k.forEach(function (k) {
      var hay = (k[0] + '/' + k[1] + ' ' + k[1] + ' ' + k[3]).toLowerCase();
      if (hay.indexOf(text) >= 0) hits.push({ rank: k[1].toLowerCase() === text || (' ' + k[3] + ' ').indexOf(' ' + text + ' ') >= 0 ? 0 : 1, li: item(k[2], k[1], k[0]) });
    });
    for (var i = 0; i < index.f.length && hits.length < 400; i++) {
      var f = index.f[i];
      var path = f[1].toLowerCase();
      var at = path.indexOf(text);
      if (at < 0) continue;
      var last = path.slice(path.lastIndexOf('.') + 1).replace(/\[\*\]/g, '');
      var k = index.k[f[0]];
      hits.push({ rank: last === text ? 2 : 3, li: item(k[2] + '#' + f[1], k[1] + ' ' + f[1], f[2]) });
    }
    hits.sort(function (a, b) { return a.rank - b.rank; });
    hits.slice(0, 40).forEach(function (h) { results.appendChild(h.li); });
    if (!hits.length) results.appendChild(item('index.html', 'No kind or field matches', ''));
    results.hidden = false;
  }

  if (q && results) {
    q.addEventListener('input', function () { withIndex(search); });
    q.addEventListener('keydown', function (e) {
      if (e.key === 'Enter') {
        var first = results.querySelector('a');
        if (first) location.href = first.href;
      } else if (e.key === 'Escape') {
        q.value = '';
        results.hidden = true;
      }
    });
  }

  // Lookup by apiVersion and kind: index.html?apiVersion=v1&kind=PersistentVolume (the lookup form submits this).
  var params = new URLSearchParams(location.search);
  var wantKind = params.get('kind');
  if (wantKind) {
    withIndex(function (index) {
      var wantVersion = (params.get('apiVersion') || '').trim();
      var found = index.k.filter(function (k) {
        return k[1].toLowerCase() === wantKind.trim().toLowerCase() && (!wantVersion || k[0] === wantVersion);
      });
      if (found.length === 1) { location.replace(root + found[0][2]); return; }
      var note = document.getElementById('lookup-result');
      if (!note) return;
      note.textContent = found.length ? 'Served in several versions:' : 'No kind ' + wantKind + (wantVersion ? ' in ' + wantVersion : '') + ' in this API.';
      found.forEach(function (k) { note.appendChild(item(k[2], k[0] + ' ' + k[1], '')); });
    });
  }
})();
