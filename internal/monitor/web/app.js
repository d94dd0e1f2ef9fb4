// cqueue serve's page: polls the JSON API every second and draws what it
// finds. Everything from the frontier (crawl ids, hosts, URLs, reasons) is
// crawled content, hostile: it reaches the page only as text nodes
// (textContent, createTextNode) and attribute values set with
// setAttribute, never as HTML, and with the characters that are invisible
// or reorder what follows (controls, bidi overrides and isolates,
// zero-width marks) shown as ⟨U+202E⟩: a crawl id or URL cannot pass for
// another (visible). The token is kept in this page's memory,
// never stored.
'use strict';

(() => {
  const API = '/api/v1/';
  const POINTS = 300; // five minutes of samples at 1 s
  const MAX_CRAWLS = 12;
  let token = '';
  let info = null;
  let pending = null; // the action the dialog asks about
  const cards = new Map(); // crawlid → card

  const $ = (id) => document.getElementById(id);

  // INVISIBLE matches the characters visible shows escaped: C0 and C1
  // controls and DEL, the Arabic letter mark, the Mongolian vowel
  // separator, zero-width spaces and joiners, LRM/RLM, line and paragraph
  // separators, the bidi embeddings, overrides (U+202A–U+202E) and
  // isolates (U+2066–U+2069), the invisible operators, the BOM and the
  // interlinear annotation marks.
  const INVISIBLE = /[\u0000-\u001f\u007f-\u009f\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb]/g;

  // visible is s with each invisible or reordering character written as
  // ⟨U+XXXX⟩, so that text from the server shows as it is.
  function visible(s) {
    return String(s).replace(INVISIBLE, (c) => `⟨U+${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}⟩`);
  }

  // setText sets a node's text, visible.
  function setText(node, s) {
    node.textContent = visible(s);
  }

  // el makes an element: attrs are set with setAttribute, children are
  // nodes or strings (made text nodes), both made visible.
  function el(tag, attrs, ...children) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, visible(v));
    for (const c of children) e.append(c instanceof Node ? c : document.createTextNode(visible(c)));
    return e;
  }

  function svg(tag, attrs) {
    const e = document.createElementNS('http://www.w3.org/2000/svg', tag);
    for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, String(v));
    return e;
  }

  function num(x) {
    const n = Number(x);
    if (!Number.isFinite(n)) return '0';
    return Number.isInteger(n) ? n.toLocaleString('en') : n.toFixed(n < 10 ? 2 : 1);
  }

  class HTTPError extends Error {
    constructor(status, message) { super(message); this.status = status; }
  }

  async function call(method, path, body) {
    const headers = {};
    if (token) headers.Authorization = 'Bearer ' + token;
    const opts = { method, headers, cache: 'no-store' };
    if (body !== undefined) {
      headers['Content-Type'] = 'application/json';
      opts.body = JSON.stringify(body);
    }
    const r = await fetch(API + path, opts);
    let data = null;
    try { data = await r.json(); } catch (e) { data = null; }
    if (!r.ok) {
      const msg = data && data.error ? data.error.message : r.statusText;
      throw new HTTPError(r.status, msg);
    }
    return data;
  }
  const get = (path) => call('GET', path);

  function setStatus(text, isError) {
    const s = $('status');
    setText(s, text);
    s.className = isError ? 'error' : 'muted';
  }

  // chart draws lines (each {cls, values}) over the same time axis as an
  // inline SVG, with the top value as its scale.
  function chart(title, lines, span) {
    const W = 320, H = 90, top = 14, bottom = 4;
    const box = svg('svg', { class: 'chart', width: W, height: H, viewBox: `0 0 ${W} ${H}`, role: 'img' });
    const t = svg('title');
    setText(t, title);
    box.append(t);
    let peak = 0, n = 0;
    for (const l of lines) {
      n = Math.max(n, l.values.length);
      for (const v of l.values) peak = Math.max(peak, Number(v) || 0);
    }
    const label = svg('text', { x: 4, y: 11 });
    setText(label, `${title} (max ${num(peak)}${span > 0 ? `, last ${duration(span)}` : ''})`);
    box.append(label);
    if (n < 2) return box;
    const scale = peak > 0 ? (H - top - bottom) / peak : 0;
    for (const l of lines) {
      const pts = l.values.map((v, i) => {
        const x = (W * (i + n - l.values.length)) / (n - 1);
        const y = H - bottom - (Number(v) || 0) * scale;
        return `${x.toFixed(1)},${y.toFixed(1)}`;
      });
      box.append(svg('polyline', { class: 's-' + l.cls, points: pts.join(' ') }));
    }
    return box;
  }

  function numbers(target, items) {
    target.replaceChildren(...items.map(([label, value, cls]) =>
      el('span', { class: 'key-' + cls }, label + ' ', el('b', { class: cls }, num(value)))));
  }

  // elapsed writes seconds as 42 s, 12 min 5 s, 3 h 20 min.
  function elapsed(s) {
    s = Math.round(Number(s));
    if (s < 60) return `${s} s`;
    if (s < 3600) return `${Math.floor(s / 60)} min ${s % 60} s`;
    return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
  }

  function duration(ms) {
    const s = Math.round(ms / 1000);
    return s < 120 ? `${s} s` : `${Math.round(s / 60)} min`;
  }

  function charts(target, points) {
    const col = (k) => points.map((p) => p[k]);
    const span = points.length > 1 ? points[points.length - 1].t - points[0].t : 0;
    target.replaceChildren(
      chart('pages/s and errors/s', [{ cls: 'pages', values: col('pages_per_s') }, { cls: 'errors', values: col('errors_per_s') }], span),
      chart('queued, in flight, dead', [{ cls: 'queued', values: col('queued') }, { cls: 'in-flight', values: col('in_flight') }, { cls: 'dead', values: col('dead') }], span),
      chart('items/s and HTTP errors/s', [{ cls: 'items', values: col('items_per_s') }, { cls: 'http-errors', values: col('http_errors_per_s') }], span));
  }

  // counts writes {reason: n} as "reason n, …", most first.
  function counts(m) {
    return Object.entries(m || {}).sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
      .map(([k, n]) => `${k} ${num(n)}`).join(', ');
  }

  // drawTools fills a crawl's tools: each process publishing its stats
  // (cqueue crawl's loop, or tools run with --stats-to), with the HTTP
  // errors, drops and refusals they counted.
  function drawTools(target, data) {
    if (!data.tools.length) {
      target.replaceChildren();
      return;
    }
    const rows = data.tools.map((t) => [[t.tool], [t.host], [String(Number(t.pid)), 'num'],
      [t.state + (t.exit !== undefined && t.exit !== null ? ` (exit ${Number(t.exit)})` : ''), 'state-' + t.state],
      [num(t.age_s) + ' s ago'], [num(t.in), 'num'], [num(t.out), 'num'],
      [t.rates ? num(t.rates.items_per_s) : '–', 'num'], [t.rates ? num(t.rates.http_errors_per_s) : '–', 'num']]);
    const parts = [el('h3', {}, 'Tools (their last stats)'),
      table(['tool', 'host', 'pid', 'state', 'last stats', 'in', 'out', 'items/s', 'HTTP errors/s'], rows)];
    const lines = [];
    if (Object.keys(data.http_errors).length) lines.push(['HTTP errors', counts(data.http_errors)]);
    const dropped = {};
    for (const d of data.dropped) dropped[`${d.tool}: ${d.reason}`] = d.count;
    if (data.dropped.length) lines.push(['Rejected records', counts(dropped)]);
    if (Object.keys(data.refused).length) lines.push(['Follow-ups refused', counts(data.refused)]);
    parts.push(el('dl', { class: 'reasons' }, ...lines.flatMap(([k, v]) => [el('dt', {}, k), el('dd', {}, v)])));
    target.replaceChildren(...parts);
  }

  function table(head, rows) {
    return el('table', {}, el('thead', {}, el('tr', {}, ...head.map((h) => el('th', {}, h)))),
      el('tbody', {}, ...rows.map((cells) => el('tr', {}, ...cells.map(([v, cls]) => el('td', cls ? { class: cls } : {}, v))))));
  }

  function card(c) {
    let k = cards.get(c.crawlid);
    if (k) return k;
    const name = c.crawlid === '' ? '(no crawlid)' : c.crawlid;
    k = {
      root: el('section', { class: 'card crawl' }),
      badges: el('span'),
      numbers: el('div', { class: 'numbers' }),
      charts: el('div', { class: 'charts' }),
      tables: el('div', { class: 'tables' }),
      tools: el('div', { class: 'tools' }),
      dead: el('div', { class: 'dead-letters' }),
      actions: el('div', { class: 'actions' }),
    };
    k.root.dataset.crawlid = c.crawlid;
    k.root.append(el('h2', {}, el('span', { class: 'name' }, name), k.badges), k.numbers, k.charts, k.tables, k.tools, k.dead, k.actions);
    if (info && info.control) {
      const stop = el('button', { type: 'button', class: 'stop' }, 'Stop');
      stop.addEventListener('click', () => ask('stop', c.crawlid,
        `Stop crawl “${name}”? A crawl run by cqueue crawl keeps its queue: its run ends within seconds, and its next run says how to resume it. Any other crawl has its queued requests purged and later pushes refused; what is in flight finishes, and the crawl loop then ends by itself.`));
      const pause = el('button', { type: 'button', class: 'pause' }, 'Pause');
      pause.addEventListener('click', () => {
        const paused = k.root.dataset.paused === '1';
        ask(paused ? 'resume' : 'pause', c.crawlid, paused ? `Resume crawl “${name}”?`
          : `Pause crawl “${name}”? Every cqueue pop --follow serving it stops handing out requests (within a second) until it is resumed.`);
      });
      k.stop = stop;
      k.pause = pause;
      k.actions.append(stop, ' ', pause);
    }
    cards.set(c.crawlid, k);
    return k;
  }

  async function drawCrawl(c) {
    const k = card(c);
    const q = 'crawlid=' + encodeURIComponent(c.crawlid);
    k.root.dataset.paused = c.paused ? '1' : '0';
    // The status says what the crawl does (running, paused, stopped,
    // complete, idle, expired), not the frontier's state alone.
    const status = c.status || c.state;
    k.badges.replaceChildren(el('span', { class: 'badge status ' + status }, status),
      ...(c.round ? [el('span', { class: 'badge round' }, `round ${Number(c.round)}`)] : []),
      ...(c.elapsed_s !== undefined && c.elapsed_s !== null
        ? [el('span', { class: 'badge elapsed', title: 'since ' + c.started_at }, elapsed(c.elapsed_s))] : []));
    const totals = c.totals ? [['pages', c.totals.pages, 'pages-total'], ['items', c.totals.items, 'items-total'],
      ['errors', c.totals.errors, 'errors-total']] : [];
    numbers(k.numbers, [...totals, ['queued', c.queued, 'queued'], ['in flight', c.in_flight, 'in-flight'], ['dead', c.dead, 'dead'],
      ['pages/s', c.rates.pages_per_s, 'pages'], ['errors/s', c.rates.errors_per_s, 'errors'],
      ['items/s', c.rates.items_per_s, 'items'], ['HTTP errors/s', c.rates.http_errors_per_s, 'http-errors'],
      ['hosts', c.hosts, 'hosts'], ['tools', c.tools, 'tools']]);
    if (k.stop) {
      k.stop.disabled = c.state !== 'active' || status === 'stopped';
      setText(k.pause, c.paused ? 'Resume' : 'Pause');
    }
    const [series, failing, slow, dead, tools] = await Promise.all([
      c.tracked ? get('series?last=' + POINTS + '&' + q) : { points: [] },
      get('hosts?sort=dead&limit=5&' + q),
      get('hosts?sort=stalled&limit=5&' + q),
      c.dead > 0 ? get('dead?limit=20&' + q) : { total: 0, letters: [], by_reason: {} },
      c.tools > 0 ? get('tools?' + q) : { tools: [] },
    ]);
    charts(k.charts, series.points);
    drawTools(k.tools, tools);
    const parts = [];
    if (failing.hosts.length) {
      parts.push(el('div', {}, el('h3', {}, 'Most failing hosts'),
        table(['host', 'dead', 'queued'], failing.hosts.map((h) => [[h.host], [num(h.dead), 'num'], [num(h.queued), 'num']]))));
    }
    if (slow.hosts.length) {
      parts.push(el('div', {}, el('h3', {}, 'Slowest hosts (no progress for)'),
        table(['host', 'unchanged', 'in flight', 'queued'], slow.hosts.map((h) =>
          [[h.host], [num(h.unchanged_s) + ' s', 'num'], [num(h.in_flight), 'num'], [num(h.queued), 'num']]))));
    }
    k.tables.replaceChildren(...parts);
    if (dead.total > 0) {
      const reasons = Object.entries(dead.by_reason).map(([r, n]) => `${r} ${num(n)}`).join(', ');
      k.dead.replaceChildren(el('h3', {}, `Dead letters: ${num(dead.total)} (${reasons})`),
        table(['url', 'reason', 'retries', 'abandons'], dead.letters.map((d) =>
          [[d.url, 'url'], [d.reason], [num(d.retries || 0), 'num'], [num(d.abandons || 0), 'num']])));
    } else {
      k.dead.replaceChildren();
    }
  }

  function drawConsumers(data) {
    const rows = data.consumers.map((c) => el('tr', {}, el('td', {}, c.host), el('td', { class: 'num' }, String(Number(c.pid))),
      el('td', { class: 'num' }, num(c.held)), el('td', {}, num(c.beat_age_s) + ' s ago'),
      el('td', {}, c.alive ? 'alive' : 'silent')));
    $('consumers').tBodies[0].replaceChildren(...rows);
  }

  async function tick() {
    try {
      if (!info) {
        info = await get('');
        setText($('store'), `(${info.store}, sampled every ${num(info.sample_interval_ms / 1000)} s${info.control ? '' : ', read-only'})`);
        if (info.control) {
          const expire = el('button', { type: 'button', id: 'expire' }, 'Expire crawls past their expires');
          expire.addEventListener('click', () => ask('expire', '', 'Purge every crawl whose expires has passed (as cqueue expire does)?'));
          $('frontier').append(el('div', { class: 'actions' }, expire));
        }
      }
      const [crawls, consumers, all, stats] = await Promise.all([get('crawls'), get('consumers'), get('series?last=' + POINTS), get('stats')]);
      numbers($('frontier-numbers'), [['pages done', stats.counters.acked || 0, 'acked'], ['queued', crawls.counts.queued, 'queued'],
        ['in flight', crawls.counts.in_flight, 'in-flight'], ['dead', crawls.counts.dead, 'dead'],
        ['pages/s', crawls.rates.pages_per_s, 'pages'], ['errors/s', crawls.rates.errors_per_s, 'errors'],
        ['items/s', crawls.rates.items_per_s, 'items'], ['HTTP errors/s', crawls.rates.http_errors_per_s, 'http-errors']]);
      charts($('frontier-charts'), all.points);
      drawConsumers(consumers);
      const shown = crawls.crawls.slice().sort((a, b) =>
        (b.queued + b.in_flight > 0) - (a.queued + a.in_flight > 0) || (a.crawlid < b.crawlid ? -1 : a.crawlid > b.crawlid ? 1 : 0))
        .slice(0, MAX_CRAWLS);
      await Promise.all(shown.map(drawCrawl));
      const keep = new Set(shown.map((c) => c.crawlid));
      for (const [id, k] of cards) {
        if (!keep.has(id)) { k.root.remove(); cards.delete(id); }
      }
      $('crawls').replaceChildren(...shown.map((c) => cards.get(c.crawlid).root));
      const when = new Date(crawls.as_of).toLocaleTimeString('en-GB');
      setStatus(crawls.error ? `sampling fails: ${crawls.error} (showing ${when})` : `as of ${when}`, !!crawls.error);
    } catch (e) {
      if (e instanceof HTTPError && e.status === 401 && !pending) {
        ask('', '', 'This server needs its token to show the crawl.');
      }
      setStatus('cannot read the API: ' + e.message, true);
    }
    setTimeout(tick, 1000);
  }

  // ask opens the dialog for an action (or, with no action, for the token
  // alone); the token field shows while the page has no token.
  function ask(action, crawlid, text) {
    pending = { action, crawlid };
    setText($('confirm-text'), text);
    setText($('confirm-error'), '');
    $('token-label').hidden = token !== '';
    $('confirm').hidden = false;
    (token === '' ? $('token') : $('confirm-ok')).focus();
  }

  function closeDialog() {
    pending = null;
    $('token').value = '';
    $('confirm').hidden = true;
  }

  async function confirmed() {
    if (!pending) return;
    if (token === '') token = $('token').value;
    $('token').value = '';
    const { action, crawlid } = pending;
    if (action === '') { closeDialog(); return; }
    try {
      const r = await call('POST', action, action === 'expire' ? {} : { crawlid });
      closeDialog();
      setText($('message'), action === 'stop' ? `stopped “${crawlid}”: ${num(r.purged)} queued requests purged`
        : action === 'expire' ? `expired ${num(r.expired.length)} crawls` : `${action}d “${crawlid}”`);
    } catch (e) {
      if (e instanceof HTTPError && e.status === 401) {
        token = '';
        $('token-label').hidden = false;
        setText($('confirm-error'), 'Wrong token.');
        $('token').focus();
        return;
      }
      setText($('confirm-error'), e.message);
    }
  }

  $('confirm-ok').addEventListener('click', confirmed);
  $('confirm-cancel').addEventListener('click', closeDialog);
  $('token').addEventListener('keydown', (e) => { if (e.key === 'Enter') confirmed(); });
  tick();
})();
