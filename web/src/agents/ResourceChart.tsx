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
        scales: { y: { range: [0, 100] } },
        axes: [axis, { ...axis, values: (_u, ticks) => ticks.map((t) => `${t}%`) }],
        series: [{}, { label: title, stroke: color, width: 2, fill: `${color}22` }],
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
  return <div ref={box} className={styles.chart} aria-hidden="true" />;
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
