/**
 * Workflow steps that wait only when they must. An `async` step makes a
 * promise on every call and every `await`, whether or not what it awaits is
 * at hand, and in workflow code each promise costs the SDK's promise hook a
 * stack trace and V8 a microtask (docs/benchmarks.md#the-floor). A step
 * written as a generator `yield*`s `wait(value)` where an async one would
 * `await value`; `runSteps` drives it synchronously to its end while every
 * value is at hand, and goes on through the first promise only from there.
 * The order in which a step does things is the generator's, as it is the
 * async function's, so the commands it schedules come in the same order.
 */
import { isLater, type NowOrLater } from './ops.js';

/** A step written as a generator: what it yields are the values it waits for, each answered with what it came to. */
export type Steps<T> = Generator<NowOrLater<unknown>, T, unknown>;

/** Inside a step, `yield* wait(value)`: the value, at once when it is at hand, else once its promise settles (a rejection is thrown here). */
export function* wait<T>(value: NowOrLater<T>): Generator<NowOrLater<T>, T, unknown> {
  // `runSteps` answers every yield with what the yielded value came to, so this is a T.
  return (yield value) as T;
}

/** Runs a step: its result when nothing it waited for was a promise, else a promise of it. */
export function runSteps<T>(steps: Steps<T>): NowOrLater<T> {
  const drive = (step: IteratorResult<NowOrLater<unknown>, T>): NowOrLater<T> => {
    while (!step.done) {
      const value = step.value;
      if (isLater(value))
        return value.then(
          (came) => drive(steps.next(came)),
          (err: unknown) => drive(steps.throw(err)),
        );
      step = steps.next(value);
    }
    return step.value;
  };
  return drive(steps.next());
}
