// What both pages share: calls to lev serve's API with the bearer token when one is needed,
// and a reader of its Server-Sent Events over fetch (EventSource cannot send the token).

const TOKEN_KEY = 'lev-serve-token';

export function token() {
  return sessionStorage.getItem(TOKEN_KEY) ?? '';
}

function headers(extra = {}) {
  const t = token();
  return t ? { ...extra, authorization: `Bearer ${t}` } : extra;
}

/** A coded error of the API, as the CLI would print it. */
export class ApiError extends Error {
  constructor(status, body) {
    super(body?.message ?? `HTTP ${status}`);
    this.status = status;
    this.code = body?.code ?? 'serve-failed';
  }
}

async function answered(res) {
  const body = await res.json().catch(() => undefined);
  if (!res.ok) {
    if (res.status === 401) askForToken(body?.message);
    throw new ApiError(res.status, body);
  }
  return body;
}

export async function getJson(path) {
  return answered(await fetch(path, { headers: headers() }));
}

export async function postJson(path, body = {}) {
  return answered(
    await fetch(path, {
      method: 'POST',
      headers: headers({ 'content-type': 'application/json' }),
      body: JSON.stringify(body),
    }),
  );
}

/** The path of a run's API, its id escaped (a sub-agent's id holds a slash). */
export function runPath(runId, rest = '') {
  return `/api/runs/${encodeURIComponent(runId)}${rest}`;
}

/** Shows the token form once; the page reloads with the token given. */
function askForToken(message) {
  const dialog = document.getElementById('token-dialog');
  if (!dialog || dialog.open) return;
  dialog.querySelector('[data-token-why]').textContent = message ?? '';
  dialog.showModal();
  dialog.querySelector('form').addEventListener(
    'submit',
    () => {
      sessionStorage.setItem(TOKEN_KEY, dialog.querySelector('input').value.trim());
      location.reload();
    },
    { once: true },
  );
}

/**
 * Follows a run's events: `onFrame(event, data)` for each frame; reconnects after a drop from
 * the last offset seen (Last-Event-ID), and stops at `end` or a coded `error`.
 */
export function followEvents(runId, onFrame, { signal } = {}) {
  let lastId;
  const connect = async () => {
    for (;;) {
      const h = headers(lastId === undefined ? {} : { 'last-event-id': String(lastId) });
      let res;
      try {
        res = await fetch(runPath(runId, '/events'), { headers: h, signal });
      } catch {
        if (signal?.aborted) return;
        await new Promise((r) => setTimeout(r, 1000));
        continue;
      }
      if (!res.ok) {
        const body = await res.json().catch(() => undefined);
        onFrame('error', body ?? { code: 'serve-failed', message: `HTTP ${res.status}` });
        return;
      }
      const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = '';
      for (;;) {
        let chunk;
        try {
          chunk = await reader.read();
        } catch {
          break;
        }
        if (chunk.done) break;
        buffer += chunk.value;
        let cut = buffer.indexOf('\n\n');
        while (cut >= 0) {
          const frame = buffer.slice(0, cut);
          buffer = buffer.slice(cut + 2);
          cut = buffer.indexOf('\n\n');
          let event = 'message';
          let data = '';
          for (const line of frame.split('\n')) {
            if (line.startsWith('id: ')) lastId = Number(line.slice(4));
            else if (line.startsWith('event: ')) event = line.slice(7);
            else if (line.startsWith('data: ')) data += line.slice(6);
          }
          if (!data) continue;
          const parsed = JSON.parse(data);
          onFrame(event, parsed);
          if (event === 'end' || event === 'error') return;
        }
      }
      if (signal?.aborted) return;
    }
  };
  return connect();
}

/** An estimated cost; `-` when the model has no price. */
export function usd(value) {
  return value === null || value === undefined ? '-' : `$${value.toFixed(4)}`;
}

export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k === 'class') node.className = v;
    else if (k === 'style') node.setAttribute('style', v);
    else if (k.startsWith('on')) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children.flat()) if (c !== undefined && c !== null) node.append(c);
  return node;
}
