import { describe, expect, it } from 'vitest';
import { RequestDeadlines } from './request-deadlines.ts';

describe('RequestDeadlines', () => {
  it('expires only what is still pending after its deadline, oldest first', () => {
    let now = 1000;
    const expired: string[] = [];
    const d = new RequestDeadlines<{ name: string }>(100, (i) => expired.push(i.name), 10, () => now);
    const item = (name: string) => ({ name });
    const a = item('a');
    const b = item('b');
    const c = item('c');
    d.track(a);
    now += 50;
    d.track(b);
    d.track(c);
    d.done(c);
    now += 60; // a is past its deadline, b is not
    d.sweep();
    expect(expired).toEqual(['a']);
    now += 100;
    d.sweep();
    expect(expired).toEqual(['a', 'b']);
    expect(d.size).toBe(0);
  });

  it('fires on its own interval', async () => {
    const fired = await new Promise<boolean>((resolve) => {
      const d = new RequestDeadlines<object>(20, () => resolve(true), 5);
      d.track({});
      setTimeout(() => resolve(false), 2000);
    });
    expect(fired).toBe(true);
  });
});
