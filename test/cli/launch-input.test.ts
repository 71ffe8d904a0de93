/** `launchInput`, the one path `lev run`, `lev serve` and the library start a run through: its title (docs/reference/cli.md#run-titles). */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkTitle, launchInput } from '../../src/cli/launch-input.js';
import { isLevError } from '../../src/errors.js';

const launch = (title?: string) =>
  launchInput(
    join(import.meta.dirname, '..', '..', 'blueprints', 'demo'),
    {
      task: 'Find the bug.',
      caller: {},
      workdir: mkdtempSync(join(tmpdir(), 'launch-')),
      seedCommands: false,
      ...(title !== undefined ? { title } : {}),
    },
    { say: () => {}, quiet: true },
  );

describe('a launch title', () => {
  it('reaches the start input trimmed, and is absent when none was given', async () => {
    expect((await launch('  Billing outage  ')).title).toBe('Billing outage');
    expect('title' in (await launch())).toBe(false);
  });

  it('is title-invalid when empty, on several lines or over 200 bytes', () => {
    for (const bad of ['', ' \t', 'a\nb', 'a\rb', 'x'.repeat(201)]) {
      const err = (() => {
        try {
          checkTitle(bad);
        } catch (e) {
          return e;
        }
      })();
      expect(isLevError(err) && err.code).toBe('title-invalid');
    }
    expect(checkTitle('x'.repeat(200))).toHaveLength(200);
  });
});
