/** What `lev blueprint push` and `lev blueprint list` do, on the configured store (docs/reference/cluster-runs.md#the-store). */
import { resolve } from 'node:path';
import { withBlueprintStore } from '../blueprints-store/configured.js';
import { type BlueprintVersion, formatRef } from '../blueprints-store/pushed-blueprints.js';
import { columnWidths } from './columns.js';
import { loadOrExplain } from './load-blueprint.js';

export async function pushBlueprint(dir: string, flags: { name?: string; json?: boolean }): Promise<BlueprintVersion> {
  const bp = loadOrExplain(dir);
  const pushed = await withBlueprintStore((store) => store.push(flags.name ?? bp.agent.name, bp, resolve(dir)));
  const ref = formatRef(pushed);
  if (flags.json) process.stdout.write(`${JSON.stringify({ ref, ...pushed })}\n`);
  else
    process.stdout.write(
      `${ref}${pushed.created ? '' : ' (unchanged: the latest version already holds this blueprint)'} sha256:${pushed.hash.slice(0, 12)}\n`,
    );
  return pushed;
}

export async function listBlueprints(name: string | undefined, flags: { json?: boolean }): Promise<void> {
  const rows = await withBlueprintStore(async (store) => {
    const found = name === undefined ? await store.names() : await store.versions(name);
    // No version of the name: say so as a lookup of it would.
    if (name !== undefined && found.length === 0 && !flags.json) await store.find({ name });
    return found;
  });
  if (flags.json) {
    process.stdout.write(`${JSON.stringify(rows.map((v) => ({ ref: formatRef(v), ...v })))}\n`);
    return;
  }
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
