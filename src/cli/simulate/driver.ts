/**
 * `lev context simulate` (docs/reference/simulator.md): drives the pure region engine through
 * a file of events, in-process, with exact token counts and the
 * deterministic summariser. It calls the same engine operations a workflow
 * does, so every count and decision matches the runtime for the same input.
 */
import { enterStage } from '../../context/enter-stage.js';
import { evaluateGate, type GateFacts } from '../../context/gates.js';
import type { EngineEnv } from '../../context/kinds/custom.js';
import { type MaintenanceReport, maintain, recordUsage } from '../../context/maintenance.js';
import { contentText } from '../../context/measure.js';
import { renderPrompt } from '../../context/render.js';
import { type EngineOp, runSync } from '../../context/requests.js';
import { routeToolResult } from '../../context/routing.js';
import { seedRegion } from '../../context/seed-fit.js';
import { addDiagnostic, createRunState, findRegion, type RunState, windowUsed } from '../../context/state.js';
import { type ArgumentCounts, applyContextTool } from '../../context/tools.js';
import { applyTransform } from '../../context/transforms.js';
import { type WriteResult, writeEntry } from '../../context/write.js';
import { type Diagnostic, formatCoded, type RuntimeCode } from '../../errors.js';
import { customRegionHooks } from '../../runtime/region-hooks.js';
import { grantNote, offersRunTools } from '../../runtime/run-tools.js';
import type { CountedText, ToolCall } from '../../shapes/content.js';
import type { Blueprint, EdgeDef } from '../../shapes/frozen-blueprint.js';
import { countToolCall } from '../../tokens/call-costs.js';
import { tokenMeter } from '../../tokens/count.js';
import { modelEncoding } from '../../tokens/model.js';
import { blueprintLoader } from '../blueprint-loader.js';
import { parseEvents, type SimEvent } from './events.js';
import { buildOutput, type EventResult, type SimOutput } from './output.js';
import { SimulatorCounter, syntheticContent } from './sim-answers.js';

export interface SimulateOptions {
  stage?: string;
  window?: number;
  /** Path shown in diagnostics about the events file. */
  eventsFile?: string;
}

export interface SimulateResult {
  /** 0 when the run completed (even with failed events), 2 for invalid input. */
  exitCode: 0 | 2;
  /** Present when the run completed. */
  json?: SimOutput;
  /** Diagnostics for invalid input, one per line, each naming the file and line. */
  stderr: string;
}

/** `file:line:column: severity [code] message`, the form editors and CI parse. */
export function formatDiagnostic(d: Diagnostic): string {
  const where = [d.file, d.line, d.line !== undefined ? d.column : undefined].filter((p) => p !== undefined).join(':');
  const path = d.path ? ` (${d.path})` : '';
  return `${where ? `${where}: ` : ''}${d.severity} [${d.code}] ${d.message}${path}`;
}

function invalid(diagnostics: Diagnostic[]): SimulateResult {
  return { exitCode: 2, stderr: diagnostics.map((d) => `${formatDiagnostic(d)}\n`).join('') };
}

/** Coded failure text, as tool results show it. */
function failed(code: RuntimeCode, message: string): EventResult {
  return { ok: false, text: formatCoded(code, message) };
}

function written(result: WriteResult, what: string): EventResult {
  if (!result.ok) return failed(result.code, result.message);
  const parts = [`${what} added to ${result.region} (${result.used}/${result.max} tokens used)`];
  if (result.removed.length > 0)
    parts.push(`${result.removed.length} ${result.removed.length === 1 ? 'entry' : 'entries'} removed`);
  if (result.pending.length > 0) parts.push(`${result.pending.length} sent for summary`);
  return { ok: true, text: parts.join('; ') };
}

/** The simulator runs no file tools, so no modifying call ever succeeded or was denied. */
const NO_MODIFICATIONS: GateFacts = { modifyingCallSucceeded: false, modifyingCallDenied: false };

