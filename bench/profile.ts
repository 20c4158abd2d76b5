/**
 * A V8 CPU profile of this process (the server, in the benches that run it in-process) while `work`
 * runs, written to `file`: open it in Chrome DevTools or any `.cpuprofile` viewer.
 */
import * as fs from 'fs';
import * as inspector from 'inspector';
import * as path from 'path';

export async function profiled<T>(file: string, work: () => Promise<T>): Promise<T> {
  const session = new inspector.Session();
  session.connect();
  const post = (method: string, params?: object) =>
    new Promise<unknown>((resolve, reject) => session.post(method, params, (e, r) => (e ? reject(e) : resolve(r))));
  await post('Profiler.enable');
  await post('Profiler.setSamplingInterval', { interval: 500 });
  await post('Profiler.start');
  try {
    return await work();
  } finally {
    const { profile } = (await post('Profiler.stop')) as { profile: unknown };
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, JSON.stringify(profile));
    session.disconnect();
    console.log(`  (CPU profile of the server: ${file})`);
  }
}
