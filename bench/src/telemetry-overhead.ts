import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createProvider, type Instrumentation, type Provider } from '@gatehouse-oidc/core';
import { openTelemetry } from '@gatehouse-oidc/core/opentelemetry';
import { nodeCryptoSigner, nodeCryptoVerifier } from '@gatehouse-oidc/node-crypto';
import { ExportResultCode } from '@opentelemetry/core';
import { MeterProvider, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics';
import {
  BasicTracerProvider,
  BatchSpanProcessor,
  type SpanExporter,
} from '@opentelemetry/sdk-trace-base';
import { median } from './cpu-rounds.js';
import {
  BENCH_API_CLIENT,
  BENCH_RESOURCE,
  BENCH_SCOPE,
  BENCH_SERVICE_CLIENT,
  TOKEN_REQUEST_BODY,
  TOKEN_REQUEST_HEADERS,
} from './token-request.js';

/**
 * What tracing and metrics cost a client_credentials token request, measured in process
 * (`provider.handle`, no HTTP, so the difference is not lost in the network's noise): the same
 * provider without instrumentation, with `openTelemetry()` and no SDK registered (the API's
 * no-op tracer and meter), and with the OpenTelemetry SDK recording every span and counter
 * (a batch span processor and a metric reader whose exports go nowhere, so no I/O is measured).
 * Measured in CPU time, see `round`.
 * Each configuration runs in processes of its own, taking turns; the fastest and the median round
 * of each are reported (on a busy machine the fastest is the better estimate of the cost).
 */

const PASSES = Number(process.env.PASSES ?? 4);
const ROUNDS = Number(process.env.ROUNDS ?? 6);
const REQUESTS_PER_ROUND = Number(process.env.REQUESTS ?? 1_500);
const CHILD_SCRIPT = fileURLToPath(import.meta.url);

/** Takes every batch of spans and drops it: the SDK's cost without an exporter's I/O. */
const droppingExporter: SpanExporter = {
  export: (_spans, done) => done({ code: ExportResultCode.SUCCESS }),
  shutdown: async () => {},
};

function recordingSdk(): Instrumentation {
  const tracerProvider = new BasicTracerProvider({
    spanProcessors: [new BatchSpanProcessor(droppingExporter)],
  });
  const meterProvider = new MeterProvider({
    readers: [
      new PeriodicExportingMetricReader({
        exporter: {
          export: (_metrics, done) => done({ code: ExportResultCode.SUCCESS }),
          forceFlush: async () => {},
          shutdown: async () => {},
        },
        exportIntervalMillis: 60_000,
      }),
    ],
  });
  return openTelemetry({
    tracer: tracerProvider.getTracer('bench'),
    meter: meterProvider.getMeter('bench'),
  });
}

function benchProvider(instrumentation?: Instrumentation): Provider {
  return createProvider({
    baseUrl: 'http://127.0.0.1',
    signer: nodeCryptoSigner(),
    verifier: nodeCryptoVerifier(),
    ...(instrumentation ? { instrumentation } : {}),
    realms: [
      {
        name: 'bench',
        signing_alg: 'ES256',
        access_token_format: 'jwt',
        access_token_retention_policy: 'store',
        scopes: [BENCH_SCOPE],
        resources: [{ uri: BENCH_RESOURCE, client_id: 'bench-api', scopes: [BENCH_SCOPE] }],
        clients: [BENCH_SERVICE_CLIENT, BENCH_API_CLIENT],
      },
    ],
  });
}

const REQUEST = {
  method: 'POST',
  path: '/oauth/bench/token',
  query: '',
  headers: TOKEN_REQUEST_HEADERS,
  body: TOKEN_REQUEST_BODY,
};

/**
 * CPU microseconds (user and system) per request over one round of sequential requests: the
 * process's own time, which other processes on a busy machine do not inflate as they do the
 * wall clock.
 */
async function round(provider: Provider): Promise<number> {
  const started = process.cpuUsage();
  for (let i = 0; i < REQUESTS_PER_ROUND; i++) {
    const response = await provider.handle(REQUEST);
    if (response.status !== 200) throw new Error(`token request failed: ${response.body}`);
  }
  const { user, system } = process.cpuUsage(started);
  return (user + system) / REQUESTS_PER_ROUND;
}

const sorted = (values: number[]) => [...values].sort((a, b) => a - b);
const fastest = (values: number[]) => sorted(values)[0] ?? Number.NaN;

const configurations = [
  { name: 'without instrumentation', instrumentation: () => undefined },
  { name: 'openTelemetry(), no SDK', instrumentation: () => openTelemetry() },
  { name: 'openTelemetry(), SDK recording', instrumentation: recordingSdk },
];

/** One configuration in this process: a warm-up round, then the measured rounds. */
async function measure(index: number): Promise<number[]> {
  const provider = benchProvider(configurations[index]?.instrumentation());
  // Keys are generated and the code is compiled before anything counts.
  await round(provider);
  const timings: number[] = [];
  for (let r = 0; r < ROUNDS; r++) timings.push(await round(provider));
  await provider.close();
  return timings;
}

/**
 * Each configuration runs in processes of its own, so that none shares the JIT's feedback with
 * another; the processes take turns, each pass starting with another configuration.
 */
function measureInTurns(): number[][] {
  const timings = configurations.map(() => [] as number[]);
  for (let pass = 0; pass < PASSES; pass++) {
    for (let turn = 0; turn < configurations.length; turn++) {
      const index = (pass + turn) % configurations.length;
      const printed = execFileSync(process.execPath, [...process.execArgv, CHILD_SCRIPT], {
        env: { ...process.env, TELEMETRY_CONFIGURATION: String(index) },
        encoding: 'utf8',
      });
      timings[index]?.push(...(JSON.parse(printed) as number[]));
    }
  }
  return timings;
}

const child = process.env.TELEMETRY_CONFIGURATION;
if (child !== undefined) {
  console.log(JSON.stringify(await measure(Number(child))));
} else {
  const timings = measureInTurns();
  const overhead = (value: number, baseline: number) =>
    `${value.toFixed(1).padStart(6)} (${value === baseline ? 'baseline' : `${((value / baseline - 1) * 100).toFixed(1)}%`})`;
  console.log(
    `client_credentials, ${PASSES} processes × ${ROUNDS} rounds of ${REQUESTS_PER_ROUND} requests, CPU µs per request`,
  );
  console.log(`${''.padEnd(32)} ${'fastest round'.padEnd(20)} median round`);
  const [base = []] = timings;
  for (const [index, { name }] of configurations.entries()) {
    const own = timings[index] ?? [];
    console.log(
      `${name.padEnd(32)} ${overhead(fastest(own), fastest(base)).padEnd(20)} ${overhead(median(own), median(base))}`,
    );
  }
}