const TEXT_ARGUMENT: Record<string, keyof ArgumentCounts> = {
  context_append: 'content',
  context_write: 'content',
  todo_add: 'item',
  todo_note: 'note',
};

class Simulation {
  readonly results: EventResult[] = [];
  /** Calls of the latest assistant turn that have no result yet. */
  private pending = new Map<string, ToolCall>();
  /** Assistant turns since the last stage entry: the runtime's visit turns, shown to custom `render`. */
  visitTurns = 0;

  constructor(
    readonly state: RunState,
    readonly bp: Blueprint,
    readonly env: EngineEnv,
    readonly counter: SimulatorCounter,
  ) {}

  run<T>(op: EngineOp<T>): T {
    return runSync(op, this.counter.handle);
  }

  /** The event's text and its size: declared by `tokens`, else counted. */
  private sized(event: SimEvent, field: string): CountedText | string {
    const value = event.fields[field];
    if (value !== undefined && typeof value !== 'string') return `"${field}" must be a string`;
    if (event.tokens !== undefined) return { content: value ?? syntheticContent(event.tokens), tokens: event.tokens };
    if (value === undefined) return `"${field}" is required (or give "tokens" for a synthetic text)`;
    return { content: value, tokens: this.counter.count(value) };
  }

  apply(event: SimEvent): EventResult {
    try {
      return this.dispatch(event);
    } finally {
      this.counter.endEvent();
    }
  }

  private dispatch(event: SimEvent): EventResult {
    switch (event.op) {
      case 'user':
        return this.user(event);
      case 'assistant':
        return this.assistant(event);
      case 'tool_result':
        return this.toolResult(event);
      case 'enter_stage':
        return this.enterStage(event);
      case 'seed':
        return this.seed(event);
      case 'gate':
        return this.gate(event);
      case 'usage':
        return this.usage(event);
      default:
        return this.contextTool(event);
    }
  }

  private user(event: SimEvent): EventResult {
    const text = this.sized(event, 'content');
    if (typeof text === 'string') return failed('bad-argument', text);
    return written(
      this.run(writeEntry(this.state, 'conversation', { kind: 'user', ...text }, this.env)),
      `user message (${text.tokens} tokens)`,
    );
  }

  private assistant(event: SimEvent): EventResult {
    const calls = parseCalls(event.fields.tool_calls);
    if (typeof calls === 'string') return failed('bad-argument', calls);
    const content = event.fields.content;
    if (content !== undefined && typeof content !== 'string')
      return failed('bad-argument', '"content" must be a string');
    const maintenance = this.maintain();
    this.visitTurns++;
    const text = content ?? (event.tokens !== undefined && calls.length === 0 ? syntheticContent(event.tokens) : '');
    const count = (t: string) => this.counter.count(t);
    const tokens = event.tokens ?? count(text) + calls.reduce((sum, c) => sum + countToolCall(c, count).tokens, 0);
    const result = this.run(
      writeEntry(this.state, 'conversation', { kind: 'assistant', content: text, tokens, toolCalls: calls }, this.env),
    );
    this.pending = new Map(result.ok ? calls.map((c) => [c.id, c]) : []);
    const turn = written(
      result,
      `assistant turn (${tokens} tokens, ${calls.length} ${calls.length === 1 ? 'call' : 'calls'})`,
    );
    return { ok: turn.ok, text: maintenance ? `${maintenance}; ${turn.text}` : turn.text };
  }

  /** Runs a maintenance point; returns a summary of what it did, or '' when nothing happened. */
  maintain(): string {
    const report = this.run(maintain(this.state, this.bp, this.env));
    return describeMaintenance(report);
  }

