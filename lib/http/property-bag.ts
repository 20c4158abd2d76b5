/**
 * Request and response objects as property bags (docs/DESIGN.md "Issuance throughput": hidden
 * classes of requests).
 *
 * Express replaces the prototype of every request and response (`Object.setPrototypeOf(req,
 * app.request)` in `app.handle`). V8 then gives the object a hidden class ("map") that belongs to no
 * transition tree, and every property added to it afterwards — `params`, `baseUrl`, `next` by the
 * router, `login`/`logIn`/… by passport, listener counts, our own — creates a brand-new hidden class
 * with a copy of the object's whole descriptor list, instead of following a transition an earlier
 * request created. Measured under bench/api: about 20 new hidden classes per request, allocated
 * straight into the old generation (collected only by full collections, whose marking runs on the
 * other core), and property caches that miss on every request because no two requests share one.
 *
 * An object in dictionary mode keeps its properties in a hash table of its own: adding one is an
 * insertion, and all such objects share one hidden class. Adding a property and deleting it again
 * moves an object with such a detached hidden class there (V8 cannot step back to a hidden class it
 * has no link to); an ordinary object steps back to the hidden class it had, and stays as it was.
 */
const PROBE = Symbol('caApi.propertyBag');

/**
 * Move `target` to dictionary mode if its prototype was replaced (see above); leave it as it was
 * otherwise, and always with exactly the properties it had. A sealed or frozen object is left alone.
 */
export function asPropertyBag(target: object): void {
  if (!Object.isExtensible(target)) return;
  const bag = target as Record<symbol, unknown>;
  bag[PROBE] = undefined;
  delete bag[PROBE];
}
