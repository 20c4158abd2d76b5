/**
 * `node -r` preload for API servers that tests start as child processes (test/examples): the same
 * response check as `buildApp`'s middleware, for a process the test cannot put middleware into.
 * Every request the process's HTTP servers receive is observed; responses under
 * RESPONSE_VALIDATOR_API_ROOT are checked and the verdict printed to stderr with a marker, which
 * test/examples/child-server.ts reads back to fail the test.
 */
import * as http from 'http';
import { observeResponse, pathUnderRoot, recordResponse } from './response-validator';

export const VERDICT_MARKER = '[response-validator]';

const apiRoot = process.env.RESPONSE_VALIDATOR_API_ROOT;
if (apiRoot) {
  const emit = http.Server.prototype.emit;
  http.Server.prototype.emit = function (this: http.Server, event: string | symbol, ...args: unknown[]): boolean {
    if (event === 'request') {
      const [req, res] = args as [http.IncomingMessage, http.ServerResponse];
      const path = pathUnderRoot(req.url ?? '/', apiRoot);
      if (path !== null) {
        const method = req.method ?? 'GET';
        observeResponse(res, (status, contentType, body, headers) => {
          const verdict = recordResponse({ method, path, status, contentType, body, headers });
          const text =
            verdict.kind === 'violation' ? verdict.message : verdict.kind === 'skipped' ? verdict.reason : `${method} ${path} → ${status}`;
          process.stderr.write(`${VERDICT_MARKER} ${verdict.kind} ${JSON.stringify(text)}\n`);
        });
      }
    }
    return (emit as (...a: unknown[]) => boolean).call(this, event, ...args);
  } as typeof http.Server.prototype.emit;
}
