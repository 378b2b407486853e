// Loaded into a measured server with `node --expose-gc --import ./memory-probe.mjs` (plain
// JavaScript: it is imported before tsx). On SIGUSR2 it writes to
// `{tmpdir}/gatehouse-memory-{pid}.json` where the process's memory is (process.memoryUsage() as
// it stands, then again after a full collection of the main thread's heap: what is live), and
// since the previous SIGUSR2 the main thread's garbage collections (count, total and longest
// pause, by kind) and how late its event loop ran timers (percentiles). The bench reads it;
// nothing of the server's own code knows of it.
import { renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { constants, monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';

const KINDS = {
  [constants.NODE_PERFORMANCE_GC_MINOR]: 'minor',
  [constants.NODE_PERFORMANCE_GC_MAJOR]: 'major',
  [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental',
  [constants.NODE_PERFORMANCE_GC_WEAKCB]: 'weak callbacks',
};
let collections = {};
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    const kind = KINDS[entry.detail?.kind] ?? 'other';
    collections[kind] ??= { count: 0, totalMs: 0, longestMs: 0 };
    const seen = collections[kind];
    seen.count++;
    seen.totalMs += entry.duration;
    seen.longestMs = Math.max(seen.longestMs, entry.duration);
  }
}).observe({ entryTypes: ['gc'] });
const loopDelay = monitorEventLoopDelay({ resolution: 5 });
loopDelay.enable();

process.on('SIGUSR2', () => {
  const before = process.memoryUsage();
  const gcSince = collections;
  const delayMs = (percentile) => loopDelay.percentile(percentile) / 1e6;
  const loop = { p50Ms: delayMs(50), p99Ms: delayMs(99), maxMs: loopDelay.max / 1e6 };
  globalThis.gc?.();
  const after = process.memoryUsage();
  collections = {};
  loopDelay.reset();
  const file = join(tmpdir(), `gatehouse-memory-${process.pid}.json`);
  // Renamed into place, so a reader never sees half a file.
  writeFileSync(`${file}.part`, JSON.stringify({ before, after, gc: gcSince, loop }));
  renameSync(`${file}.part`, file);
});
