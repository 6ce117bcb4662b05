/** One request of the scenario; resolves with the HTTP status it got (what `npm start -- --load` counts). */
export type ScenarioStep = () => Promise<number>;

const CURRENCIES = ['EUR', 'USD', 'GBP'] as const;
const MAX_OPEN_ORDERS = 1000;

/**
 * Traffic for the example API: about half the requests place an order, a third pay an open
 * one, the rest cancel one. One in ten picks an order without taking it out of the open ones,
 * so a later pay or cancel of it meets a paid or cancelled order: the few 409s show the
 * conditional writes at work.
 *
 * @example
 * ```ts
 * startLoad({ rate: 20, step: ordersScenario('http://127.0.0.1:3000'), counters });
 * ```
 */
export function ordersScenario(apiUrl: string, random: () => number = Math.random): ScenarioStep {
  const open: string[] = [];
  const post = async (path: string, body?: unknown): Promise<{ status: number; json: unknown }> => {
    const response = await fetch(`${apiUrl}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: response.status, json: await response.json() };
  };
  const take = (): string => {
    const index = Math.floor(random() * open.length);
    return (random() < 0.1 ? open[index] : open.splice(index, 1)[0]) as string;
  };
  return async () => {
    const dice = random();
    if (open.length === 0 || dice < 0.5) {
      const total = Math.round(1 + random() * 50_000) / 100;
      const currency = CURRENCIES[Math.floor(random() * CURRENCIES.length)] ?? 'EUR';
      const { status, json } = await post('/orders', { total, currency });
      const orderId = (json as { order?: { orderId?: string } }).order?.orderId;
      if (status === 201 && orderId !== undefined && open.length < MAX_OPEN_ORDERS) open.push(orderId);
      return status;
    }
    const orderId = take();
    if (dice < 0.85) return (await post(`/orders/${orderId}/pay`)).status;
    return (await post(`/orders/${orderId}/cancel`, { reason: 'changed my mind' })).status;
  };
}
