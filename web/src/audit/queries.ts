import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, call } from '../api/client';

/** The filters of GET /audit, as they stand in the page's URL. */
export interface AuditFilters {
  action?: string;
  actor?: string;
  target?: string;
  since?: string;
  until?: string;
}

export const auditKeys = {
  all: ['audit'] as const,
  list: (filters: AuditFilters) => ['audit', 'list', filters] as const,
  settings: ['audit', 'settings'] as const,
};

/** Newest first, one page of 50 at a time, older pages by the answer's cursor. */
export function useAuditEntries(filters: AuditFilters) {
  return useInfiniteQuery({
    queryKey: auditKeys.list(filters),
    initialPageParam: undefined as string | undefined,
    queryFn: ({ pageParam }) => call(api.GET('/api/v1/audit', { params: { query: { ...filters, limit: 50, cursor: pageParam } } })),
    getNextPageParam: (page) => page.next_cursor ?? undefined,
  });
}

export function useAuditSettings() {
  return useQuery({ queryKey: auditKeys.settings, queryFn: () => call(api.GET('/api/v1/audit/settings')) });
}

export function useSetAuditRetention() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (retention_days: number | null) => call(api.PATCH('/api/v1/audit/settings', { body: { retention_days } })),
    onSuccess: () => client.invalidateQueries({ queryKey: auditKeys.all }),
  });
}

/** The export's address with the same filters (a plain link: the browser downloads it with the cookie). */
export function exportUrl(format: 'jsonl' | 'csv', filters: AuditFilters): string {
  const query = new URLSearchParams({ format });
  for (const [key, value] of Object.entries(filters)) if (value) query.set(key, value);
  return `/api/v1/audit/export?${query}`;
}
