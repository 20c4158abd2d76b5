/**
 * This process's peak RSS growth while `body` runs, sampled every 10 ms: the server's memory when
 * the client that reads the answer is the load client, in its own process (bench/load-client.ts).
 */
export async function peakRssGrowthDuring<T>(body: () => Promise<T>): Promise<{ result: T; peakRss: number }> {
  const rss0 = process.memoryUsage().rss;
  let peak = rss0;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 10);
  try {
    const result = await body();
    return { result, peakRss: Math.max(peak, process.memoryUsage().rss) - rss0 };
  } finally {
    clearInterval(sampler);
  }
}
