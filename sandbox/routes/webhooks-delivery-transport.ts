// The HTTP POST behind webhook deliveries (node:http / node:https), with a timeout. Only ever sends to
// the URL the webhook names.

import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { DeliveryTransport } from '../model/webhook-delivery-engine';

export const DELIVERY_TIMEOUT_MS = 5000;

export function httpDeliveryTransport(timeoutMs = DELIVERY_TIMEOUT_MS): DeliveryTransport {
  return (url, headers, body) =>
    new Promise<number>((resolve, reject) => {
      const target = new URL(url);
      const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
      const req = send(target, { method: 'POST', headers: { ...headers, 'content-length': String(body.length) }, timeout: timeoutMs }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
        res.on('error', reject);
      });
      req.on('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
      req.on('error', (error: NodeJS.ErrnoException) => reject(new Error(error.code ?? error.message)));
      req.end(body);
    });
}
