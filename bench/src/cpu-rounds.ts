/** CPU microseconds per call over `calls` sequential calls of `call`. */
export async function cpuMicrosPerCall(call: () => Promise<void>, calls: number): Promise<number> {
  const started = process.cpuUsage();
  for (let i = 0; i < calls; i++) await call();
  const { user, system } = process.cpuUsage(started);
  return (user + system) / calls;
}

export const median = (values: readonly number[]): number =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;
