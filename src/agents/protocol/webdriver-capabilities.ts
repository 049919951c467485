/**
 * The W3C capabilities of a new-session body (WebDriver §7.2): alwaysMatch merged with the first
 * firstMatch entry. Read by the relay (what device and build a hub session wants) and by the
 * agent (what to hand its Appium server), so both see the same capabilities.
 */
export function capabilitiesOf(body: unknown): Record<string, unknown> {
  const capabilities = (body as { capabilities?: { alwaysMatch?: unknown; firstMatch?: unknown } } | null)?.capabilities;
  const always = isRecord(capabilities?.alwaysMatch) ? capabilities.alwaysMatch : {};
  const first = Array.isArray(capabilities?.firstMatch) && isRecord(capabilities.firstMatch[0]) ? capabilities.firstMatch[0] : {};
  return { ...always, ...first };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return !!value && typeof value === 'object' && !Array.isArray(value);
}
