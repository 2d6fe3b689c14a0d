import { describe, expect, it } from 'vitest';
import { CallSlots } from '../../src/jobs/call-slots.js';

describe('call slots', () => {
  it('hands freed slots to waiting tenants in turn, not in arrival order', async () => {
    const slots = new CallSlots(2);
    await slots.acquire('a');
    await slots.acquire('a');
    const order: string[] = [];
    const waits = [...['a', 'a', 'a', 'b', 'c'].map((tenant, index) => slots.acquire(tenant).then(() => order.push(`${tenant}${index}`)))];
    expect(slots.queued).toBe(5);
    for (let i = 0; i < 5; i++) {
      slots.release(order.length === 0 ? 'a' : order.at(-1)!.slice(0, 1));
      await Promise.resolve();
    }
    await Promise.all(waits);
    // a waited first, then b and c each get the next slot before a's second and third call.
    expect(order).toEqual(['a0', 'b3', 'c4', 'a1', 'a2']);
  });

  it('caps one tenant below the whole worker', async () => {
    const slots = new CallSlots(4, 2);
    await slots.acquire('a');
    await slots.acquire('a');
    let third = false;
    void slots.acquire('a').then(() => (third = true));
    await slots.acquire('b');
    await Promise.resolve();
    expect(third).toBe(false);
    expect(slots.inUse).toBe(3);
    slots.release('a');
    await Promise.resolve();
    expect(third).toBe(true);
  });
});

describe('closed call slots', () => {
  it('refuse every waiter and every later acquire', async () => {
    const slots = new CallSlots(1);
    expect(await slots.acquire('a')).toBe(true);
    const waiting = slots.acquire('b');
    slots.close();
    expect(await waiting).toBe(false);
    expect(await slots.acquire('c')).toBe(false);
  });
});
