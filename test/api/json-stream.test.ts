/**
 * jsonArrayChunks and jsonArrayBuffer (lib/api/json-stream.ts): UTF-8 JSON items as one JSON array;
 * streamed in chunks of at most CHUNK_BYTES, except an item longer than that, which is a chunk of its own.
 */
import { CHUNK_BYTES, jsonArrayBuffer, jsonArrayChunks } from '../../lib/api/json-stream';

async function* batchesOf(...batches: string[][]): AsyncGenerator<Buffer[]> {
  for (const b of batches) yield b.map((item) => Buffer.from(item));
}

async function collect(...batches: string[][]): Promise<Buffer[]> {
  const out: Buffer[] = [];
  for await (const chunk of jsonArrayChunks(batchesOf(...batches))) out.push(chunk);
  return out;
}

const item = (i: number, filler: string) => JSON.stringify({ i, s: filler });

test('no items: []', async () => {
  expect(Buffer.concat(await collect()).toString()).toBe('[]');
  expect(Buffer.concat(await collect([], [])).toString()).toBe('[]');
});

test('many items across batches, multi-byte characters: the array, chunks within CHUNK_BYTES', async () => {
  const items = Array.from({ length: 3000 }, (_, i) => item(i, 'é€😀'.repeat(i % 50) + 'x'.repeat(i % 300)));
  const chunks = await collect(items.slice(0, 1), items.slice(1, 1234), [], items.slice(1234));
  expect(chunks.length).toBeGreaterThan(1);
  for (const c of chunks) expect(c.length).toBeLessThanOrEqual(CHUNK_BYTES);
  const parsed = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { i: number }[];
  expect(parsed.map((p) => p.i)).toEqual(items.map((_, i) => i));
  expect(JSON.stringify(parsed)).toBe(`[${items.join(',')}]`);
});

test('an item longer than a chunk is written whole', async () => {
  const big = item(1, '€'.repeat(CHUNK_BYTES)); // 3 bytes a character: three chunks' worth
  const chunks = await collect([item(0, 'a')], [big, item(2, 'b')]);
  expect(chunks.some((c) => c.length > CHUNK_BYTES)).toBe(true);
  expect(Buffer.concat(chunks).toString('utf8')).toBe(`[${item(0, 'a')},${big},${item(2, 'b')}]`);
});

test('chunk boundaries: items that exactly fill a chunk, commas at the edge', async () => {
  // `[` + item = CHUNK_BYTES exactly, then the comma opens the next chunk.
  const fill = (n: number) => JSON.stringify('x'.repeat(n - 2));
  const items = [fill(CHUNK_BYTES - 1), fill(CHUNK_BYTES - 1), fill(10), fill(CHUNK_BYTES - 12)];
  const chunks = await collect(items);
  for (const c of chunks) expect(c.length).toBeLessThanOrEqual(CHUNK_BYTES);
  expect(Buffer.concat(chunks).toString()).toBe(`[${items.join(',')}]`);
});

test('jsonArrayBuffer: the same array in one Buffer', () => {
  expect(jsonArrayBuffer([]).toString()).toBe('[]');
  const items = ['{"a":1}', '"é"', '[2]'];
  expect(jsonArrayBuffer(items.map((i) => Buffer.from(i))).toString()).toBe(`[${items.join(',')}]`);
});
