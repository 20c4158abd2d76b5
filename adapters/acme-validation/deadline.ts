/**
 * One validation's time limit (`timeoutMs`): lookups, connections, redirects and reads all take from
 * the same budget, so that a validation resolves within about that time whatever the far end does.
 */
export class Deadline {
  private readonly end: number;

  constructor(ms: number) {
    this.end = Date.now() + ms;
  }

  /** Milliseconds left, never negative. */
  remaining(): number {
    return Math.max(0, this.end - Date.now());
  }

  /** `promise`, or `onTimeout()` when the deadline comes first. */
  race<T>(promise: Promise<T>, onTimeout: () => T): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<T>((resolve) => {
      timer = setTimeout(() => resolve(onTimeout()), this.remaining());
    });
    return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
  }
}
