import { useMutation } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Button } from '../ui/Button';
import { FormError, TextField } from '../ui/Field';
import { deviceRequest } from './device-session';
import styles from './devices.module.css';

export interface TapPoint {
  x: number;
  y: number;
}

/** tap / type_text through the device-session socket (docs/agents.md "Device methods"). */
export function useDeviceInput(sessionId: string) {
  return useMutation({
    mutationFn: async (input: { method: 'tap'; point: TapPoint } | { method: 'type_text'; text: string }) => {
      if (input.method === 'tap') {
        await deviceRequest(sessionId, 'tap', { x: input.point.x, y: input.point.y }, 60_000);
        return `Tapped at ${Math.round(input.point.x * 100)} %, ${Math.round(input.point.y * 100)} %`;
      }
      await deviceRequest(sessionId, 'type_text', { text: input.text }, 60_000);
      return `Typed ${input.text.length} characters`;
    },
  });
}

/** The typing form and the outcome of the last input; taps come from the panel (element or screen). */
export function DeviceInput({ input }: { input: ReturnType<typeof useDeviceInput> }) {
  const [text, setText] = useState('');
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (text) input.mutate({ method: 'type_text', text }, { onSuccess: () => setText('') });
  };
  return (
    <form onSubmit={submit} className={styles.install} aria-label="Type on the device">
      <TextField label="Type text" value={text} onChange={(e) => setText(e.target.value)} maxLength={4096} hint="Sent to the focused field on the device." />
      <div>
        <Button type="submit" disabled={!text || input.isPending}>
          Send text
        </Button>
      </div>
      <FormError error={input.error} />
      {input.data && !input.isPending && (
        <p role="status" className={styles.installed}>
          {input.data}
        </p>
      )}
    </form>
  );
}
