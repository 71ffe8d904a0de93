/** What `lev blueprint push` and `lev blueprint list` do, on the store under the Leviath home. */
import { resolve } from 'node:path';
import { BlueprintStore, type BlueprintVersion, formatRef } from '../blueprints-store/store.js';
import { columnWidths } from './columns.js';
import { loadOrExplain } from './load-blueprint.js';

export function pushBlueprint(dir: string, flags: { name?: string; json?: boolean }): BlueprintVersion {
  const bp = loadOrExplain(dir);
  const store = new BlueprintStore();
  const pushed = store.push(flags.name ?? bp.agent.name, bp, resolve(dir));
  const ref = formatRef(pushed);
  if (flags.json) process.stdout.write(`${JSON.stringify({ ref, ...pushed })}\n`);
  else
    process.stdout.write(
      `${ref}${pushed.created ? '' : ' (unchanged: the latest version already holds this blueprint)'} sha256:${pushed.hash.slice(0, 12)}\n`,
    );
  return pushed;
}

export function listBlueprints(name: string | undefined, flags: { json?: boolean }): void {
  const store = new BlueprintStore();
  const rows = name === undefined ? store.names() : store.versions(name);
  if (flags.json) {
    process.stdout.write(`${JSON.stringify(rows.map((v) => ({ ref: formatRef(v), ...v })))}\n`);
    return;
  }
  if (name !== undefined && rows.length === 0) store.find({ name });
  const header = ['REF', 'HASH', 'PUSHED', 'SOURCE'];
  const cells = rows.map((v) => [formatRef(v), v.hash.slice(0, 12), v.pushedAt, v.source]);
  const widths = columnWidths(header, cells);
  for (const row of [header, ...cells])
    process.stdout.write(
      `${row
        .map((c, i) => c.padEnd(widths[i] ?? 0))
        .join('  ')
        .trimEnd()}\n`,
    );
}
