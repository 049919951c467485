import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, call, type Schemas } from '../api/client';

export type Tester = Schemas['TesterItem'];

const key = (appId: number) => ['apps', appId, 'testers'] as const;

/** An app's testers (refusals only filled in for Admins). */
export function useTesters(appId: number) {
  return useQuery({ queryKey: key(appId), queryFn: () => call(api.GET('/api/v1/apps/{id}/testers', { params: { path: { id: appId } } })) });
}

export function useAddTester(appId: number) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: Schemas['AddTesterDto']) => call(api.POST('/api/v1/apps/{id}/testers', { params: { path: { id: appId } }, body })),
    onSettled: () => client.invalidateQueries({ queryKey: key(appId) }),
  });
}

export function useRemoveTester(appId: number) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (testerId: number) => call(api.DELETE('/api/v1/apps/{id}/testers/{testerId}', { params: { path: { id: appId, testerId } } })),
    onSettled: () => client.invalidateQueries({ queryKey: key(appId) }),
  });
}
