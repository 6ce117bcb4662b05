import { createHash } from 'node:crypto';

/**
 * The letters and digits of a name, which any construct or logical id can hold: what the
 * constructs append to an id to name one per topic or aggregate type.
 *
 * @example
 * ```ts
 * alphanumeric('orders.fifo'); // 'ordersfifo'
 * ```
 */
export const alphanumeric = (name: string): string => name.replace(/[^A-Za-z0-9]/g, '');

/**
 * One construct id per name, made by `toId` (which may drop characters construct or logical ids
 * cannot hold, so different names can map to one id: `orders.fifo` and `orders_fifo` both to
 * `ordersfifo`), and never two alike. The first name (in the given order) to produce an id keeps
 * it, so ids of names that collide with nothing stay as they always were and adding a name later
 * leaves the existing ones and their resources alone; each later name gets its id plus the first
 * 8 hex digits of the SHA-256 of the name (a counter on top if even that is taken).
 *
 * @example
 * ```ts
 * distinctIds(['orders.fifo', 'orders_fifo'], alphanumeric);
 * // ['ordersfifo', 'ordersfifoEBF958BE']
 * ```
 */
export function distinctIds(names: readonly string[], toId: (name: string) => string): string[] {
  const plain = names.map(toId);
  const taken = new Set<string>();
  const ids: (string | undefined)[] = plain.map((id) => {
    if (taken.has(id)) return undefined;
    taken.add(id);
    return id;
  });
  return ids.map((id, i) => {
    if (id !== undefined) return id;
    const hashed = `${plain[i]}${createHash('sha256').update(names[i]!).digest('hex').slice(0, 8).toUpperCase()}`;
    let candidate = hashed;
    for (let n = 2; taken.has(candidate); n++) candidate = `${hashed}${n}`;
    taken.add(candidate);
    return candidate;
  });
}
