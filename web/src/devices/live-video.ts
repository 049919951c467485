import { useCallback, useEffect, useRef, useState } from 'react';

/**
 * What the live video of a session is doing: `connecting` until the first picture, `playing`, or
 * `fallback` (with the reason) when this browser or the device's agent cannot, and the panel shows
 * screenshots instead.
 */
export interface LiveVideo {
  status: 'connecting' | 'playing' | 'fallback';
  reason: string | null;
  /** Pictures decoded in the last second. */
  fps: number;
  /** Capture (agent clock) to decoded (this clock), ms, the latest picture: meaningful when both clocks agree (NTP, same LAN). */
  latencyMs: number | null;
  frames: number;
  width: number;
  height: number;
  /** Where the pictures are drawn: pass as the canvas's ref. */
  canvasRef: (canvas: HTMLCanvasElement | null) => void;
}

interface StreamConfig {
  type: 'config';
  codec: string;
  width: number;
  height: number;
}

/** Where WebCodecs is missing (plain-HTTP origins other than localhost, older browsers): the screenshots stay. */
export const canDecodeVideo = () => typeof window !== 'undefined' && 'VideoDecoder' in window && 'EncodedVideoChunk' in window;

/**
 * The device's screen as H.264 from GET /api/v1/sessions/:id/stream (docs/agents.md "Live video"):
 * a `config` text message configures a WebCodecs VideoDecoder (`optimizeForLatency`), then each
 * binary message `[4-byte length N][JSON { seq, key, ts }][Annex B access unit]` is one chunk; every
 * decoded picture is drawn onto the canvas at once and closed. Stops while the tab is hidden (no
 * stream nobody sees: the agent encodes only while someone watches).
 */
export function useLiveVideo(sessionId: string): LiveVideo {
  const canvas = useRef<HTMLCanvasElement | null>(null);
  const [state, setState] = useState<Omit<LiveVideo, 'canvasRef'>>(() => ({
    status: canDecodeVideo() ? 'connecting' : 'fallback',
    reason: canDecodeVideo() ? null : 'This browser cannot decode H.264 here (WebCodecs needs HTTPS or localhost)',
    fps: 0,
    latencyMs: null,
    frames: 0,
    width: 0,
    height: 0,
  }));
  const [hidden, setHidden] = useState(document.hidden);
  useEffect(() => {
    const onVisibility = () => setHidden(document.hidden);
    document.addEventListener('visibilitychange', onVisibility);
    return () => document.removeEventListener('visibilitychange', onVisibility);
  }, []);

  useEffect(() => {
    if (!canDecodeVideo() || hidden) return;
    let stopped = false;
    let decoder: VideoDecoder | null = null;
    let decodedAt: number[] = [];
    let frames = 0;
    const fallback = (reason: string) => {
      if (stopped) return;
      stopped = true;
      socket.close();
      setState((s) => ({ ...s, status: 'fallback', reason }));
    };
    const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
    const socket = new WebSocket(`${scheme}//${location.host}/api/v1/sessions/${encodeURIComponent(sessionId)}/stream`);
    socket.binaryType = 'arraybuffer';
    const draw = (picture: VideoFrame) => {
      const target = canvas.current;
      if (target && !stopped) {
        if (target.width !== picture.displayWidth || target.height !== picture.displayHeight) {
          target.width = picture.displayWidth;
          target.height = picture.displayHeight;
        }
        target.getContext('2d')?.drawImage(picture, 0, 0);
      }
      const now = performance.now();
      decodedAt = decodedAt.filter((t) => now - t < 1000);
      decodedAt.push(now);
      frames++;
      // The chunk's timestamp carries the capture time (µs since the epoch, agent clock).
      const latencyMs = Math.max(0, Math.round(Date.now() - picture.timestamp / 1000));
      picture.close();
      setState((s) => ({ ...s, status: 'playing', fps: decodedAt.length, latencyMs, frames }));
    };
    const configure = async (config: StreamConfig) => {
      const wanted: VideoDecoderConfig = { codec: config.codec, codedWidth: config.width, codedHeight: config.height, optimizeForLatency: true };
      const support = await VideoDecoder.isConfigSupported(wanted).catch(() => null);
      if (!support?.supported) return fallback(`This browser cannot decode ${config.codec}`);
      if (stopped) return;
      decoder?.close();
      decoder = new VideoDecoder({ output: draw, error: (err) => fallback(`Decoding failed: ${err.message}`) });
      decoder.configure(wanted);
      setState((s) => ({ ...s, width: config.width, height: config.height }));
    };
    let configured: Promise<void> = Promise.resolve();
    socket.onmessage = (event) => {
      if (typeof event.data === 'string') {
        const message = JSON.parse(event.data) as StreamConfig;
        if (message.type === 'config') configured = configure(message);
        return;
      }
      const data = event.data as ArrayBuffer;
      const headerLength = new DataView(data).getUint32(0);
      const header = JSON.parse(new TextDecoder().decode(new Uint8Array(data, 4, headerLength))) as { seq: number; key: boolean; ts: number };
      const unit = new Uint8Array(data, 4 + headerLength);
      void configured.then(() => {
        if (stopped || !decoder || decoder.state !== 'configured') return;
        decoder.decode(new EncodedVideoChunk({ type: header.key ? 'key' : 'delta', timestamp: header.ts * 1000, data: unit }));
      });
    };
    socket.onclose = (event) => {
      if (stopped) return;
      // 4502: the agent went away; anything else before a picture (1011: the agent has no video) falls back to screenshots.
      fallback(event.reason || (event.code === 4502 ? 'The agent went offline' : `The live video closed (${event.code})`));
    };
    return () => {
      stopped = true;
      socket.onclose = null;
      socket.close();
      if (decoder && decoder.state !== 'closed') decoder.close();
    };
  }, [sessionId, hidden]);

  const canvasRef = useCallback((element: HTMLCanvasElement | null) => {
    canvas.current = element;
  }, []);
  return { ...state, canvasRef };
}