  private toolResult(event: SimEvent): EventResult {
    const id = event.fields.tool_call_id;
    if (typeof id !== 'string') return failed('missing-argument', '"tool_call_id" is required.');
    const call = this.pending.get(id);
    if (!call) return failed('unknown-call', this.unmatched(id));
    const text = this.sized(event, 'content');
    if (typeof text === 'string') return failed('bad-argument', text);
    const isError = event.fields.is_error === true;
    const name = typeof event.fields.tool_name === 'string' ? event.fields.tool_name : call.name;
    this.pending.delete(id);
    if (event.tokens !== undefined && typeof text.content === 'string')
      this.counter.declare(text.content, event.tokens);
    const routed = this.run(routeToolResult(this.state, this.bp, { ...call, name }, { ...text, isError }, this.env));
    return { ok: !isError, text: routed.text };
  }

  private unmatched(id: string): string {
    const open = [...this.pending.keys()];
    return `tool_call_id "${id}" is not a pending call of the latest assistant turn; ${open.length > 0 ? `pending calls are ${open.join(', ')}` : 'no calls are pending'}.`;
  }

  private contextTool(event: SimEvent): EventResult {
    const { op: _op, tokens: _tokens, tool_call_id: callId, ...args } = event.fields;
    let call: ToolCall | undefined;
    if (callId !== undefined) {
      call = typeof callId === 'string' ? this.pending.get(callId) : undefined;
      if (!call) return failed('unknown-call', this.unmatched(String(callId)));
    }
    const field = TEXT_ARGUMENT[event.op];
    const counts: ArgumentCounts = {};
    if (event.tokens !== undefined && field) {
      const given = args[field];
      const text = typeof given === 'string' ? given : syntheticContent(event.tokens);
      args[field] = this.counter.declare(text, event.tokens);
      counts[field] = event.tokens;
    }
    const result = this.run(applyContextTool(this.state, this.bp, event.op, args, this.env, counts));
    // The simulator holds no blob store, so every answer is inline text.
    const answer = contentText(result.content);
    if (call) {
      this.pending.delete(call.id);
      const tokens = result.tokens ?? this.counter.count(answer);
      this.run(
        routeToolResult(
          this.state,
          this.bp,
          { ...call, name: event.op, arguments: args },
          { content: answer, tokens, isError: result.isError },
          this.env,
        ),
      );
    }
    return { ok: !result.isError, text: answer };
  }

  private enterStage(event: SimEvent): EventResult {
    const target = event.fields.stage;
    if (typeof target !== 'string' || target === '') return failed('missing-argument', '"stage" is required.');
    if (!this.bp.stages.some((s) => s.name === target)) {
      return failed(
        'unknown-stage',
        `there is no stage "${target}"; stages are ${this.bp.stages.map((s) => s.name).join(', ')}.`,
      );
    }
    const from = this.state.stage;
    const edge = edgeBetween(this.bp, from, target);
    if (edge) applyTransform(this.state, this.bp, edge);
    const entered = this.run(enterStage(this.state, this.bp, target, this.env));
    if (!entered.ok) return failed(entered.code, entered.message);
    this.visitTurns = 0;
    const how = edge
      ? `through the edge ${from} → ${target} (transform ${edge.transform})`
      : `directly (no edge from ${from} to ${target})`;
    return { ok: true, text: `entered stage ${target} ${how}; window ${entered.window} tokens` };
  }

  private seed(event: SimEvent): EventResult {
    const name = event.fields.region;
    if (typeof name !== 'string' || name === '') return failed('missing-argument', '"region" is required.');
    const region = findRegion(this.state, name);
    if (!region)
      return failed(
        'unknown-region',
        `there is no region "${name}"; regions are ${this.state.regions.map((r) => r.name).join(', ')}.`,
      );
    const text = this.sized(event, 'content');
    if (typeof text === 'string') return failed('bad-argument', text);
    if (event.tokens !== undefined && typeof text.content === 'string')
      this.counter.declare(text.content, event.tokens);
    const seeded = this.run(seedRegion(this.state, name, [text], this.env, { replaceSeeded: true }));
    if (!seeded.ok) return failed(seeded.code, seeded.message);
    const cut = seeded.cut
      ? `; the last was cut to fit and ${seeded.leftOut} left out`
      : seeded.leftOut > 0
        ? `; ${seeded.leftOut} left out`
        : '';
    return {
      ok: true,
      text: `seeded ${name} with ${plural(seeded.written.length, 'entry', 'entries')} (${regionTokensOf(this.state, name)} tokens)${cut}`,
    };
  }

