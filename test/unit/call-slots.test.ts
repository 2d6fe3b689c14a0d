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
    const slots = new CallSlots(4, { perTenant: 2 });
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

describe('slots kept for newcomers', () => {
  it('never go to a tenant that already runs a call here, so a newcomer starts at once', async () => {
    const slots = new CallSlots(8, { newcomers: 2 });
    const granted: string[] = [];
    const heavy = Array.from({ length: 10 }, (_, index) => slots.acquire('a').then(() => granted.push(`a${index}`)));
    await Promise.resolve();
    // a fills every slot but the two kept; its other calls wait.
    expect(slots.inUse).toBe(6);
    expect(slots.queued).toBe(4);
    expect(await slots.acquire('b')).toBe(true);
    // b now runs a call here: its second waits like a's, the last free slot stays kept for a newcomer.
    let bSecond = false;
    void slots.acquire('b').then(() => (bSecond = true));
    await Promise.resolve();
    expect(bSecond).toBe(false);
    expect(slots.inUse).toBe(7);
    expect(await slots.acquire('c')).toBe(true);
    expect(slots.inUse).toBe(8);
    // Freed slots wait for a newcomer while 6 or more are in use; below that they go in turn: a, then b.
    slots.release('a');
    slots.release('a');
    await Promise.resolve();
    expect(slots.inUse).toBe(6);
    expect(granted).toHaveLength(6);
    slots.release('c');
    await Promise.resolve();
    expect(granted).toHaveLength(7);
    expect(bSecond).toBe(false);
    slots.release('a');
    await Promise.resolve();
    expect(bSecond).toBe(true);
    expect(granted).toHaveLength(7);
    for (let i = 0; i < 3; i++) slots.release('a');
    await Promise.all(heavy);
    expect(slots.inUse).toBe(6);
  });

  it('let a newcomer waiting at full capacity take the next freed slot before any tenant with calls here', async () => {
    const slots = new CallSlots(4, { newcomers: 1 });
    expect(await slots.acquire('a')).toBe(true);
    expect(await slots.acquire('a')).toBe(true);
    expect(await slots.acquire('a')).toBe(true);
    expect(await slots.acquire('b')).toBe(true);
    const order: string[] = [];
    const waits = [slots.acquire('a').then(() => order.push('a')), slots.acquire('c').then(() => order.push('c'))];
    await Promise.resolve();
    expect(slots.queued).toBe(2);
    // a is first in turn, but with 3 of 4 slots in use only a newcomer may take the freed one.
    slots.release('b');
    await Promise.resolve();
    expect(order).toEqual(['c']);
    slots.release('c');
    slots.release('a');
    await Promise.all(waits);
    expect(order).toEqual(['c', 'a']);
  });

  it('leave a lone tenant capacity − newcomers slots, and at least one', async () => {
    const alone = new CallSlots(8, { newcomers: 3 });
    for (let i = 0; i < 5; i++) expect(await alone.acquire('a')).toBe(true);
    let sixth = false;
    void alone.acquire('a').then(() => (sixth = true));
    await Promise.resolve();
    expect(sixth).toBe(false);
    expect(alone.inUse).toBe(5);

    const tiny = new CallSlots(1, { newcomers: 4 });
    expect(await tiny.acquire('a')).toBe(true);
    expect(tiny.inUse).toBe(1);
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

describe('a waiter that gives up', () => {
  it('is withdrawn after its time without a slot: the next free slot goes to the others, and one granted in time keeps it', async () => {
    const slots = new CallSlots(1);
    expect(await slots.acquire('a')).toBe(true);
    const impatient = slots.acquire('b', 50);
    const patient = slots.acquire('c');
    expect(await impatient).toBe(false);
    expect(slots.queued).toBe(1);
    slots.release('a');
    expect(await patient).toBe(true);
    expect(slots.inUse).toBe(1);

    const inTime = slots.acquire('d', 5_000);
    slots.release('c');
    expect(await inTime).toBe(true);
    expect(slots.queued).toBe(0);
  });
});
