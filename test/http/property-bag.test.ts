/**
 * `asPropertyBag` (lib/http/property-bag.ts) and its use by `serveModules`: Express replaces the
 * prototype of every request and response, after which V8 gives each property added to them a new
 * hidden class; a request in dictionary mode shares one with every other request. V8's own
 * predicates (`%HasFastProperties`, `%HaveSameMap`) observe it.
 */
import express from 'express';
import request from 'supertest';
import { serveModules } from '../../lib/http/modules';
import { asPropertyBag } from '../../lib/http/property-bag';
import { hasFastProperties, haveSameMap } from '../helpers/v8-shapes';

describe('asPropertyBag', () => {
  class Message {
    constructor(
      public a: number,
      public b: string,
    ) {}
  }
  const replaced = Object.create(Message.prototype) as object;

  test('an object whose prototype was replaced goes to dictionary mode, its properties as they were', () => {
    const marker = Symbol('marker');
    const target = Object.assign(new Message(1, 'two'), { [marker]: true });
    Object.setPrototypeOf(target, replaced);
    expect(hasFastProperties(target)).toBe(true);
    asPropertyBag(target);
    expect(hasFastProperties(target)).toBe(false);
    expect(Reflect.ownKeys(target)).toEqual(['a', 'b', marker]);
    expect({ ...target }).toEqual({ a: 1, b: 'two', [marker]: true });
    expect(Object.getPrototypeOf(target)).toBe(replaced);
  });

  test('an ordinary object keeps the hidden class it shares with its kind', () => {
    const [one, other] = [new Message(1, 'one'), new Message(2, 'other')];
    asPropertyBag(one);
    expect(hasFastProperties(one)).toBe(true);
    expect(haveSameMap(one, other)).toBe(true);
    expect(Reflect.ownKeys(one)).toEqual(['a', 'b']);
  });

  test('leaves a frozen object alone', () => {
    const frozen = Object.freeze({ a: 1 });
    expect(() => asPropertyBag(frozen)).not.toThrow();
    expect(Reflect.ownKeys(frozen)).toEqual(['a']);
  });
});

describe('serveModules', () => {
  test('every request reaches its module as a property bag: properties it adds give no request a hidden class of its own', async () => {
    const seen: { req: object; res: object; fast: boolean }[] = [];
    const router = serveModules([
      {
        prefix: '/m/',
        handle: (req, res) => {
          const fast = hasFastProperties(req) || hasFastProperties(res);
          (req as unknown as Record<string, unknown>).addedByModule = seen.length;
          seen.push({ req, res, fast });
          res.json({ ok: true });
        },
        close: async () => undefined,
      },
    ]);
    const app = express();
    app.use(router);
    await request(app).get('/m/one').expect(200);
    await request(app).get('/m/two').expect(200);
    expect(seen.map((s) => s.fast)).toEqual([false, false]);
    // Express set each one's prototype, then the module added a property: still in dictionary mode, so
    // no new hidden class. (Whether two of them share one map is V8's normalized-map cache, which a
    // garbage collection may flush: not something to assert.)
    expect(seen.map((s) => hasFastProperties(s.req))).toEqual([false, false]);
  });
});
