/// The dashboard's page, script and style, compiled into footstepctl: no files to
/// install, no build step, no framework (plain JavaScript calling its own origin).
/// The page's Content-Security-Policy allows no inline script or style.
enum DashboardAssets {
    static let page = #"""
<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>footstepd</title>
<link rel="stylesheet" href="/style.css">
<script src="/app.js" defer></script>
</head>
<body>
<header>
  <strong>footstepd</strong>
  <nav><a href="#now">Now</a> <a href="#night">Night</a> <a href="#reports">Reports</a></nav>
</header>
<main>
  <section id="now" hidden>
    <h1>Now</h1>
    <div class="meter"><div id="bar"></div></div>
    <dl class="facts">
      <dt>LAF</dt><dd id="laf">–</dd>
      <dt>LAeq (1 s)</dt><dd id="laeq">–</dd>
      <dt>Band</dt><dd id="band">–</dd>
      <dt>State</dt><dd id="state">–</dd>
      <dt>Device</dt><dd id="device">–</dd>
      <dt>Session</dt><dd id="session">–</dd>
      <dt>Today</dt><dd id="today">–</dd>
      <dt>Problems</dt><dd id="problems">–</dd>
    </dl>
  </section>
  <section id="night" hidden>
    <h1>Night</h1>
    <form id="night-form">
      <label>From <input id="night-start" type="datetime-local"></label>
      <label>for <select id="night-hours"><option value="16" selected>16 h</option><option value="8">8 h</option><option value="24">24 h</option><option value="4">4 h</option></select></label>
      <button type="submit">Show</button>
      <span id="night-summary"></span>
    </form>
    <canvas id="timeline" height="160"></canvas>
    <div class="legend">
      <span class="t-heel_strike">heel_strike</span> <span class="t-running">running</span> <span class="t-stomping">stomping</span>
      <span class="t-shuffling">shuffling</span> <span class="t-unknown">unknown</span> <span class="t-other">other</span>
      <span class="gap">not recorded</span> <span class="line">LAeq per minute</span>
    </div>
    <div class="review">
      <div id="detail" hidden>
        <p id="detail-title"></p>
        <audio id="clip" controls preload="none"></audio>
        <canvas id="wave" width="600" height="80"></canvas>
        <div class="buttons">
          <button id="confirm" title="c">Confirm</button>
          <button id="reject" title="r">Reject</button>
          <select id="relabel" title="1 2 3 4"><option value="">Relabel…</option><option value="heel_strike">1 heel_strike</option><option value="running">2 running</option><option value="stomping">3 stomping</option><option value="shuffling">4 shuffling</option></select>
          <button id="confirm-bout" title="C">Confirm bout</button>
          <button id="reject-bout" title="R">Reject bout</button>
          <button id="range-start" title="s">Range starts here</button>
          <button id="reject-range" title="x">Reject range</button>
          <input id="reason" placeholder="reason (optional): the radio">
        </div>
        <p id="range-note" class="muted"></p>
        <p class="muted">Keys: j/k or ↓/↑ next/previous, space play, c confirm, r reject, 1–4 relabel, shift with them for the whole bout, s then x rejects a range.</p>
      </div>
      <div class="list"><table id="events"><thead><tr><th>Time</th><th>Label</th><th>Conf.</th><th>LAFmax</th><th>Bout</th><th>Review</th><th>Clip</th></tr></thead><tbody></tbody></table></div>
    </div>
  </section>
  <section id="reports" hidden>
    <h1>Reports</h1>
    <form id="report-form">
      <label>From <input id="report-from" type="datetime-local" required></label>
      <label>to <input id="report-to" type="datetime-local" required></label>
      <label>as <select id="report-format"><option value="pdf">PDF</option><option value="html">HTML</option><option value="csv">CSV</option><option value="json">JSON</option><option value="bundle">evidence bundle (zip)</option></select></label>
      <button type="submit">Make the report</button>
    </form>
    <p id="report-status"></p>
    <p><a id="report-link" hidden></a></p>
    <p class="muted">Reports leave rejected events out of every count and list them with their reasons. The evidence bundle holds the reports, the clips, the JSON export (reviews included) and a SHA-256 manifest.</p>
  </section>
</main>
<div id="toast" hidden></div>
</body>
</html>
"""#

    static let style = #"""
body{font-family:"DejaVu Sans",system-ui,sans-serif;margin:0;color:#222;background:#fafafa}
header{display:flex;gap:1.5em;align-items:center;padding:.6em 1em;background:#263238;color:#fff}
nav a{color:#cfd8dc;margin-right:1em;text-decoration:none}nav a.active{color:#fff;font-weight:bold;border-bottom:2px solid #fff}
main{max-width:80em;margin:0 auto;padding:0 1em}h1{font-size:1.3em}
.facts{display:grid;grid-template-columns:max-content 1fr;gap:.3em 1em}.facts dt{color:#666}.facts dd{margin:0}
.meter{height:1.6em;background:#e0e0e0;border-radius:3px;overflow:hidden;margin:.6em 0 1em}
#bar{height:100%;width:0;background:#4caf50;transition:width .12s}#bar.band-noisy{background:#ff9800}#bar.band-loud{background:#f44336}#bar.band-average{background:#8bc34a}
#timeline{width:100%;height:160px;background:#fff;border:1px solid #ddd}
.legend{font-size:.8em;color:#555;margin:.3em 0}.legend span{margin-right:.8em}.legend span::before{content:"";display:inline-block;width:.7em;height:.7em;margin-right:.3em}
.t-heel_strike::before{background:#4e79a7}.t-running::before{background:#f28e2b}.t-stomping::before{background:#e15759}.t-shuffling::before{background:#59a14f}.t-unknown::before{background:#9c755f}.t-other::before{background:#aaaaaa}
.legend .gap::before{background:#ececec;border:1px solid #ccc}.legend .line::before{background:#1f77b4;height:2px}
.review{display:flex;flex-direction:column;gap:.8em}
#detail{background:#fff;border:1px solid #ddd;padding:.6em}#detail audio{width:100%}#wave{width:100%;height:80px;background:#f5f5f5}
.buttons{display:flex;flex-wrap:wrap;gap:.4em;align-items:center}.buttons input{flex:1;min-width:10em}
table{border-collapse:collapse;width:100%;font-size:.85em;background:#fff}th,td{border-bottom:1px solid #eee;padding:.2em .5em;text-align:left}
tbody tr{cursor:pointer}tr.selected{background:#fff3cd}tr.review-rejected td{color:#999;text-decoration:line-through}tr.review-confirmed td:nth-child(6){color:#2e7d32}
.list{max-height:45vh;overflow-y:auto}
#toast{position:fixed;bottom:1em;right:1em;padding:.6em 1em;border-radius:4px;color:#fff;max-width:30em}#toast.good{background:#2e7d32}#toast.bad{background:#c62828}
.bad{color:#c62828}.muted{color:#666;font-size:.85em}
form label{margin-right:.6em}
@media (max-width:600px){header{flex-direction:column;align-items:flex-start;gap:.3em}.buttons button{flex:1 1 45%}.list{max-height:none}}
"""#

    static let script = #"""
'use strict';
// footstepctl ui: plain JavaScript, same-origin calls only. Pages: #now, #night, #reports.
const $ = (selector, root = document) => root.querySelector(selector);
const TYPES = ['heel_strike', 'running', 'stomping', 'shuffling'];
const COLOURS = {
  heel_strike: '#4e79a7', running: '#f28e2b', stomping: '#e15759', shuffling: '#59a14f', unknown: '#9c755f', other: '#aaaaaa',
};
const pad = (n) => String(n).padStart(2, '0');
const localInput = (d) => `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
const clock = (d) => `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
const labelOf = (e) => (e.kind === 'footstep' ? e.type : 'other');

async function api(path, options) {
  const response = await fetch(path, Object.assign({ credentials: 'same-origin' }, options));
  const type = response.headers.get('content-type') || '';
  const body = type.includes('json') ? await response.json() : await response.blob();
  if (!response.ok) throw new Error(body && body.error ? body.error.message : `HTTP ${response.status}`);
  return body;
}

function toast(text, bad) {
  const box = $('#toast');
  box.textContent = text;
  box.className = bad ? 'bad' : 'good';
  box.hidden = false;
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => { box.hidden = true; }, bad ? 8000 : 3000);
}

// ---- pages ----
function showPage() {
  const page = (location.hash || '#night').slice(1);
  for (const section of document.querySelectorAll('main > section')) section.hidden = section.id !== page;
  for (const link of document.querySelectorAll('nav a')) link.classList.toggle('active', link.getAttribute('href') === `#${page}`);
  if (page === 'now') Now.start(); else Now.stop();
  if (page === 'night' && !Night.loaded) Night.load();
}
window.addEventListener('hashchange', showPage);

// ---- Now: the live meter, state, device, problems ----
const Now = {
  controller: null, timer: null,
  start() {
    if (this.controller) return;
    this.controller = new AbortController();
    this.status();
    this.timer = setInterval(() => this.status(), 2000);
    this.stream(this.controller.signal);
  },
  stop() {
    if (!this.controller) return;
    this.controller.abort();
    this.controller = null;
    clearInterval(this.timer);
  },
  async status() {
    try {
      const s = await api('/api/status');
      $('#state').textContent = s.state;
      $('#device').textContent = s.device ? `${s.device.name}${s.device.sample_rate ? `, ${s.device.sample_rate} Hz` : ''}` : 'none';
      $('#session').textContent = s.session ? `#${s.session.id} ${s.session.title || ''}` : 'none';
      const today = Object.entries(s.events_today || {}).map(([k, v]) => `${k} ${v}`).join(', ');
      $('#today').textContent = today || 'none';
      const problems = [];
      if (s.last_error) problems.push(s.last_error);
      if (s.capture && !s.capture.device_up && s.state !== 'stopped' && s.state !== 'idle') problems.push('the microphone is not delivering audio');
      if (s.mqtt && !s.mqtt.connected && s.mqtt.problem) problems.push(`MQTT: ${s.mqtt.problem}`);
      $('#problems').textContent = problems.length ? problems.join('; ') : 'none';
      $('#problems').className = problems.length ? 'bad' : '';
    } catch (error) {
      $('#state').textContent = 'unreachable';
      $('#problems').textContent = error.message;
      $('#problems').className = 'bad';
    }
  },
  async stream(signal) {
    try {
      const response = await fetch('/api/levels/live', { signal, credentials: 'same-origin' });
      const reader = response.body.getReader();
      const decoder = new TextDecoder();
      let buffer = '';
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += decoder.decode(value, { stream: true });
        let end;
        while ((end = buffer.indexOf('\n')) >= 0) {
          const line = buffer.slice(0, end);
          buffer = buffer.slice(end + 1);
          if (line) this.meter(JSON.parse(line));
        }
      }
    } catch (error) {
      if (signal.aborted) return;
    }
    if (!signal.aborted) setTimeout(() => this.stream(signal), 2000);
  },
  meter(reading) {
    const unit = reading.calibrated ? 'dB(A)' : 'dB(A) rel.';
    $('#laf').textContent = `${reading.laf_db.toFixed(1)} ${unit}`;
    $('#laeq').textContent = `${reading.laeq_db.toFixed(1)} ${unit}`;
    $('#band').textContent = reading.band;
    const floor = reading.calibrated ? 20 : -90;
    const span = reading.calibrated ? 90 : 90;
    const share = Math.max(0, Math.min(1, (reading.laf_db - floor) / span));
    $('#bar').style.width = `${(share * 100).toFixed(1)}%`;
    $('#bar').className = `band-${reading.band}`;
  },
};

// ---- Night: timeline, events, clips, review ----
const Night = {
  loaded: false, events: [], levels: [], selected: -1, rangeStart: null, from: null, to: null,
  defaultNight() {
    const now = new Date();
    const start = new Date(now.getFullYear(), now.getMonth(), now.getDate() - (now.getHours() < 12 ? 1 : 0), 18, 0);
    return start;
  },
  async load() {
    this.loaded = true;
    const input = $('#night-start');
    if (!input.value) input.value = localInput(this.defaultNight());
    this.from = new Date(input.value);
    this.to = new Date(this.from.getTime() + Number($('#night-hours').value) * 3600e3);
    const range = `from=${encodeURIComponent(this.from.toISOString())}&to=${encodeURIComponent(this.to.toISOString())}`;
    try {
      const [events, levels] = await Promise.all([
        this.all(`/api/events?${range}&limit=10000`), this.all(`/api/levels?${range}&limit=20000`),
      ]);
      this.events = events;
      this.levels = levels;
    } catch (error) {
      toast(error.message, true);
      return;
    }
    this.selected = this.events.length ? 0 : -1;
    this.rangeStart = null;
    this.render();
  },
  async all(path) {
    let items = [];
    let cursor = null;
    do {
      const page = await api(path + (cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''));
      items = items.concat(page.items);
      cursor = page.next_cursor;
    } while (cursor);
    return items;
  },
  render() {
    const counts = { confirmed: 0, rejected: 0, unreviewed: 0 };
    for (const e of this.events) counts[e.review || 'unreviewed'] += 1;
    $('#night-summary').textContent = this.events.length
      ? `${this.events.length} events: ${counts.confirmed} confirmed, ${counts.rejected} rejected, ${counts.unreviewed} not reviewed`
      : 'no events in this night';
    this.drawTimeline();
    const body = $('#events tbody');
    body.textContent = '';
    this.events.forEach((e, index) => {
      const row = document.createElement('tr');
      row.dataset.index = index;
      row.dataset.id = e.id;
      row.className = (index === this.selected ? 'selected ' : '') + (e.review ? `review-${e.review}` : '');
      const cells = [
        clock(new Date(e.timestamp)), labelOf(e), e.confidence.toFixed(2), e.la_max.toFixed(1),
        e.bout_id ? `#${e.bout_id}` : '', e.review || '', e.has_clip ? 'clip' : '',
      ];
      for (const text of cells) {
        const cell = document.createElement('td');
        cell.textContent = text;
        row.appendChild(cell);
      }
      row.firstChild.style.borderLeft = `6px solid ${COLOURS[labelOf(e)]}`;
      row.addEventListener('click', () => this.select(index));
      body.appendChild(row);
    });
    this.showSelected();
  },
  drawTimeline() {
    const canvas = $('#timeline');
    const width = canvas.clientWidth || 800;
    canvas.width = width * devicePixelRatio;
    canvas.height = 160 * devicePixelRatio;
    const g = canvas.getContext('2d');
    g.scale(devicePixelRatio, devicePixelRatio);
    g.clearRect(0, 0, width, 160);
    const span = this.to - this.from;
    const x = (t) => ((t - this.from) / span) * width;
    const values = this.levels.map((l) => l.laeq).concat(this.events.map((e) => e.la_max));
    const low = values.length ? Math.min(...values) - 3 : 0;
    const high = values.length ? Math.max(...values) + 3 : 1;
    const y = (v) => 150 - ((v - low) / (high - low)) * 140;
    // Minutes without a level row were not recorded: shaded.
    g.fillStyle = '#ececec';
    const recorded = new Set(this.levels.map((l) => Math.floor(new Date(l.started_at) / 60e3)));
    for (let m = Math.floor(this.from / 60e3); m < this.to / 60e3; m += 1) {
      if (!recorded.has(m)) g.fillRect(x(m * 60e3), 0, Math.max(1, width / (span / 60e3)), 160);
    }
    g.strokeStyle = '#1f77b4';
    g.beginPath();
    let previous = null;
    for (const l of this.levels) {
      const t = new Date(l.started_at);
      // A gap of more than two minutes breaks the line: nothing was measured there.
      if (previous !== null && t - previous <= 120e3) g.lineTo(x(t), y(l.laeq)); else g.moveTo(x(t), y(l.laeq));
      previous = t;
    }
    g.stroke();
    this.events.forEach((e, index) => {
      g.fillStyle = e.review === 'rejected' ? '#dddddd' : COLOURS[labelOf(e)];
      const px = x(new Date(e.timestamp));
      g.fillRect(px - 1.5, y(e.la_max) - 1.5, 3, 3);
      if (index === this.selected) { g.strokeStyle = '#000'; g.strokeRect(px - 4, y(e.la_max) - 4, 8, 8); }
    });
    g.fillStyle = '#555';
    g.font = '11px sans-serif';
    // An hour label every `every` hours, at least 45 px apart.
    const every = Math.max(1, Math.ceil(45 / (width / (span / 3600e3))));
    for (let h = Math.ceil(this.from / 3600e3); h * 3600e3 < this.to; h += every) {
      const t = new Date(h * 3600e3);
      g.fillText(`${pad(t.getHours())}:00`, x(t) + 2, 158);
    }
  },
  select(index) {
    if (index < 0 || index >= this.events.length) return;
    this.selected = index;
    for (const row of document.querySelectorAll('#events tbody tr')) row.classList.toggle('selected', Number(row.dataset.index) === index);
    const row = $(`#events tbody tr[data-index="${index}"]`);
    if (row) row.scrollIntoView({ block: 'nearest' });
    this.drawTimeline();
    this.showSelected();
  },
  showSelected() {
    const e = this.events[this.selected];
    const panel = $('#detail');
    if (!e) { panel.hidden = true; return; }
    panel.hidden = false;
    $('#detail-title').textContent = `Event #${e.id} at ${new Date(e.timestamp).toLocaleString()}: ${labelOf(e)}`
      + ` (confidence ${e.confidence.toFixed(2)}, LAFmax ${e.la_max.toFixed(1)})${e.review ? `, ${e.review}` : ''}`;
    $('#range-note').textContent = this.rangeStart === null ? ''
      : `range from #${this.events[this.rangeStart].id}: press X to reject it up to this event`;
    const audio = $('#clip');
    if (audio.dataset.id !== String(e.id)) {
      audio.dataset.id = String(e.id);
      audio.src = `/api/events/${e.id}/clip`;
      this.waveform(e.id);
    }
  },
  async waveform(id) {
    const canvas = $('#wave');
    const g = canvas.getContext('2d');
    g.clearRect(0, 0, canvas.width, canvas.height);
    try {
      const blob = await api(`/api/events/${id}/clip`);
      const context = new (window.AudioContext || window.webkitAudioContext)();
      const buffer = await context.decodeAudioData(await blob.arrayBuffer());
      context.close();
      if ($('#clip').dataset.id !== String(id)) return;
      const samples = buffer.getChannelData(0);
      const step = Math.max(1, Math.floor(samples.length / canvas.width));
      // Scaled to the clip's own peak: stored levels are often far below full scale.
      let top = 1e-9;
      for (let i = 0; i < samples.length; i += 1) top = Math.max(top, Math.abs(samples[i]));
      g.strokeStyle = '#333';
      g.beginPath();
      for (let px = 0; px < canvas.width; px += 1) {
        let peak = 0;
        for (let i = px * step; i < (px + 1) * step && i < samples.length; i += 1) peak = Math.max(peak, Math.abs(samples[i]));
        const half = (peak / top) * (canvas.height / 2 - 2);
        g.moveTo(px, canvas.height / 2 - half);
        g.lineTo(px, canvas.height / 2 + half);
      }
      g.stroke();
    } catch (error) {
      g.fillStyle = '#888';
      g.fillText('no clip: the audio was not kept or has been pruned', 8, 20);
    }
  },
  async review(body, what) {
    try {
      const answer = await api('/api/reviews', {
        method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body),
      });
      const ids = new Set(answer.reviewed.concat(answer.unchanged));
      for (const e of this.events) {
        if (!ids.has(e.id)) continue;
        e.review = answer.verdict;
        if (body.action === 'relabel') { e.type = body.type; e.kind = 'footstep'; }
      }
      toast(`${what}: ${answer.reviewed.length} ${answer.verdict} by ${answer.reviewer}`);
      const keep = this.selected;
      this.render();
      this.select(Math.min(keep + (body.events && body.events.length === 1 ? 1 : 0), this.events.length - 1));
    } catch (error) {
      toast(error.message, true);
    }
  },
  act(action, scope, type) {
    const e = this.events[this.selected];
    if (!e) return;
    const body = { action };
    if (type) body.type = type;
    let what = `event #${e.id}`;
    if (scope === 'bout') {
      if (!e.bout_id) { toast('this event is not part of a bout', true); return; }
      body.bout = e.bout_id;
      what = `bout #${e.bout_id}`;
    } else if (scope === 'range') {
      if (this.rangeStart === null) { toast('press S on the first event of the range first', true); return; }
      const a = this.events[Math.min(this.rangeStart, this.selected)];
      const b = this.events[Math.max(this.rangeStart, this.selected)];
      body.from = a.timestamp;
      body.to = new Date(new Date(b.timestamp).getTime() + 1).toISOString();
      what = `range ${clock(new Date(a.timestamp))}–${clock(new Date(b.timestamp))}`;
      this.rangeStart = null;
    } else {
      body.events = [e.id];
    }
    const reason = $('#reason').value.trim();
    if (reason) body.reason = reason;
    this.review(body, what);
  },
  key(event) {
    if (event.target.tagName === 'INPUT' || event.target.tagName === 'SELECT') return;
    const k = event.key;
    const handled = () => event.preventDefault();
    if (k === 'j' || k === 'ArrowDown') { handled(); this.select(this.selected + 1); }
    else if (k === 'k' || k === 'ArrowUp') { handled(); this.select(this.selected - 1); }
    else if (k === ' ') { handled(); const a = $('#clip'); if (a.paused) a.play(); else a.pause(); }
    else if (k === 'c') { handled(); this.act('confirm'); }
    else if (k === 'r') { handled(); this.act('reject'); }
    else if (k === 'C') { handled(); this.act('confirm', 'bout'); }
    else if (k === 'R') { handled(); this.act('reject', 'bout'); }
    else if (k >= '1' && k <= '4') { handled(); this.act('relabel', event.shiftKey ? 'bout' : 'event', TYPES[Number(k) - 1]); }
    else if (k === '!' || k === '@' || k === '#' || k === '$') { handled(); this.act('relabel', 'bout', TYPES['!@#$'.indexOf(k)]); }
    else if (k === 's') { handled(); this.rangeStart = this.selected; this.showSelected(); }
    else if (k === 'x') { handled(); this.act('reject', 'range'); }
  },
};
document.addEventListener('keydown', (event) => { if (!$('#night').hidden) Night.key(event); });

// ---- Reports ----
async function makeReport(event) {
  event.preventDefault();
  const from = $('#report-from').value; const to = $('#report-to').value; const format = $('#report-format').value;
  $('#report-status').textContent = 'making the report…';
  try {
    const response = await fetch(`/api/report?from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}&format=${format}`,
      { method: 'POST', credentials: 'same-origin' });
    if (!response.ok) throw new Error((await response.json()).error.message);
    const name = (/filename="([^"]+)"/.exec(response.headers.get('content-disposition') || '') || [])[1] || `report.${format}`;
    const link = $('#report-link');
    link.href = URL.createObjectURL(await response.blob());
    link.download = name;
    link.textContent = `download ${name}`;
    link.hidden = false;
    $('#report-status').textContent = '';
  } catch (error) {
    $('#report-status').textContent = error.message;
  }
}

window.addEventListener('DOMContentLoaded', () => {
  for (const [id, action, scope, type] of [
    ['confirm', 'confirm'], ['reject', 'reject'], ['confirm-bout', 'confirm', 'bout'], ['reject-bout', 'reject', 'bout'],
    ['reject-range', 'reject', 'range'],
  ]) $(`#${id}`).addEventListener('click', () => Night.act(action, scope, type));
  $('#relabel').addEventListener('change', (event) => {
    if (event.target.value) Night.act('relabel', 'event', event.target.value);
    event.target.value = '';
  });
  $('#range-start').addEventListener('click', () => { Night.rangeStart = Night.selected; Night.showSelected(); });
  $('#night-form').addEventListener('submit', (event) => { event.preventDefault(); Night.load(); });
  $('#report-form').addEventListener('submit', makeReport);
  const start = Night.defaultNight();
  $('#report-from').value = localInput(start);
  $('#report-to').value = localInput(new Date(start.getTime() + 16 * 3600e3));
  window.addEventListener('resize', () => { if (!$('#night').hidden) Night.drawTimeline(); });
  showPage();
});
"""#
}
