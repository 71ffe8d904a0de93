/**
 * `npm run bench -- profile DIR [--top n]`: reads the CPU profiles a bench's
 * `--profile` wrote (one `.cpuprofile` per thread of the worker process) and
 * prints, per thread, its busy time, where that time is spent (self time by
 * function and by package) and how much of it the SDK's promise hook takes,
 * by the workflow code that created the promises. Chrome DevTools opens the
 * same files; this answers the questions the fan-out bench asks of them
 * without it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The parts of V8's `.cpuprofile` format read here. */
export interface CpuProfile {
  nodes: {
    id: number;
    callFrame: { functionName: string; url: string; lineNumber: number };
    children?: number[];
  }[];
  samples: number[];
  timeDeltas: number[];
}

export interface ProfileSummary {
  /** Sampled time not idle, ms. */
  busyMs: number;
  /** Self time by function (`name file:line`), ms, largest first. */
  byFunction: [string, number][];
  /** Self time by package (`node_modules/<name>`), Node internals or the script's own file, ms. */
  byModule: [string, number][];
  /** Time under the promise hook (`initAll`), ms. */
  promiseHookMs: number;
  /** Promise-hook time by the function that created the promise and its caller, ms. */
  promiseHookBy: [string, number][];
}

const NOT_BUSY = new Set(['(idle)', '(root)']);

function frameName(cf: CpuProfile['nodes'][number]['callFrame']): string {
  const file = cf.url.split('/').slice(-2).join('/');
  return `${cf.functionName || '(anonymous)'} ${file}:${cf.lineNumber}`;
}

function moduleOf(url: string, fn: string): string {
  // The innermost package: protobufjs inside @temporalio/proto is protobufjs.
  const pkg = /.*node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1] as string;
  if (url.startsWith('node:')) return url.split('/').slice(0, 2).join('/');
  return url ? (url.split('/').pop() as string) : fn;
}

function sorted(m: Map<string, number>, top: number): [string, number][] {
  return [...m].sort((a, b) => b[1] - a[1]).slice(0, top);
}

function add(m: Map<string, number>, key: string, ms: number): void {
  m.set(key, (m.get(key) ?? 0) + ms);
}

export function summarise(profile: CpuProfile, top = 20): ProfileSummary {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const selfMs = new Map<number, number>();
  profile.samples.forEach((id, i) => {
    selfMs.set(id, (selfMs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000);
  });
  const byFunction = new Map<string, number>();
  const byModule = new Map<string, number>();
  const promiseHookBy = new Map<string, number>();
  let busyMs = 0;
  let promiseHookMs = 0;
  for (const [id, ms] of selfMs) {
    const node = byId.get(id);
    if (!node || NOT_BUSY.has(node.callFrame.functionName)) continue;
    busyMs += ms;
    add(byFunction, frameName(node.callFrame), ms);
    add(byModule, moduleOf(node.callFrame.url, node.callFrame.functionName), ms);
    // Charge the sample to the promise hook when it ran under one, and to the code that made the promise.
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const frame = byId.get(at)?.callFrame;
      if (frame?.functionName !== 'initAll' || frame.url !== 'node:internal/promise_hooks') continue;
      promiseHookMs += ms;
      const maker = parent.get(at);
      const caller = maker === undefined ? undefined : parent.get(maker);
      const names = [maker, caller].flatMap((n) => (n === undefined ? [] : [frameName(byId.get(n)!.callFrame)]));
      add(promiseHookBy, names.join(' < ') || '(unknown)', ms);
      break;
    }
  }
  return {
    busyMs,
    byFunction: sorted(byFunction, top),
    byModule: sorted(byModule, top),
    promiseHookMs,
    promiseHookBy: sorted(promiseHookBy, top),
  };
}

function table(title: string, rows: [string, number][], busyMs: number): string {
  const lines = rows.map(
    ([k, ms]) => `| ${k.replaceAll('|', '\\|')} | ${ms.toFixed(0)} | ${((100 * ms) / busyMs).toFixed(1)} |`,
  );
  return `\n| ${title} | ms | % of busy |\n|---|---|---|\n${lines.join('\n')}\n`;
}

export default function run(args: string[]): void {
  const dir = args.find((a) => !a.startsWith('--'));
  const topAt = args.indexOf('--top');
  const top = topAt >= 0 ? Number(args[topAt + 1]) : 15;
  if (!dir || !Number.isInteger(top) || top < 1) {
    process.stderr.write('usage: npm run bench -- profile DIR [--top n] (DIR: what a bench --profile wrote)\n');
    process.exitCode = 2;
    return;
  }
  const files = readdirSync(dir).filter((f) => f.endsWith('.cpuprofile'));
  if (files.length === 0) {
    process.stderr.write(`no .cpuprofile files in ${dir}; run a bench with --profile first\n`);
    process.exitCode = 2;
    return;
  }
  for (const file of files.sort()) {
    const s = summarise(JSON.parse(readFileSync(join(dir, file), 'utf8')) as CpuProfile, top);
    process.stdout.write(
      `\n## ${file}: ${s.busyMs.toFixed(0)} ms busy, ${s.promiseHookMs.toFixed(0)} ms (${((100 * s.promiseHookMs) / Math.max(s.busyMs, 1)).toFixed(1)} %) in the promise hook\n`,
    );
    process.stdout.write(table('self time by function', s.byFunction, s.busyMs));
    process.stdout.write(table('self time by module', s.byModule, s.busyMs));
    if (s.promiseHookMs > 0)
      process.stdout.write(table('promise hook by the code that made the promise', s.promiseHookBy, s.busyMs));
  }
}
