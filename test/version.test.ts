import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { LEVIATH_VERSION } from '../src/version.js';

it('LEVIATH_VERSION is the version of package.json', () => {
  expect(LEVIATH_VERSION).toBe(JSON.parse(readFileSync('package.json', 'utf8')).version);
});
