/**
 * Calls `mintOne` `count` times with up to `concurrency` calls in flight (so a server's batched
 * signer and store see realistic concurrency while pools are minted) and returns every result.
 */
export async function mintMany(
  count: number,
  mintOne: () => Promise<string>,
  concurrency = 64,
): Promise<string[]> {
  const minted: string[] = [];
  let started = 0;
  const worker = async () => {
    while (started < count) {
      started++;
      minted.push(await mintOne());
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
  return minted;
}
