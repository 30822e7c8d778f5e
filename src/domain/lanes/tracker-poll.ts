import type { Hex } from 'viem';
import type { LaneStampEvent } from '../../chain/lane-launch-chain.ts';
import type { ObservedTransaction } from '../../chain/launch-observer.ts';
import type { Db } from '../../store/db.ts';
import { statement } from '../../store/statements.ts';
import type { LaneJobTables } from './lifecycle-jobs.ts';
import type { LaneStamp, LaneTrackedChain } from './tracker-commit.ts';

/** What one poll read of blocks [from, to] for every launch searched: stamp events and router calls by intent. */
export interface LaneScan<Stamp> {
  from: bigint;
  to: bigint;
  /** Stamp events by launch intent (0x, lower-case hex). */
  stamps: Map<string, Array<LaneStampEvent<Stamp>>>;
  /** Router calls by the launch intent their calldata names (0x, lower-case hex). */
  calls: Map<string, ObservedTransaction[]>;
}

/**
 * `read` once per key for one poll (a tracker's block hash per height, its head): every caller of a key shares the
 * answer, and a failed read fails each of them (each records it; none is left unhandled).
 */
export function oncePerKey<K, V>(read: (key: K) => Promise<V>): (key: K) => Promise<V> {
  const answers = new Map<K, Promise<V>>();
  return (key) => {
    let answer = answers.get(key);
    if (!answer) {
      answer = read(key);
      answer.catch(() => {});
      answers.set(key, answer);
    }
    return answer;
  };
}

/**
 * What one poll of a lane's tracker reads of its chain, once for every launch it follows (the launch states of
 * spec/schemas/custom-launch-resource.v3.schema.json and spec/schemas/multi-role-resource.v2.schema.json from
 * authorized on): the agreed head and finalized height, each block hash once per height, and the blocks after the
 * lowest search cursor up to the head (at most `maxBlocks`): one log query for the router's stamp events and one
 * read of each block's transactions, grouped by the launch intent they name. A launch whose cursor is higher ignores
 * what lies before it. Search cursors moved on are written together at the end of the poll (writeAdvances).
 */
export class LanePoll<Stamp extends LaneStamp> {
  readonly head: () => Promise<{ number: bigint; timestamp: bigint }>;
  readonly finalizedHeight: () => Promise<bigint>;
  readonly blockHash: (height: bigint) => Promise<Hex | null>;
  readonly scan: () => Promise<LaneScan<Stamp> | null>;
  private readonly advances: Array<{ launchId: string; status: string; to: bigint }> = [];
  /** Blocks between the head and the last block searched for the launch searched least far; null before a scan. */
  private lag: bigint | null = null;

  constructor(
    chain: LaneTrackedChain<Stamp>,
    /** The search cursor of each launch searched this poll (the last block searched). */
    cursors: readonly bigint[],
    maxBlocks: number,
    /** Reads a launch intent names in router calldata (the lane's permitOf), or null when it names none. */
    intentOf: (data: Hex) => Hex | null,
  ) {
    const head = oncePerKey(() => chain.agreedHead());
    this.head = () => head(null);
    const finalized = oncePerKey(() => chain.finalizedHeight());
    this.finalizedHeight = () => finalized(null);
    this.blockHash = oncePerKey((height) => chain.agreedBlockHash(height));
    const scan = oncePerKey(async () => {
      const head = await this.head();
      // The lowest cursor (bigint: no Math.min).
      let lowest = head.number;
      for (const cursor of cursors) if (cursor < lowest) lowest = cursor;
      const from = lowest + 1n;
      const last = from + BigInt(maxBlocks) - 1n;
      const to = head.number < last ? head.number : last;
      this.lag = head.number - lowest;
      if (from > to) return null;
      const stamps = new Map<string, Array<LaneStampEvent<Stamp>>>();
      for (const event of await chain.stampEvents(from, to)) {
        const intent = event.launchIntentHash.toLowerCase();
        stamps.set(intent, [...(stamps.get(intent) ?? []), event]);
      }
      const calls = new Map<string, ObservedTransaction[]>();
      for (const tx of await chain.routerTransactions(from, to)) {
        const intent = intentOf(tx.input)?.toLowerCase();
        if (intent) calls.set(intent, [...(calls.get(intent) ?? []), tx]);
      }
      this.lag = head.number - to;
      return { from, to, stamps, calls };
    });
    this.scan = () => scan(null);
  }

  /**
   * The tracker's lag after this poll: the blocks from the last one searched (the lowest cursor, or the end of the
   * range read) to the head; 0 when no launch was searched; null when the head or the range could not be read.
   */
  lagBlocks(searched: number): bigint | null {
    return searched === 0 ? 0n : this.lag;
  }

  /** Moves a launch's search cursor to `to` at the end of the poll, only while it keeps `status`. */
  advance(launchId: string, status: string, to: bigint): void {
    this.advances.push({ launchId, status, to });
  }

  /** Writes the poll's cursor advances (inside the caller's transaction). */
  writeAdvances(db: Db, tables: LaneJobTables): void {
    const advance = statement(
      db,
      `UPDATE ${tables.launches} SET tracked_to_block = ? WHERE launch_id = ? AND status = ?`,
    );
    for (const { launchId, status, to } of this.advances) advance.run(Number(to), launchId, status);
  }
}
