/**
 * Context transforms between a parent and its child (docs/reference/sub-agents.md#context-transforms):
 * which of the parent's entries go where, what the child writes of them, and
 * that the child's region keeps its own budget.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LocalBlobStore } from '../../src/blobs/index.js';
import { maintain } from '../../src/context/maintenance.js';
import { createRunState, findRegion } from '../../src/context/state.js';
import { markForFold } from '../../src/context/transforms.js';
import { writeEntry } from '../../src/context/write.js';
import {
  extractFields,
  handoffParts,
  handoffRefusedDetail,
  handoffText,
  handoffWrite,
} from '../../src/runtime/agents/handoff.js';
import { workerSpec } from '../../src/runtime/agents/worker-spec.js';
import { applyLive, ENGINE, type OpCall, type RecordedOp, replayOps } from '../../src/runtime/index.js';
import { handoffTexts } from '../../src/runtime/node/text.js';
import type { HandoffPart, RunOptions } from '../../src/runtime/types.js';
import { countTokens } from '../../src/tokens/index.js';
import { blueprint, def, env, handle, put, run, stage, start, user } from '../context/helpers.js';

const PARENT = blueprint(
  [def('findings', 'pinned'), def('facts', 'pinned'), def('empty', 'temporary', { maxTokens: 100 })],
  [stage('main')],
);

function parentState() {
  const s = start(PARENT);
  put(s, 'findings', 'The parser drops trailing commas.', 8);
  put(s, 'findings', 'The lexer is fine.', 5);
  put(s, 'facts', '{"bug":"commas","file":"src/parse.ts","noise":1}', 12);
  user(s, 'Review the parser.', 5);
  return s;
}

describe('handoffParts', () => {
  it('hands each mapped region, in the order written, as its entries oldest first', () => {
    const parts = handoffParts(
      [
        { from: 'facts', to: 'brief', transform: 'extract', fields: ['file'] },
        { from: 'findings', to: 'source_material', transform: 'direct' },
        { from: 'conversation', to: 'history', transform: 'summarize' },
      ],
      parentState(),
    );
    expect(parts).toEqual([
      {
        region: 'brief',
        parts: ['{"bug":"commas","file":"src/parse.ts","noise":1}'],
        transform: 'extract',
        fields: ['file'],
      },
      {
        region: 'source_material',
        parts: ['The parser drops trailing commas.', 'The lexer is fine.'],
        transform: 'direct',
      },
      { region: 'history', parts: ['Review the parser.'], transform: 'summarize' },
    ]);
  });

  it('hands nothing of a region the parent lacks or holds nothing in, as the original', () => {
    const mappings = [
      { from: 'nowhere', to: 'a', transform: 'direct' as const },
      { from: 'empty', to: 'b', transform: 'direct' as const },
    ];
    expect(handoffParts(mappings, parentState())).toEqual([]);
  });

  it('hands a stored entry by its reference, not its text', () => {
    const s = start(PARENT);
    const ref = { hash: 'abc', bytes: 90_000, preview: 'long…' };
    put(s, 'findings', ref as unknown as string, 20);
    expect(handoffParts([{ from: 'findings', to: 'x', transform: 'direct' }], s)[0]?.parts).toEqual([ref]);
  });
});

describe('handoffText and extractFields', () => {
  it('joins the entries with newlines; nothing to write is empty', () => {
    expect(handoffText({ transform: 'direct' }, ['a', 'b'])).toBe('a\nb');
    expect(handoffText({ transform: 'summarize' }, ['a'])).toBe('a');
    expect(handoffText({ transform: 'direct' }, [''])).toBe('');
    expect(handoffText({ transform: 'direct' }, [])).toBe('');
  });

  it('extract keeps the named fields of a JSON object, in the order named, as indented JSON', () => {
    const text = handoffText({ transform: 'extract', fields: ['file', 'missing', 'bug'] }, [
      '{"bug":"commas","file":"src/parse.ts","noise":1}',
    ]);
    expect(text).toBe('{\n  "file": "src/parse.ts",\n  "bug": "commas"\n}');
  });

  it('extract hands text that is not a JSON object as it is', () => {
    expect(extractFields('[1,2]', ['a'])).toBe('[1,2]');
    expect(extractFields('plain text', ['a'])).toBe('plain text');
    expect(extractFields('null', ['a'])).toBe('null');
  });
});

describe("the child's writes", () => {
  const CHILD = blueprint(
    [def('brief', 'pinned', { maxTokens: 50 }), def('notes', 'temporary', { maxTokens: 30 })],
    [stage('review')],
  );

  it('go to the conversation as a user turn and anywhere else as a text entry', () => {
    expect(handoffWrite({ region: 'conversation', content: 'c', tokens: 1, summarize: false }).entry.kind).toBe('user');
    expect(handoffWrite({ region: 'brief', content: 'b', tokens: 1, summarize: false })).toEqual({
      kind: 'write',
      region: 'brief',
      entry: { content: 'b', tokens: 1, kind: 'text' },
    });
  });

  it("keep the child's budget: a rolling region evicts its oldest entries, a pinned one refuses what does not fit", () => {
    const s = start(CHILD);
    put(s, 'notes', 'old note', 20);
    const w = handoffWrite({ region: 'notes', content: 'handed', tokens: 20, summarize: false });
    expect(run(writeEntry(s, w.region, w.entry, env)).ok).toBe(true);
    expect(findRegion(s, 'notes')?.entries.map((e) => e.content)).toEqual(['handed']);
    const big = handoffWrite({ region: 'brief', content: 'x'.repeat(400), tokens: 100, summarize: false });
    const refused = run(writeEntry(s, big.region, big.entry, env));
    expect(refused.ok).toBe(false);
    if (!refused.ok) expect(refused.code).toBe('too-large');
    expect(handoffRefusedDetail('brief', 'too big')).toBe(
      'the context the parent handed to region "brief" was not written: too big',
    );
  });

  it('summarize: the region is folded whole at the next maintenance point', () => {
    const s = start(CHILD);
    put(s, 'brief', 'first handed line', 20);
    put(s, 'brief', 'second handed line', 20);
    markForFold(s, 'brief');
    markForFold(s, 'nowhere');
    run(maintain(s, CHILD, env));
    const entries = findRegion(s, 'brief')?.entries ?? [];
    expect(entries).toHaveLength(1);
    expect(entries[0]?.summary).toBe(true);
  });
});

describe('the compact operation', () => {
  const CHILD = blueprint([def('brief', 'pinned', { maxTokens: 200 })], [stage('review')]);

  it('replays from its record to the region set the workflow holds (the inference activity rebuilds it so)', async () => {
    const calls: OpCall[] = [
      { kind: 'enterStage', stage: 'review' },
      handoffWrite({ region: 'brief', content: 'handed text', tokens: 30, summarize: true }),
      { kind: 'compact', region: 'brief' },
      { kind: 'maintain' },
    ];
    const live = createRunState(CHILD, { window: 100_000 });
    const records: RecordedOp[] = [];
    for (const call of calls)
      records.push((await applyLive(ENGINE, live, CHILD, call, env, async (r) => handle(r))).record);
    const replayed = createRunState(CHILD, { window: 100_000 });
    replayOps(ENGINE, replayed, CHILD, records);
    expect(replayed).toEqual(live);
    expect(findRegion(live, 'brief')?.entries.map((e) => e.summary)).toEqual([true]);
  });
});

describe('handoffTexts (the child activity)', () => {
  it('reads stored parts, transforms, counts for the child model and leaves out what is empty', async () => {
    const store = new LocalBlobStore(mkdtempSync(join(tmpdir(), 'lev-handoff-')));
    const stored = await store.put('a stored finding');
    const parts: HandoffPart[] = [
      { region: 'source', parts: ['inline', stored], transform: 'direct' },
      { region: 'brief', parts: ['{"a":1,"b":2}'], transform: 'extract', fields: ['b'] },
      { region: 'history', parts: ['talk'], transform: 'summarize' },
      { region: 'nothing', parts: [''], transform: 'direct' },
    ];
    const texts = await handoffTexts(store, parts, 'o200k_base');
    expect(texts).toEqual([
      {
        region: 'source',
        content: 'inline\na stored finding',
        tokens: countTokens('inline\na stored finding', 'o200k_base'),
        summarize: false,
      },
      {
        region: 'brief',
        content: '{\n  "b": 2\n}',
        tokens: countTokens('{\n  "b": 2\n}', 'o200k_base'),
        summarize: false,
      },
      { region: 'history', content: 'talk', tokens: countTokens('talk', 'o200k_base'), summarize: true },
    ]);
  });
});

describe("a worker's start", () => {
  const OPTIONS = { unattended: true } as RunOptions;
  const visit = {
    runId: 'run-1',
    blueprintHash: 'bp-1',
    stage: 'plan',
    lineage: { maxDepth: 3, ceiling: [] },
    workdir: '/w',
    options: OPTIONS,
  };
  const target = { blueprint: { agent: 'helper' }, label: 'helper' };

  it('carries the handed parts last in its child, and nothing when none is handed (as recorded before)', () => {
    const handed: HandoffPart[] = [{ region: 'brief', parts: ['x'], transform: 'direct' }];
    expect(Object.keys(workerSpec(visit, target, false, handed).child)).toEqual([
      'parentRunId',
      'agent',
      'lineage',
      'handoff',
    ]);
    expect(workerSpec(visit, target, false, handed).child.handoff).toEqual(handed);
    expect(workerSpec(visit, target, false, [])).toEqual(workerSpec(visit, target));
    expect('handoff' in workerSpec(visit, target).child).toBe(false);
  });
});
