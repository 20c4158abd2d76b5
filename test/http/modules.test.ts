/**
 * `serveModules` (lib/http/modules.ts), the composition every router is built on: a request goes to
 * the module with the longest prefix it falls under (or whose prefix it names without the slash),
 * anything else to the host app; `close()` closes every module once, in order, then what the
 * composition owns.
 */
import express from 'express';
import request from 'supertest';
import { serveModules, type MountedModule } from '../../lib/http/modules';

/** A module that answers which module it is and the path it saw, and records being closed. */
function namedModule(name: string, prefix: string, closed: string[]): MountedModule {
  return {
    prefix,
    handle: (req, res, next) => {
      if (req.path.endsWith('/pass')) return next();
      res.json({ module: name, path: req.path });
    },
    close: async () => {
      closed.push(name);
    },
  };
}

describe('serveModules', () => {
  const closed: string[] = [];
  const router = serveModules([namedModule('outer', '/ca/', closed), namedModule('inner', '/ca/acme/', closed)], async () => {
    closed.push('owned');
  });
  const app = express();
  app.use('/mount', router);
  app.use((req, res) => {
    res.status(404).json({ host: req.originalUrl });
  });

  test.each([
    ['/mount/ca/crl/AB/', { module: 'outer', path: '/ca/crl/AB/' }],
    ['/mount/ca/acme/new-order', { module: 'inner', path: '/ca/acme/new-order' }],
    ['/mount/ca/acme', { module: 'inner', path: '/ca/acme' }],
    ['/mount/ca/acmex', { module: 'outer', path: '/ca/acmex' }],
    ['/mount/ca', { module: 'outer', path: '/ca' }],
    ['/mount/other', { host: '/mount/other' }],
    ['/mount/cax', { host: '/mount/cax' }],
    ['/mount/ca/acme/pass', { host: '/mount/ca/acme/pass' }],
  ])('%s goes to %j', async (url, expected) => {
    expect((await request(app).get(url)).body).toEqual(expected);
  });

  test('close() closes each module once, in the order given, then what the composition owns', async () => {
    await Promise.all([router.close(), router.close()]);
    await router.close();
    expect(closed).toEqual(['outer', 'inner', 'owned']);
  });
});
