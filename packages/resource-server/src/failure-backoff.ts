/**
 * Remembers a failed call to the authorization server so that requests arriving meanwhile fail at
 * once instead of each waiting for its own timeout: the first failure is remembered for
 * `firstMs`, each further one twice as long up to `maxMs`, a success forgets them.
 */
export class FailureBackoff {
  #failure: { error: unknown; retryAt: number; waitMs: number } | undefined;

  constructor(
    private readonly now: () => number,
    private readonly firstMs = 1000,
    private readonly maxMs = 60_000,
  ) {}

  /** Throws the remembered error while the wait after it lasts. */
  check(): void {
    if (this.#failure && this.now() < this.#failure.retryAt) throw this.#failure.error;
  }

  failed(error: unknown): void {
    const waitMs = this.#failure ? Math.min(this.#failure.waitMs * 2, this.maxMs) : this.firstMs;
    this.#failure = { error, retryAt: this.now() + waitMs, waitMs };
  }

  succeeded(): void {
    this.#failure = undefined;
  }

  /** Runs `call` unless a failure is remembered, remembering how it ends. */
  async run<T>(call: () => Promise<T>): Promise<T> {
    this.check();
    try {
      const result = await call();
      this.succeeded();
      return result;
    } catch (error) {
      this.failed(error);
      throw error;
    }
  }
}
