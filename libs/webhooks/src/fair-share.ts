/**
 * Picks up to `limit` of `due` (oldest first) taking one per account in turn: every account's
 * oldest, then every account's second, and so on, so a backlog of one account cannot fill a claim
 * round ahead of another account's single delivery. `room(account)` is how many more of an account's
 * deliveries may be in flight (its cap less those in flight now); an account out of room gets none.
 * Accounts take turns in the order of their oldest due delivery.
 */
export function takeRoundRobin<T extends { account_id: string }>(
  due: readonly T[],
  limit: number,
  room: (accountId: string) => number,
): T[] {
  const queues = new Map<string, T[]>();
  for (const item of due) {
    const queue = queues.get(item.account_id);
    if (queue === undefined) queues.set(item.account_id, [item]);
    else queue.push(item);
  }
  const picked: T[] = [];
  for (let turn = 0; picked.length < limit; turn += 1) {
    let any = false;
    for (const [account, queue] of queues) {
      if (picked.length >= limit) break;
      if (turn >= queue.length || turn >= room(account)) continue;
      picked.push(queue[turn]!);
      any = true;
    }
    if (!any) break;
  }
  return picked;
}
