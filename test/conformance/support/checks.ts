/**
 * How a module's checks are recorded, as the conformance suite records its conditions: each
 * condition either passes or fails, and a failure counts at the level the module calls it with —
 * FAILURE fails the module, WARNING is reported (certification passes with warnings). A
 * condition called "stop on failure" ends the module there; a module may also end as skipped,
 * which the suite counts as passed (a server may refuse an optional feature the right way).
 */

export type Level = 'FAILURE' | 'WARNING' | 'INFO';

/** What a condition throws when it does not hold. */
export class ConditionError extends Error {}

/** The condition's message: `fail('…')` inside a condition. */
export function fail(message: string): never {
  throw new ConditionError(message);
}

class ModuleStop extends Error {}

export interface Finding {
  condition: string;
  message: string;
}

export interface ModuleOutcome {
  failures: Finding[];
  warnings: Finding[];
  /** Why the module ended as skipped, if it did. */
  skipped?: string;
}

/** A named check: the suite's condition class name, and what it verifies. */
export type Condition<T> = { name: string; check: (input: T) => void };

export const condition = <T>(name: string, check: (input: T) => void): Condition<T> => ({
  name,
  check,
});

export class ModuleRun {
  readonly failures: Finding[] = [];
  readonly warnings: Finding[] = [];
  skipped?: string;

  /** callAndContinueOnFailure: records a failure at `level` and goes on. */
  check<T>(level: Level, { name, check }: Condition<T>, input: T): boolean {
    try {
      check(input);
      return true;
    } catch (error) {
      if (!(error instanceof ConditionError)) throw error;
      if (level === 'FAILURE') this.failures.push({ condition: name, message: error.message });
      if (level === 'WARNING') this.warnings.push({ condition: name, message: error.message });
      return false;
    }
  }

  /** callAndStopOnFailure: a failure ends the module. */
  require<T>(condition: Condition<T>, input: T): void {
    if (!this.check('FAILURE', condition, input)) throw new ModuleStop(condition.name);
  }

  /** A failure found by the module itself rather than by a condition (TestFailureException). */
  abort(message: string): never {
    this.failures.push({ condition: 'TestFailureException', message });
    throw new ModuleStop(message);
  }

  /** fireTestFinished: the module ends here, with what it found so far. */
  finish(): never {
    throw new ModuleStop('finished');
  }

  /** fireTestSkipped: the module ends here, and does not fail. */
  skip(reason: string): never {
    this.skipped = reason;
    throw new ModuleStop(reason);
  }

  /** Runs a module's body; a stop ends it quietly, anything else is a bug of the test itself. */
  async run(body: () => Promise<void>): Promise<ModuleOutcome> {
    try {
      await body();
    } catch (error) {
      if (!(error instanceof ModuleStop)) throw error;
    }
    return {
      failures: this.failures,
      warnings: this.warnings,
      ...(this.skipped === undefined ? {} : { skipped: this.skipped }),
    };
  }
}
