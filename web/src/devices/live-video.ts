import { useCallback, useEffect, useRef, useState } from 'react';

/**
 * What the live video of a session is doing: `connecting` until the first picture, `playing`, or
 * `fallback` (with the reason) when this browser or the device's agent cannot, and the panel shows
 * screenshots instead.
 */
export interface LiveVideo {
  /** `off`: not asked for (a wall tile out of view or past the wall's live tiles); screenshots show. */
  status: 'off' | 'connecting' | 'playing' | 'fallback';
  reason: string | null;
  /** Pictures drawn in the last second. */
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

/** How a viewer asks for less than the panel's full picture (the device wall's tiles). */
export interface LiveVideoOptions {
  /** false: no stream (the socket closes, so the agent stops encoding once nobody else watches). */
  enabled?: boolean;
  /** Draw at most this many pictures a second; every unit is still decoded (H.264 delta frames need their predecessors). */
  maxFps?: number;
  /** Draw onto a canvas at most this wide (a tile is ~250 px: no 720×1600 canvas per tile). */
  maxWidth?: number;
}

/** More chunks than this waiting in the decoder: this browser is behind, deltas are dropped until the next key frame. */
const MAX_DECODE_QUEUE = 10;

/** Where WebCodecs is missing (plain-HTTP origins other than localhost, older browsers): the screenshots stay. */
export const canDecodeVideo = () => typeof window !== 'undefined' && 'VideoDecoder' in window && 'EncodedVideoChunk' in window;

/**
 * The device's screen as H.264 from GET /api/v1/sessions/:id/stream (docs/agents.md "Live video"):
 * a `config` text message configures a WebCodecs VideoDecoder (`optimizeForLatency`), then each
 * binary message `[4-byte length N][JSON { seq, key, ts }][Annex B access unit]` is one chunk; every
 * decoded picture is drawn onto the canvas at once and closed. Stops while the tab is hidden (no
 * stream nobody sees: the agent encodes only while someone watches).
 */
export function useLiveVideo(sessionId: string, { enabled = true, maxFps, maxWidth }: LiveVideoOptions = {}): LiveVideo {
  const canvas = useRef<HTMLCanvasElement | null>(null);
  const [state, setState] = useState<Omit<LiveVideo, 'canvasRef'>>(() => ({
    status: canDecodeVideo() ? (enabled ? 'connecting' : 'off') : 'fallback',
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
    if (!enabled) {
      setState((s) => (s.status === 'fallback' ? s : { ...s, status: 'off', fps: 0 }));
      return;
    }
    setState((s) => (s.status === 'off' ? { ...s, status: 'connecting' } : s));
    let stopped = false;
    let decoder: VideoDecoder | null = null;
    let shownAt: number[] = [];
    let frames = 0;
    let drawnAt = -Infinity;
    let waitForKey = false;
    const minGapMs = maxFps ? 1000 / maxFps : 0;
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
      const now = performance.now();
      // A few ms early still counts: pictures arrive at the encoder's rate, not on our grid.
      if (now - drawnAt < minGapMs - 8) {
        picture.close();
        return;
      }
      drawnAt = now;
      const target = canvas.current;
      if (target && !stopped) {
        const scale = maxWidth && picture.displayWidth > maxWidth ? maxWidth / picture.displayWidth : 1;
        const width = Math.round(picture.displayWidth * scale);
        const height = Math.round(picture.displayHeight * scale);
        if (target.width !== width || target.height !== height) {
          target.width = width;
          target.height = height;
        }
        target.getContext('2d')?.drawImage(picture, 0, 0, width, height);
      }
      shownAt = shownAt.filter((t) => now - t < 1000);
      shownAt.push(now);
      frames++;
      // The chunk's timestamp carries the capture time (µs since the epoch, agent clock).
      const latencyMs = Math.max(0, Math.round(Date.now() - picture.timestamp / 1000));
      picture.close();
      setState((s) => ({ ...s, status: 'playing', fps: shownAt.length, latencyMs, frames }));
    };
    const configure = async (config: StreamConfig) => {
      const wanted: VideoDecoderConfig = { codec: config.codec, codedWidth: config.width, codedHeight: config.height, optimizeForLatency: true };
      const support = await VideoDecoder.isConfigSupported(wanted).catch(() => null);
      if (!support?.supported) return fallback(`This browser cannot decode ${config.codec}`);
      if (stopped) return;
      decoder?.close();
      decoder = new VideoDecoder({ output: draw, error: (err) => fallback(`Decoding failed: ${err.message}`) });
      decoder.configure(wanted);
      // The canvas's size as drawn (scaled to maxWidth), so React's width/height never clear it.
      const scale = maxWidth && config.width > maxWidth ? maxWidth / config.width : 1;
      setState((s) => ({ ...s, width: Math.round(config.width * scale), height: Math.round(config.height * scale) }));
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
        // A browser that cannot keep up (a busy machine, many tiles) skips to the next key frame
        // rather than falling ever further behind live.
        if (!header.key && (waitForKey || decoder.decodeQueueSize > MAX_DECODE_QUEUE)) {
          // Ask for one now rather than wait for the agent's next periodic one (the relay limits these to one a second).
          if (!waitForKey && socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify({ type: 'keyframe' }));
          waitForKey = true;
          return;
        }
        waitForKey = false;
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
  }, [sessionId, hidden, enabled, maxFps, maxWidth]);

  const canvasRef = useCallback((element: HTMLCanvasElement | null) => {
    canvas.current = element;
  }, []);
  return { ...state, canvasRef };
}
