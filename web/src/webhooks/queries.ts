import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, call, type Schemas } from '../api/client';

export type Webhook = Schemas['Webhook'];
export type DeliveryAttempt = Schemas['WebhookDeliveryItem'];
export type ConfigWebhook = Schemas['ConfigWebhook'];

/** Whose delivery log: an API webhook (its id) or a svc.config.json entry (its index in the file). */
export type DeliverySource = { webhookId: number } | { configIndex: number };

export const webhookKeys = {
  all: ['webhooks'] as const,
  config: ['webhooks', 'config'] as const,
  deliveries: (source: DeliverySource) => ['webhooks', source, 'deliveries'] as const,
};

export function useWebhooks() {
  return useQuery({ queryKey: webhookKeys.all, queryFn: () => call(api.GET('/api/v1/webhooks')) });
}

/** svc.config.json webhooks: read-only here (the file is the operator's). */
export function useConfigWebhooks() {
  return useQuery({ queryKey: webhookKeys.config, queryFn: () => call(api.GET('/api/v1/webhooks/config')) });
}

/** Retries happen in the background (10 s, 1 min, 5 min): an open log refreshes itself. */
export function useDeliveries(source: DeliverySource) {
  return useQuery({
    queryKey: webhookKeys.deliveries(source),
    queryFn: () =>
      'webhookId' in source
        ? call(api.GET('/api/v1/webhooks/{id}/deliveries', { params: { path: { id: source.webhookId } } }))
        : call(api.GET('/api/v1/webhooks/config/{index}/deliveries', { params: { path: { index: source.configIndex } } })),
    refetchInterval: 5000,
    placeholderData: keepPreviousData,
  });
}

function useWebhookMutation<T, R>(fn: (input: T) => Promise<R>) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: fn,
    onSettled: () => client.invalidateQueries({ queryKey: webhookKeys.all }),
  });
}

export function useCreateWebhook() {
  return useWebhookMutation((body: Schemas['CreateWebhookDto']) => call(api.POST('/api/v1/webhooks', { body })));
}

export function useUpdateWebhook() {
  return useWebhookMutation(({ id, ...body }: Schemas['UpdateWebhookDto'] & { id: number }) =>
    call(api.PATCH('/api/v1/webhooks/{id}', { params: { path: { id } }, body })),
  );
}

export function useDeleteWebhook() {
  return useWebhookMutation((id: number) => call(api.DELETE('/api/v1/webhooks/{id}', { params: { path: { id } } })));
}

/** POST /webhooks/:id/test (or /webhooks/config/:index/test): the answer is the attempt, which the log then shows too. */
export function useTestDelivery() {
  return useWebhookMutation((source: DeliverySource) =>
    'webhookId' in source
      ? call(api.POST('/api/v1/webhooks/{id}/test', { params: { path: { id: source.webhookId } } }))
      : call(api.POST('/api/v1/webhooks/config/{index}/test', { params: { path: { index: source.configIndex } } })),
  );
}

/** A signing secret made in the browser: 32 random bytes, hex. The relay stores what it is given. */
export function newSecret(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}
