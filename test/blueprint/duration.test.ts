import { describe, expect, it } from 'vitest';
import { formatDuration, parseDuration } from '../../src/blueprint/duration.js';

describe('durations', () => {
  it('reads what a blueprint writes and writes back what it reads', () => {
    expect(parseDuration('1h30m')).toBe(5400);
    expect(formatDuration(5400)).toBe('1h30m');
    expect(formatDuration(86_400)).toBe('1d');
    expect(formatDuration(0)).toBe('0s');
    for (const text of ['90s', '30m', '24h', '2d', '1d2h3m4s']) {
      const secs = parseDuration(text);
      expect(secs).toBeDefined();
      expect(parseDuration(formatDuration(secs as number))).toBe(secs);
    }
  });

  it('refuses what is not a duration', () => {
    expect(parseDuration('soon')).toBeUndefined();
    expect(parseDuration('0m')).toBeUndefined();
  });
});
