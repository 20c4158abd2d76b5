/**
 * A mistake in what the host configured, reported when it is configured (helmet's habit): the router's
 * options, or a key backend's (an adapter, which may not import the HTTP layer, hence this home).
 * The message starts with the function the host called.
 */
export class OptionsError extends Error {
  constructor(message: string, entry: string = 'createCaApiRouter') {
    super(`${entry}: ${message}`);
    this.name = 'OptionsError';
  }
}
