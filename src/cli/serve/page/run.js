// One run, live: its window as stacked region bars turn by turn (with evictions and folds
// marked), the model's text as it streams, tool calls, gates and waits, cost and cache reuse
// per turn, and the operator controls. Events come from the run's event stream; what waits
// for a person comes from the run's view, read again whenever a wait starts or ends.
import { el, followEvents, getJson, postJson, runPath, usd } from './api.js';

const runId = decodeURIComponent(location.pathname.replace(/^\/runs\//, ''));
const $ = (id) => document.getElementById(id);
document.title = `Leviath run ${runId}`;
$('run-title').textContent = `Run ${runId}`;

const PALETTE = [
  '#4e79a7',
  '#f28e2b',
  '#59a14f',
  '#e15759',
  '#76b7b2',
  '#edc948',
  '#b07aa1',
  '#ff9da7',
  '#9c755f',
  '#bab0ac',
];
const colours = new Map();
function colourOf(region) {
  if (!colours.has(region)) {
    colours.set(region, PALETTE[colours.size % PALETTE.length]);
    $('legend').append(
      el(
        'li',
        {},
        el('span', { class: 'swatch', style: `background:${colours.get(region)}`, 'aria-hidden': 'true' }),
        region,
      ),
    );
  }
  return colours.get(region);
}

/** Evictions and folds since the last turn row, marked on the next one. */
let marks = [];
/** The turn whose text streams now, and its text so far. */
let liveTurn;
let liveText = '';
let lastRowTurn = -1;
let streamOk = true;

function addTurnRow({ turn, stage, window, usage, cost, preview }) {
  if (turn <= lastRowTurn) return;
  lastRowTurn = turn;
  const max = window.max || 1;
  const bar = el(
    'div',
    { class: 'bar', role: 'img', 'aria-label': window.regions.map((r) => `${r.region} ${r.tokens} tokens`).join(', ') },
    window.regions
      .filter((r) => r.tokens > 0)
      .map((r) =>
        el('span', {
          class: 'seg',
          title: `${r.region}: ${r.tokens}${r.budget ? ` / ${r.budget}` : ''} tokens`,
          style: `width:${((100 * r.tokens) / max).toFixed(2)}%;background:${colourOf(r.region)}`,
        }),
      ),
  );
  for (const r of window.regions) colourOf(r.region);
  const facts = [`${window.used} / ${window.max} tokens`];
  if (usage) {
    const reuse = usage.promptTokens > 0 ? Math.round((100 * usage.cacheReadTokens) / usage.promptTokens) : 0;
    facts.push(`cache read ${usage.cacheReadTokens} (${reuse}%)`, `cost ${usd(cost)}`);
  }
  const row = el(
    'li',
    { class: 'turn', 'data-turn': turn },
    el('span', { class: 'turn-label' }, `turn ${turn}${stage ? ` · ${stage}` : ''}`),
    bar,
    el('span', { class: 'turn-facts' }, facts.join(' · ')),
    marks.length > 0
      ? el(
          'ul',
          { class: 'marks' },
          marks.map((m) => el('li', { class: `mark ${m.kind}` }, m.text)),
        )
      : null,
    preview ? el('span', { class: 'preview' }, preview) : null,
  );
  marks = [];
  $('turns').append(row);
}

function activity(text, kind = '') {
  $('activity').append(el('li', { class: kind }, text));
}

function onText(delta) {
  if (delta.turn !== liveTurn) {
    liveTurn = delta.turn;
    liveText = '';
    $('text-turn').textContent = `turn ${delta.turn}`;
  }
  // A delta already seen is skipped; one after a hole is shown where it starts.
  if (delta.at + delta.text.length <= liveText.length) return;
  liveText = liveText.slice(0, Math.min(delta.at, liveText.length)) + delta.text;
  $('live-text').textContent = liveText;
}

function onEvent(e) {
  switch (e.kind) {
    case 'turn-started':
      liveTurn = e.turn;
      liveText = '';
      $('text-turn').textContent = `turn ${e.turn} · ${e.stage}`;
      $('live-text').textContent = '';
      break;
    case 'turn-ended':
      addTurnRow(e);
      // A reply that did not stream (or streamed before this page opened, or whose last
      // characters came after the last delta) shows at least its start.
      if (e.turn !== liveTurn || liveText.length < e.preview.length) {
        liveTurn = e.turn;
        liveText = e.preview;
        $('text-turn').textContent = `turn ${e.turn} · ${e.stage}`;
        $('live-text').textContent = e.preview;
      }
      break;
    case 'evicted':
    case 'folded':
      marks.push({
        kind: e.kind,
        text: `${e.kind} ${e.entries} entr${e.entries === 1 ? 'y' : 'ies'} (${e.tokens} tokens) of ${e.region}`,
      });
      break;
    case 'tool-call':
      activity(`→ ${e.subject} (call ${e.call})`, 'call');
      break;
    case 'tool-result':
      activity(`${e.ok ? '✓' : '✗'} ${e.tool}: ${e.summary}`, e.ok ? 'ok' : 'failed');
      break;
    case 'gate':
      activity(
        `gate ${e.gate} of ${e.stage}: ${e.passed ? 'passed' : 'blocked'}${e.detail ? ` (${e.detail})` : ''}`,
        e.passed ? 'ok' : 'failed',
      );
      break;
    case 'wait-started':
      activity(`waiting: ${e.detail ?? e.wait}`, 'wait');
      refreshView();
      break;
    case 'wait-ended':
      activity(`wait over: ${e.wait} (${e.ended})`, 'wait');
      refreshView();
      break;
    case 'stage-entered':
      activity(`stage ${e.stage} entered (visit ${e.visit})`, 'stage');
      break;
    case 'stage-left':
      activity(`stage ${e.stage} left: ${e.end}`, 'stage');
      break;
    case 'run-ended':
      activity(`run ended: ${e.status}${e.code ? ` [${e.code}]` : ''}`, 'stage');
      refreshView();
      break;
  }
}

function askControls(ask) {
  const note = el('input', { id: `note-${ask.call}`, name: 'note' });
  if (ask.kind === 'approval')
    return el(
      'form',
      { class: 'ask', 'aria-label': `Approval of ${ask.subject}`, onsubmit: (e) => e.preventDefault() },
      el('p', {}, 'Waits for approval: ', el('code', {}, ask.subject), ` (call ${ask.call})`),
      el('label', { for: note.id }, 'Note (optional)'),
      note,
      el(
        'button',
        {
          type: 'button',
          onclick: () => send('approve', { call: ask.call, ...(note.value ? { note: note.value } : {}) }),
        },
        'Approve',
      ),
      el(
        'button',
        {
          type: 'button',
          class: 'danger',
          onclick: () => send('deny', { call: ask.call, ...(note.value ? { note: note.value } : {}) }),
        },
        'Deny',
      ),
    );
  const answer = el('input', { id: `answer-${ask.call}`, name: 'text', required: !ask.optional });
  return el(
    'form',
    {
      class: 'ask',
      'aria-label': `Question: ${ask.subject}`,
      onsubmit: (e) => {
        e.preventDefault();
        const value = answer.value.trim();
        const body = ask.options?.length && /^\d+$/.test(value) ? { choice: Number(value) } : { text: value };
        send('answer', { call: ask.call, ...body });
      },
    },
    el('p', {}, `Question (call ${ask.call}): ${ask.subject}`),
    ask.options?.length
      ? el(
          'ol',
          {},
          ask.options.map((o) => el('li', {}, o)),
        )
      : null,
    el('label', { for: answer.id }, ask.options?.length ? 'Your answer (text or option number)' : 'Your answer'),
    answer,
    el('button', { type: 'submit' }, 'Answer'),
  );
}

async function send(update, body = {}) {
  const status = $('control-status');
  status.textContent = `sending ${update} …`;
  try {
    await postJson(runPath(runId, `/${update}`), body);
    status.textContent = `${update}: done`;
  } catch (err) {
    status.textContent = `error [${err.code}] ${err.message}`;
  }
  refreshView();
}

let viewTurns = -1;
async function refreshView() {
  let v;
  try {
    v = await getJson(runPath(runId));
  } catch (err) {
    $('run-summary').textContent = `error [${err.code}] ${err.message}`;
    return;
  }
  const usage = v.usage
    ? `, ${v.usage.promptTokens + v.usage.completionTokens} tokens, cache read ${v.usage.cacheReadTokens}`
    : '';
  $('run-summary').textContent =
    `${v.status}${v.stage ? ` in ${v.stage}` : ''} · ${v.turns ?? 0} turns${usage} · cost ${usd(v.costUsd)}`;
  document.body.dataset.status = v.status;
  if (v.output) {
    $('answer').hidden = false;
    $('answer-format').textContent = v.output.format;
    $('answer-text').textContent = v.output.text;
  }
  $('asks').replaceChildren(...v.asks.map(askControls));
  $('pause').disabled = v.executionStatus !== 'RUNNING' || v.paused;
  $('resume').disabled = v.executionStatus !== 'RUNNING' || !v.paused;
  $('cancel').disabled = v.executionStatus !== 'RUNNING';
  for (const input of document.querySelectorAll('#message-form textarea, #message-form button'))
    input.disabled = v.executionStatus !== 'RUNNING';
  // Without an event stream (a run of an earlier version), the bars come from the view.
  if (!streamOk && v.turns !== null && v.turns !== viewTurns && v.window) {
    viewTurns = v.turns;
    addTurnRow({
      turn: v.turns,
      stage: v.stage,
      window: {
        used: v.window.used,
        max: v.window.max,
        regions: v.regions.map((r) => ({ region: r.name, tokens: r.tokens, budget: r.budget })),
      },
    });
  }
}

$('message-form').addEventListener('submit', (e) => {
  e.preventDefault();
  const text = $('message').value;
  send('message', { text }).then(() => {
    $('message').value = '';
  });
});
$('pause').addEventListener('click', () => send('pause'));
$('resume').addEventListener('click', () => send('resume'));
$('cancel').addEventListener('click', () => send('cancel'));

refreshView();
setInterval(refreshView, 2000);
followEvents(runId, (event, data) => {
  if (event === 'event') onEvent(data);
  else if (event === 'text') onText(data);
  else if (event === 'error') {
    streamOk = false;
    activity(`no event stream: [${data.code}] ${data.message}`, 'failed');
    refreshView();
  } else if (event === 'end') refreshView();
});
