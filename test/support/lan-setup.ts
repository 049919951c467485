import { createTestLan } from './test-lan';

/** jest globalSetup: the one test LAN of this run (test-lan.ts says why there is only one). */
export default function setup(): void {
  createTestLan();
}
