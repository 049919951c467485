import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { api, call, type Schemas } from '../api/client';

export type AgentStatus = Schemas['AgentStatus'];
export type Device = Schemas['DeviceListItem'];
export const RANGES = ['1h', '6h', '24h', '7d'] as const;
export type Range = (typeof RANGES)[number];

export const agentKeys = {
  status: ['agents', 'status'] as const,
  resources: (name: string, range: Range) => ['agents', name, 'resources', range] as const,
  devices: ['devices'] as const,
};

/** Online state changes without an event on the live stream: poll while the page is open. */
export function useAgentStatus() {
  return useQuery({
    queryKey: agentKeys.status,
    queryFn: () => call(api.GET('/api/v1/agents/status')),
    refetchInterval: 10_000,
  });
}

/** One sample a minute: refreshing each minute keeps the chart's right edge current. */
export function useAgentResources(name: string, range: Range) {
  return useQuery({
    queryKey: agentKeys.resources(name, range),
    queryFn: () => call(api.GET('/api/v1/agents/{name}/resources', { params: { path: { name }, query: { range } } })),
    refetchInterval: 60_000,
    placeholderData: keepPreviousData,
  });
}

export function useDevices() {
  return useQuery({
    queryKey: agentKeys.devices,
    queryFn: () => call(api.GET('/api/v1/devices')),
    refetchInterval: 10_000,
  });
}
