import { useEffect, useRef, useState } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import styles from './agents.module.css';

export interface ResourceChartProps {
  /** e.g. "CPU": names the chart for screen readers and tests. */
  title: string;
  /** Unix seconds, oldest first. */
  times: number[];
  /** Percentages, one per time. */
  values: number[];
  /** A CSS custom property holding the line colour (themes follow it). */
  colorVar: string;
}

/** Seconds each side of a lone sample: one minute either way, the sampling interval. */
const LONE_SAMPLE_PAD_S = 60;

/**
 * The time axis: the samples' own span; around a single sample (a new agent) or identical times,
 * one minute either side. uPlot would otherwise widen an empty span on its own, to years.
 */
export function timeWindow(times: number[]): [number, number] | null {
  if (times.length === 0) return null;
  const min = Math.min(...times);
  const max = Math.max(...times);
  return min === max ? [min - LONE_SAMPLE_PAD_S, max + LONE_SAMPLE_PAD_S] : [min, max];
}

/** `2026-11-21 10:15`, local time: the axis's ends in words, for screen readers (the canvas is a picture). */
function axisEnd(seconds: number): string {
  const d = new Date(seconds * 1000);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

/**
 * One uPlot time series (0–100 %). This module is loaded with `import()` by the agents page, so
 * uPlot is a chunk of its own that only that page downloads (docs/dependencies.md).
 */
export default function ResourceChart({ title, times, values, colorVar }: ResourceChartProps) {
  const box = useRef<HTMLDivElement>(null);
  const scheme = useColorScheme();
  useEffect(() => {
    const element = box.current;
    if (!element) return;
    const css = getComputedStyle(element);
    const color = css.getPropertyValue(colorVar).trim() || '#4338ca';
    const axis = { stroke: css.getPropertyValue('--muted').trim(), grid: { stroke: css.getPropertyValue('--border').trim(), width: 1 } };
    const chart = new uPlot(
      {
        width: Math.max(element.clientWidth, 200),
        height: 180,
        legend: { show: false },
        cursor: { drag: { x: false, y: false } },
        scales: { x: { time: true, range: (_u, min, max) => timeWindow([min, max]) ?? [min, max] }, y: { range: [0, 100] } },
        axes: [axis, { ...axis, values: (_u, ticks) => ticks.map((t) => `${t}%`) }],
        // A lone sample is a point (a line needs two).
        series: [{}, { label: title, stroke: color, width: 2, fill: `${color}22`, points: { show: times.length === 1, size: 8, fill: color } }],
      },
      [times, values],
      element,
    );
    // The chart follows the width of its card.
    const resize = new ResizeObserver(() => chart.setSize({ width: Math.max(element.clientWidth, 200), height: 180 }));
    resize.observe(element);
    return () => {
      resize.disconnect();
      chart.destroy();
    };
  }, [title, times, values, colorVar, scheme]);
  const span = timeWindow(times);
  const described = span ? `${title} from ${axisEnd(span[0])} to ${axisEnd(span[1])}` : `${title}: no samples`;
  return <div ref={box} className={styles.chart} role="img" aria-label={described} />;
}

/** Canvas colours are read once per drawing: redraw when the theme changes. */
function useColorScheme(): 'dark' | 'light' {
  const query = '(prefers-color-scheme: dark)';
  const [dark, setDark] = useState(() => matchMedia(query).matches);
  useEffect(() => {
    const media = matchMedia(query);
    const onChange = () => setDark(media.matches);
    media.addEventListener('change', onChange);
    return () => media.removeEventListener('change', onChange);
  }, []);
  return dark ? 'dark' : 'light';
}