  private gate(event: SimEvent): EventResult {
    const to = event.fields.to;
    if (typeof to !== 'string' || to === '') return failed('missing-argument', '"to" is required.');
    const edge = edgeBetween(this.bp, this.state.stage, to);
    if (!edge) return failed('no-edge', `stage "${this.state.stage}" has no edge to "${to}".`);
    const verdict = this.run(evaluateGate(this.state, this.bp, this.state.stage, edge, NO_MODIFICATIONS, this.env));
    if (verdict.outcome === 'block') return { ok: false, text: verdict.nudge ?? 'blocked' };
    if (verdict.outcome === 'forced')
      return {
        ok: true,
        text: `gate to ${to} forced through after ${this.state.attempts} attempts (${verdict.check ?? 'check'} failing)`,
      };
    return { ok: true, text: `gate to ${to} passed` };
  }

  private usage(event: SimEvent): EventResult {
    const reported = event.fields.prompt_tokens;
    if (typeof reported !== 'number' || !Number.isInteger(reported) || reported < 0) {
      return failed('bad-argument', '"prompt_tokens" must be a non-negative integer.');
    }
    const estimated = this.state.usedAtLastMaintenance ?? windowUsed(this.state);
    recordUsage(this.state, reported);
    return {
      ok: true,
      text: `provider reported ${reported} prompt tokens against ${estimated} estimated; gap ${this.state.window.gap}`,
    };
  }
}

