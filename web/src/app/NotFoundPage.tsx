import { Link } from 'react-router';
import { CenterMessage } from '../ui/States';

export function NotFoundPage() {
  return (
    <CenterMessage>
      <div>
        <h1>Page not found</h1>
        <p>
          <Link to="/builds">Go to the builds</Link>
        </p>
      </div>
    </CenterMessage>
  );
}
