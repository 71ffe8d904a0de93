// The run list: lev ps as a table, refreshed every few seconds.
import { el, getJson, usd } from './api.js';

const body = document.querySelector('#runs tbody');
const status = document.getElementById('list-status');
const form = document.getElementById('filter');

async function refresh() {
  const q = new URLSearchParams();
  for (const [k, v] of new FormData(form)) if (v) q.set(k, String(v));
  try {
    const rows = await getJson(`/api/runs${q.size ? `?${q}` : ''}`);
    body.replaceChildren(
      ...rows.map((r) =>
        el(
          'tr',
          {},
          el('th', { scope: 'row' }, el('a', { href: `/runs/${encodeURIComponent(r.runId)}` }, r.runId)),
          el('td', {}, r.blueprint ?? '-'),
          el('td', {}, r.stage ?? '-'),
          el('td', {}, r.waiting && r.status === 'waiting' ? `waiting (${r.waiting})` : r.status),
          el('td', { class: 'num' }, r.turns ?? '-'),
          el('td', { class: 'num' }, r.tokens ?? '-'),
          el('td', { class: 'num' }, usd(r.costUsd)),
        ),
      ),
    );
    status.textContent = rows.length === 0 ? 'No runs.' : '';
  } catch (err) {
    status.textContent = `error [${err.code}] ${err.message}`;
  }
}

// The filter lives in the address too, so a filtered list can be linked to.
for (const [k, v] of new URLSearchParams(location.search)) if (form.elements[k]) form.elements[k].value = v;
form.addEventListener('submit', (e) => {
  e.preventDefault();
  const q = new URLSearchParams();
  for (const [k, v] of new FormData(form)) if (v) q.set(k, String(v));
  history.replaceState(null, '', q.size ? `?${q}` : location.pathname);
  refresh();
});
refresh();
setInterval(refresh, 3000);
