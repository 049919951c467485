import qrcode from 'qrcode-generator';
import { useMemo } from 'react';

/**
 * A QR code drawn as SVG paths (no canvas, no data: URL, nothing the CSP must allow), so a phone
 * on the same network can open the link by pointing its camera at the screen.
 */
export function QrCode({ value, label, size = 168 }: { value: string; label: string; size?: number }) {
  const path = useMemo(() => {
    const code = qrcode(0, 'M');
    code.addData(value);
    code.make();
    const count = code.getModuleCount();
    const parts: string[] = [];
    for (let row = 0; row < count; row++) {
      for (let col = 0; col < count; col++) {
        if (code.isDark(row, col)) parts.push(`M${col + 4},${row + 4}h1v1h-1z`);
      }
    }
    return { d: parts.join(''), count: count + 8 };
  }, [value]);
  return (
    <svg width={size} height={size} viewBox={`0 0 ${path.count} ${path.count}`} role="img" aria-label={label} shapeRendering="crispEdges">
      <rect width={path.count} height={path.count} fill="#fff" />
      <path d={path.d} fill="#000" />
    </svg>
  );
}
