import { removeTestLan } from './test-lan';

/** jest globalTeardown. */
export default function teardown(): void {
  removeTestLan();
}
