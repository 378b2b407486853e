import { describe, expect, it } from 'vitest';
import type { RealmContext } from '../context.js';
import { randomId } from '../crypto/random.js';
import { rotationNote, successorToken, withinRotationGrace } from './refresh-token.js';

/** Just what the rotation helpers read of a realm context: its grace and the clock. */
function contextAt(nowMs: number, grace: number): RealmContext {
  return {
    now: () => nowMs,
    realm: { config: { refresh_token_rotation_grace: grace } },
  } as unknown as RealmContext;
}

describe('successorToken', () => {
  const token = randomId(32);
  const note = { at: 0, salt: randomId(16) };

  it('is the same for the same token and note, as long as a fresh random token', () => {
    const successor = successorToken(token, note);
    expect(successorToken(token, { ...note })).toBe(successor);
    expect(successor).toMatch(/^[\w-]{43}$/);
    expect(successor).not.toBe(token);
  });

  it('differs with another salt or another token', () => {
    const successor = successorToken(token, note);
    expect(successorToken(token, { ...note, salt: randomId(16) })).not.toBe(successor);
    expect(successorToken(randomId(32), note)).not.toBe(successor);
  });
});

describe('rotationNote and withinRotationGrace', () => {
  it('leave no note without a grace, so every second use is reuse', () => {
    const context = contextAt(1_000, 0);
    expect(rotationNote(context)).toBeUndefined();
    expect(withinRotationGrace(context, undefined)).toBe(false);
    expect(withinRotationGrace(context, { at: 1_000, salt: 's' })).toBe(false);
  });

  it('count the grace from the first use, its last millisecond included', () => {
    const note = rotationNote(contextAt(1_000, 5));
    expect(note).toEqual({ at: 1_000, salt: expect.stringMatching(/^[\w-]{22}$/) });
    expect(withinRotationGrace(contextAt(1_000, 5), note)).toBe(true);
    expect(withinRotationGrace(contextAt(6_000, 5), note)).toBe(true);
    expect(withinRotationGrace(contextAt(6_001, 5), note)).toBe(false);
  });

  it('never extend a first use that left no note, such as one made before the grace was set', () => {
    expect(withinRotationGrace(contextAt(1_000, 5), undefined)).toBe(false);
  });
});
