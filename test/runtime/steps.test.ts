import { describe, expect, it } from 'vitest';
import { isLater } from '../../src/runtime/ops.js';
import { runSteps, type Steps, wait } from '../../src/runtime/steps.js';

function* add(a: number | Promise<number>, b: number | Promise<number>): Steps<number> {
  const x = yield* wait(a);
  const y = yield* wait(b);
  return x + y;
}

describe('runSteps', () => {
  it('ends at once, with no promise, when everything a step waits for is at hand', () => {
    const done = runSteps(add(1, 2));
    expect(isLater(done)).toBe(false);
    expect(done).toBe(3);
  });

  it('nests steps with yield* and still makes no promise', () => {
    function* twice(): Steps<number> {
      return (yield* add(1, 2)) + (yield* add(3, 4));
    }
    expect(runSteps(twice())).toBe(10);
  });

  it('goes on through a promise from the first value that is one, in the order the step wrote', async () => {
    const order: string[] = [];
    function* step(): Steps<number> {
      order.push('a');
      const x = yield* wait(Promise.resolve(5));
      order.push('b');
      const y = yield* wait(6);
      order.push('c');
      return x + y;
    }
    const later = runSteps(step());
    expect(order).toEqual(['a']);
    expect(isLater(later)).toBe(true);
    expect(await later).toBe(11);
    expect(order).toEqual(['a', 'b', 'c']);
  });

  it('throws a rejection into the step, where a try can catch it', async () => {
    function* step(): Steps<string> {
      try {
        yield* wait(Promise.reject(new Error('no')));
        return 'not here';
      } catch (err) {
        return `caught ${(err as Error).message}`;
      }
    }
    expect(await runSteps(step())).toBe('caught no');
  });

  it('rejects with what a step throws after a promise, and throws what it throws before one', async () => {
    function* late(): Steps<void> {
      yield* wait(Promise.resolve());
      throw new Error('late');
    }
    await expect(runSteps(late())).rejects.toThrow('late');
    function* early(): Steps<void> {
      yield* wait(1);
      throw new Error('early');
    }
    expect(() => runSteps(early())).toThrow('early');
  });
});
