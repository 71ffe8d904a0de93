/**
 * The simulator's answers to engine requests: exact tiktoken counts,
 * the deterministic summariser, and synthetic sizes (docs/reference/simulator.md#events). A text an
 * event declared with `"tokens": N` is charged N wherever the engine asks
 * for its count, and cutting it to K gives `<K of N tokens, cut>` of
 * exactly K tokens.
 */
import { deterministicSummary } from '../../context/deterministic-summary.js';
import type { EngineRequest } from '../../shapes/engine-requests.js';
import type { Encoding } from '../../shapes/model-info.js';
import { makeSyncHandler } from '../../tokens/exact-answers.js';

export class SimulatorCounter {
  /** Texts of the current event whose size the event declared. */
  private readonly declared = new Map<string, number>();
  /** Every synthetic text seen in this run, cut results included. */
  private readonly synthetic = new Set<string>();
  private readonly exact: (req: EngineRequest) => unknown;

  constructor(encoding: Encoding) {
    this.exact = makeSyncHandler(encoding, (region, entries, limit) => ({
      ok: true,
      text: deterministicSummary(region, entries, limit),
    }));
  }

  /** Declares `text` to count `tokens` while the current event runs; returns the text. */
  declare(text: string, tokens: number): string {
    this.declared.set(text, tokens);
    this.synthetic.add(text);
    return text;
  }

  endEvent(): void {
    this.declared.clear();
  }

  count(text: string): number {
    return this.declared.get(text) ?? (this.exact({ type: 'count', text }) as number);
  }

  readonly handle = (req: EngineRequest): unknown => {
    if (req.type === 'count') return this.count(req.text);
    if (req.type === 'cut' && typeof req.content === 'string' && this.synthetic.has(req.content)) {
      const target = Math.max(0, Math.min(req.target, req.tokens));
      const content = `<${target} of ${req.tokens} tokens, cut>`;
      this.synthetic.add(content);
      return { content, tokens: target };
    }
    return this.exact(req);
  };
}

/** The content a synthetic event gets when it gives none. */
export function syntheticContent(tokens: number): string {
  return `<${tokens} tokens>`;
}
