import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, call } from '../api/client';

const reviewPolicyKey = ['settings', 'review'] as const;

/** The team's review policy (every member reads it: the Reject dialog asks for a reason when it says so). */
export function useReviewPolicy(enabled = true) {
  return useQuery({ queryKey: reviewPolicyKey, queryFn: () => call(api.GET('/api/v1/settings/review')), enabled });
}

/** Admin only. */
export function useSetReviewPolicy() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (rejectReasonRequired: boolean) => call(api.PUT('/api/v1/settings/review', { body: { reject_reason_required: rejectReasonRequired } })),
    onSuccess: (policy) => client.setQueryData(reviewPolicyKey, policy),
  });
}
