/**
 * Listeners of row changes (`onUserChanged`, `onCaChanged`, `onCertificateChanged`), shared by a root
 * store and the stores bound to its transactions (store.ts), told once a change has committed.
 */
export class ChangeHub {
  private readonly listeners = new Set<(id: number) => void>();

  subscribe(listener: (id: number) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  emit(ids: readonly number[]): void {
    for (const id of new Set(ids)) {
      for (const listener of this.listeners) {
        try {
          listener(id);
        } catch {
          // A listener's failure must not turn a committed change into an error for the caller.
        }
      }
    }
  }
}
