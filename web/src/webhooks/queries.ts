import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, call, type Schemas } from '../api/client';

export type Webhook = Schemas['Webhook'];
export type DeliveryAttempt = Schemas['WebhookDeliveryItem'];

export const webhookKeys = {
  all: ['webhooks'] as const,
  deliveries: (id: number) => ['webhooks', id, 'deliveries'] as const,
};

export function useWebhooks() {
  return useQuery({ queryKey: webhookKeys.all, queryFn: () => call(api.GET('/api/v1/webhooks')) });
}

/** Retries happen in the background (10 s, 1 min, 5 min): an open log refreshes itself. */
export function useDeliveries(id: number) {
  return useQuery({
    queryKey: webhookKeys.deliveries(id),
    queryFn: () => call(api.GET('/api/v1/webhooks/{id}/deliveries', { params: { path: { id } } })),
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

/** POST /webhooks/:id/test: the answer is the attempt, which the log then shows too. */
export function useTestDelivery() {
  return useWebhookMutation((id: number) => call(api.POST('/api/v1/webhooks/{id}/test', { params: { path: { id } } })));
}

/** A signing secret made in the browser: 32 random bytes, hex. The relay stores what it is given. */
export function newSecret(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}
