import { describe, expect, it } from 'vitest';
import { categoryName, deltaText, percentText } from './comparison-text';

describe('comparison text', () => {
  it('names categories, native code by ABI', () => {
    expect(categoryName({ category: 'native', name: 'arm64-v8a' })).toBe('Native code (arm64-v8a)');
    expect(categoryName({ category: 'framework', name: 'Payments.framework' })).toBe('Framework Payments.framework');
    expect(categoryName({ category: 'dex', name: null })).toBe('Dex code');
  });

  it('signs percentages and sizes with real minus signs', () => {
    expect(percentText(8.14, 10)).toBe('+8.1 %');
    expect(percentText(-100, -40000)).toBe('−100 %');
    expect(percentText(null, 5)).toBe('new');
    expect(deltaText(-40000)).toMatch(/^−/);
    expect(deltaText(2048)).toMatch(/^\+/);
  });
});
