/** Waiting for something another process does, in tests that run real instances. */

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** `probe`'s first truthy value, asked every 50 ms for up to `timeoutMs`. */
export async function until<T>(what: string, probe: () => Promise<T | null | undefined | false>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}
