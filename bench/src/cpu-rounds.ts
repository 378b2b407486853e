/** CPU microseconds per call over `calls` sequential calls of `call`. */
export async function cpuMicrosPerCall(call: () => Promise<void>, calls: number): Promise<number> {
  const started = process.cpuUsage();
  for (let i = 0; i < calls; i++) await call();
  const { user, system } = process.cpuUsage(started);
  return (user + system) / calls;
}

/** The middle value, or the mean of the two middle values of an even count; NaN of none. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  if (sorted.length === 0) return Number.NaN;
  return sorted.length % 2 === 1
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}
