import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { form } from '../support/fixtures.js';
import {
  adapterContract,
  CASES,
  clientCredentials,
  expectError,
  expectToken,
  postForm,
  RECORDED_CASES,
  SnapshotRecorder,
  TOKEN,
  useRunningApp,
} from './contract-cases.js';
import { contractMounts } from './contract-setup.js';
import { type AdapterHarness, EXPRESS_MAJORS, expressHarness, HARNESSES } from './harnesses.js';
import type { Mount } from './hono-host.js';
import { call } from './wire.js';

const recorder = new SnapshotRecorder();
let mounts: Mount[];
let closeMounts: () => Promise<void>;

beforeAll(async () => {
  ({ mounts, close: closeMounts } = await contractMounts());
});

afterAll(() => closeMounts?.());

/** Starts the harness with Gatehouse mounted twice, and closes it after the block. */
const useApp = (harness: AdapterHarness) => useRunningApp(() => harness.start(mounts));

describe.each(HARNESSES)('Gatehouse mounted in $name', (harness) => {
  adapterContract(harness.name, useApp(harness), recorder);
});

describe.each(EXPRESS_MAJORS)('Gatehouse in $name after other middleware', (major) => {
  const { express } = major;

  describe.each([false, true])('after express.urlencoded({ extended: %s })', (extended) => {
    const harness = expressHarness(major, {
      name: `express.urlencoded({ extended: ${extended} })`,
      middleware: express.urlencoded({ extended }),
    });
    const app = useApp(harness);

    it.each(CASES.filter((c) => c.survivesPreParsing))(
      'answers $name',
      async ({ name, request, expected }) => {
        const snapshot = await call(app().origin, request());
        expected(snapshot);
        recorder.record(name, harness.name, snapshot);
      },
    );

    it('refuses a form qs parsed into nested values instead of guessing', async () => {
      const { origin } = app();
      for (const nested of ['scope[x]=api:read', 'scope[]=api:read']) {
        const snapshot = await call(
          origin,
          postForm(TOKEN, `${form(clientCredentials)}&${nested}`),
        );
        if (extended) {
          expectError(
            400,
            'invalid_request',
            'the request body was parsed into nested values by the application; mount Gatehouse before body parsers',
          )(snapshot);
        } else {
          // Without `extended`, qs keeps `scope[x]` as a name of its own, which the core ignores.
          expectToken(snapshot);
        }
      }
    });
  });

  describe('after a middleware that read the body', () => {
    const app = useApp(
      expressHarness(major, {
        name: 'a body reader',
        middleware: (req, _res, next) => {
          req.resume();
          req.on('end', () => next());
        },
      }),
    );

    it('refuses the request rather than reading an empty body', async () => {
      expectError(
        400,
        'invalid_request',
        'the request body was already read by the application; mount Gatehouse before body parsers',
      )(await call(app().origin, postForm(TOKEN, form(clientCredentials))));
    });
  });

  describe('after a middleware that already answered', () => {
    const app = useApp(
      expressHarness(major, {
        name: 'an early answer',
        middleware: (_req, res, next) => {
          res.status(503).end('busy');
          next();
        },
      }),
    );

    it('leaves the answer alone instead of crashing the process on a second write', async () => {
      const response = await call(app().origin, postForm(TOKEN, form(clientCredentials)));
      expect([response.status, response.body]).toEqual([503, 'busy']);
    });
  });
});

describe('every adapter answers identically', () => {
  const preParsedCases = new Set(CASES.filter((c) => c.survivesPreParsing).map((c) => c.name));

  it.each(RECORDED_CASES)('%s', (name) => {
    recorder.expectIdentical(
      name,
      HARNESSES.length + (preParsedCases.has(name) ? 2 * EXPRESS_MAJORS.length : 0),
    );
  });
});
