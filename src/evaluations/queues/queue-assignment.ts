/*
 * Which scenarios of a queue a user annotates, the reference's way. Each repeat has its list of users;
 * scenarios fall into `blocks` slots, and the slots are split among the repeat's users in contiguous
 * ranges (the first `blocks % users` users get one more). Sequential queues number scenarios in order
 * from `batch_offset` over `batch_size` slots (so consecutive scenarios go in batches); otherwise a
 * scenario's slot is its UUID, as a number, modulo 120: a fixed, even spread.
 */

/** The reference's slot count for spread queues and sequential ones without a batch size (1·2·3·4·5). */
export const DEFAULT_BLOCKS = 120;

export interface Assignment {
  userIds: string[][];
  isSequential: boolean;
  batchSize?: number | null;
  batchOffset?: number | null;
}

/** The slot ranges `[lower, upper)` of `user` among `users`, when `blocks` slots are shared out. */
function bounds(users: string[], user: string, blocks: number): [number, number][] {
  const out: [number, number][] = [];
  if (users.length === 0 || blocks <= 0) return out;
  const base = Math.floor(blocks / users.length);
  const extra = blocks % users.length;
  let start = 0;
  users.forEach((u, i) => {
    const size = i < extra ? base + 1 : base;
    if (u.toLowerCase() === user.toLowerCase()) out.push([start, start + size]);
    start += size;
  });
  return out;
}

const uuidNumber = (id: string) => BigInt(`0x${id.replaceAll("-", "")}`);

/** The scenarios (in the order given) `user` has in each repeat: one list per repeat of `userIds`. */
export function assignedScenarios(user: string, scenarioIds: string[], a: Assignment): string[][] {
  const blocks = a.isSequential ? Math.min(scenarioIds.length, a.batchSize ?? DEFAULT_BLOCKS) : DEFAULT_BLOCKS;
  const offset = a.batchOffset ?? 0;
  return a.userIds.map((users) => {
    const ranges = bounds(users, user, blocks);
    if (ranges.length === 0) return [];
    return scenarioIds.filter((id, index) => {
      const slot = a.isSequential ? (offset + index) % blocks : Number(uuidNumber(id) % BigInt(blocks));
      return ranges.some(([lower, upper]) => lower <= slot && slot < upper);
    });
  });
}
