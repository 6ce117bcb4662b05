import { isFinished, type Lease } from './lease.js';

/** What a worker decides to take in one scan of the lease table. */
export interface LeasePlan {
  /** Free or expired leases to take, most needed first. */
  readonly take: readonly Lease[];
  /** Leases to steal from the most loaded worker. */
  readonly steal: readonly Lease[];
  /** The fair share per worker the plan aims at. */
  readonly target: number;
}

export interface BalanceInput {
  readonly leases: readonly Lease[];
  readonly me: string;
  /** Leases this worker holds and works on. */
  readonly held: ReadonlySet<string>;
  /** Whether a lease's counter stood still for the failover time (or it has no owner). */
  readonly isExpired: (lease: Lease) => boolean;
  readonly maxSteal: number;
  /** Picks the order among equals, so workers do not all race for the same lease. @default Math.random */
  readonly random?: () => number;
}

function shuffled<T>(items: readonly T[], random: () => number): T[] {
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [copy[i], copy[j]] = [copy[j]!, copy[i]!];
  }
  return copy;
}

/**
 * The KCL's balancing rule: count the live workers (owners of unexpired leases, and me), aim
 * at `ceil(leases / workers)` each; take free and expired leases first; only when there are
 * none, steal from the most loaded worker, a bounded number at a time, when it holds more than
 * the target (or exactly the target while I hold fewer than target − 1). Finished leases need
 * no work and are not counted. A lease its owner is handing over (`handingOver`, unexpired) is
 * about to be free: it counts towards the target but for no owner, and while any is, nothing is
 * stolen (a steal would repeat the pages in flight of its owner, stopping or not).
 */
export function planLeases({ leases, me, held, isExpired, maxSteal, random = Math.random }: BalanceInput): LeasePlan {
  const active = leases.filter((lease) => !isFinished(lease));
  const counts = new Map<string, number>([[me, 0]]);
  const available: Lease[] = [];
  let handedOver = 0;
  for (const lease of active) {
    // A lease in my name that I do not work on is left from an earlier life of this worker id.
    const orphaned = lease.leaseOwner === me && !held.has(lease.leaseKey);
    if (lease.leaseOwner === undefined || orphaned || isExpired(lease)) {
      if (!held.has(lease.leaseKey)) available.push(lease);
      continue;
    }
    if (lease.handingOver === true && !held.has(lease.leaseKey)) {
      handedOver++;
      continue;
    }
    counts.set(lease.leaseOwner, (counts.get(lease.leaseOwner) ?? 0) + 1);
  }
  const target = Math.ceil(active.length / counts.size);
  const mine = counts.get(me) ?? 0;
  const needed = target - mine;
  if (needed <= 0) return { take: [], steal: [], target };
  if (available.length > 0) return { take: shuffled(available, random).slice(0, needed), steal: [], target };
  if (handedOver > 0) return { take: [], steal: [], target };
  let mostLoaded: string | undefined;
  let most = 0;
  for (const [owner, count] of shuffled([...counts], random)) {
    if (owner !== me && count > most) {
      mostLoaded = owner;
      most = count;
    }
  }
  if (mostLoaded === undefined) return { take: [], steal: [], target };
  const surplus = most > target ? most - target : most === target && mine < target - 1 ? 1 : 0;
  const count = Math.min(needed, surplus, maxSteal);
  const victims = shuffled(
    active.filter((lease) => lease.leaseOwner === mostLoaded),
    random,
  );
  return { take: [], steal: victims.slice(0, count), target };
}
