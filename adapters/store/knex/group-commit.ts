/**
 * Group commit: writes requested in the same turn of the event loop go to the database as one
 * statement. On the embedded database every statement costs a fixed slice of the one thread the
 * server has; 32 sign requests arriving together cost one INSERT instead of 32.
 *
 * Each caller still gets its own outcome: if the grouped write fails (one bad row fails the whole
 * statement), every item is written again on its own, so only the item at fault sees an error.
 */
export class GroupCommit<T, R> {
  private queue: { item: T; resolve: (r: R) => void; reject: (e: unknown) => void }[] = [];
  private scheduled = false;

  constructor(
    /** Write all items at once; results in input order. */
    private readonly writeMany: (items: T[]) => Promise<R[]>,
    /** Write one item (the fallback when the group fails, and the path for a group of one). */
    private readonly writeOne: (item: T) => Promise<R>,
    /** Largest group; more items wait for the next one. */
    private readonly maxGroup = 500,
  ) {}

  write(item: T): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        // setImmediate, not a microtask: requests parsed in the same I/O phase join the group.
        setImmediate(() => void this.flush());
      }
    });
  }

  private async flush(): Promise<void> {
    this.scheduled = false;
    const group = this.queue.splice(0, this.maxGroup);
    if (this.queue.length) {
      this.scheduled = true;
      setImmediate(() => void this.flush());
    }
    if (group.length === 1) {
      const [only] = group;
      this.writeOne(only.item).then(only.resolve, only.reject);
      return;
    }
    try {
      const results = await this.writeMany(group.map((g) => g.item));
      group.forEach((g, i) => g.resolve(results[i]));
    } catch {
      for (const g of group) this.writeOne(g.item).then(g.resolve, g.reject);
    }
  }
}