function plural(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** One line saying what a maintenance point did; empty when it did nothing. */
export function describeMaintenance(report: MaintenanceReport): string {
  const parts: string[] = [];
  for (const f of report.folds) {
    if (!f.ok) {
      parts.push(`fold of ${f.region} failed${f.error ? ` (${f.error})` : ''}`);
      continue;
    }
    const where = f.deliveredTo
      ? ` delivered to ${f.deliveredTo}${f.historyResummarised ? ', which was re-summarised' : ''}`
      : '';
    parts.push(
      `folded ${plural(f.folded, 'entry', 'entries')} (${f.foldedTokens} tokens) of ${f.region} into a ${f.summaryTokens ?? 0}-token summary${where}`,
    );
  }
  for (const r of report.removed)
    parts.push(`cascade removed ${plural(r.entries.length, 'entry', 'entries')} from ${r.region}`);
  if (report.windowPressure)
    parts.push(`window pressure: ${report.windowPressure.shortfall} tokens short of the reply headroom`);
  return parts.length > 0 ? `maintenance: ${parts.join(', ')}` : '';
}

function regionTokensOf(state: RunState, name: string): number {
  return findRegion(state, name)?.entries.reduce((s, e) => s + e.tokens, 0) ?? 0;
}

function edgeBetween(bp: Blueprint, from: string, to: string): EdgeDef | undefined {
  return bp.stages.find((s) => s.name === from)?.transitions.find((e) => e.target === to);
}

function parseCalls(value: unknown): ToolCall[] | string {
  if (value === undefined) return [];
  if (!Array.isArray(value)) return '"tool_calls" must be an array of {id, name, arguments}';
  const calls: ToolCall[] = [];
  for (const c of value) {
    const call = c as Record<string, unknown> | null;
    if (typeof call?.id !== 'string' || typeof call.name !== 'string')
      return 'each tool call needs a string "id" and "name"';
    const args = call.arguments ?? {};
    if (typeof args !== 'object' || args === null || Array.isArray(args))
      return `tool call ${call.id}: "arguments" must be an object`;
    calls.push({ id: call.id, name: call.name, arguments: args as Record<string, unknown> });
  }
  return calls;
}

/** Counts each stage prompt the way the blueprint-loading activity does. */
function withPromptTokens(bp: Blueprint, counter: SimulatorCounter): Blueprint {
  return {
    ...bp,
    stages: bp.stages.map((s) =>
      s.systemPrompt !== undefined && s.systemPromptTokens === undefined
        ? { ...s, systemPromptTokens: counter.count(s.systemPrompt) }
        : s,
    ),
  };
}

/** Runs a simulation; never throws for bad input, which is reported on `stderr` with exit 2. */
export function simulate(blueprintPath: string, eventsText: string, opts: SimulateOptions = {}): SimulateResult {
  const loader = blueprintLoader();
  const loaded = loader.load(blueprintPath, opts.window !== undefined ? { window: opts.window } : {});
  const errors = [...loader.configDiagnostics, ...loaded.diagnostics].filter((d) => d.severity === 'error');
  if (!loaded.blueprint || errors.length > 0) return invalid(errors.length > 0 ? errors : loaded.diagnostics);

  const parsed = parseEvents(eventsText);
  if (!parsed.ok) {
    return invalid([
      {
        code: 'bad-event',
        severity: 'error',
        message: parsed.error.message,
        file: opts.eventsFile ?? '<events>',
        line: parsed.error.line,
      },
    ]);
  }

  const stageName = opts.stage ?? loaded.blueprint.agent.entryStage;
  const startStage = loaded.blueprint.stages.find((s) => s.name === stageName);
  if (!startStage) {
    const names = loaded.blueprint.stages.map((s) => s.name).join(', ');
    return invalid([
      {
        code: 'unknown-stage',
        severity: 'error',
        message: `--stage ${stageName} is not a stage of this blueprint; stages are ${names}.`,
        file: loaded.file,
      },
    ]);
  }

  const encoding = modelEncoding(loaded.blueprint.models, startStage.model);
  const counter = new SimulatorCounter(encoding);
  const bp = withPromptTokens(loaded.blueprint, counter);
  const env: EngineEnv = { now: 0, hooks: customRegionHooks(bp) };
  const state = createRunState(bp, opts.window !== undefined ? { window: opts.window } : {});
  const sim = new Simulation(state, bp, env, counter);
  for (const d of loaded.diagnostics)
    addDiagnostic(state, d.code, d.severity, d.path ? `${d.path}: ${d.message}` : d.message);

  const entered = sim.run(enterStage(state, bp, stageName, env));
  if (!entered.ok)
    return invalid([{ code: entered.code, severity: 'error', message: entered.message, file: loaded.file }]);
  applyStartSeeds(sim);

  for (const event of parsed.events) sim.results.push(sim.apply(event));

  sim.maintain();
  // A new run's turn offers the run's tools where the stage's own differ, and reads its grants.
  const note = offersRunTools(bp, state.stage) ? grantNote(bp, state.stage) : undefined;
  const prompt = renderPrompt(state, bp, env, {
    iteration: sim.visitTurns,
    meter: tokenMeter(encoding),
    ...(note ? { grantNote: note } : {}),
  });
  for (const f of prompt.failures) addDiagnostic(state, f.code, f.severity, f.detail);
  return { exitCode: 0, json: buildOutput(state, sim.results, prompt), stderr: '' };
}

/** docs/reference/simulator.md#start-state step 4: literal seeds are applied; other forms wait for a `seed` event. */
function applyStartSeeds(sim: Simulation): void {
  for (const region of sim.state.regions) {
    const seed = region.def.seed;
    if (!seed) continue;
    if (seed.form !== 'literal') {
      addDiagnostic(
        sim.state,
        'seed-not-simulated',
        'note',
        `region ${region.name}: its ${seed.form} seed is not resolved by the simulator; a seed event fills it`,
      );
      continue;
    }
    const text: CountedText = { content: seed.text, tokens: sim.counter.count(seed.text) };
    const seeded = sim.run(seedRegion(sim.state, region.name, [text], sim.env, { replaceSeeded: true }));
    if (!seeded.ok) addDiagnostic(sim.state, seeded.code, 'warning', `region ${region.name}: ${seeded.message}`);
  }
}
