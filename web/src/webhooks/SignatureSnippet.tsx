import { useState } from 'react';
import { CopyField } from '../ui/CopyField';
import { toggleClass } from '../ui/table';
import styles from './webhooks.module.css';

/** docs/webhooks.md "Verifying a delivery": HMAC over the raw bytes, compared in constant time. */
const SNIPPETS = {
  node: `const crypto = require('node:crypto');
const express = require('express');
const app = express();

app.post('/hooks/svc', express.raw({ type: 'application/json' }), (req, res) => {
  const expected = 'sha256=' + crypto.createHmac('sha256', process.env.SVC_WEBHOOK_SECRET).update(req.body).digest('hex');
  const given = req.get('X-Svc-Signature') || '';
  const ok = given.length === expected.length && crypto.timingSafeEqual(Buffer.from(given), Buffer.from(expected));
  if (!ok) return res.sendStatus(401);
  const event = JSON.parse(req.body.toString('utf8')); // parse only after verifying
  // event.event is "build.status_changed" (or "ping" for a test delivery);
  // retries reuse the X-Svc-Delivery header: deduplicate on it
  res.sendStatus(204);
});`,
  python: `import hashlib, hmac, json, os
from flask import Flask, abort, request

app = Flask(__name__)

@app.post("/hooks/svc")
def svc_hook():
    raw = request.get_data()  # raw bytes, before any JSON parsing
    expected = "sha256=" + hmac.new(os.environ["SVC_WEBHOOK_SECRET"].encode(), raw, hashlib.sha256).hexdigest()
    if not hmac.compare_digest(expected, request.headers.get("X-Svc-Signature", "")):
        abort(401)
    event = json.loads(raw)  # "build.status_changed", or "ping" for a test delivery
    return "", 204`,
} as const;

export function SignatureSnippet() {
  const [language, setLanguage] = useState<keyof typeof SNIPPETS>('node');
  return (
    <div className={styles.snippet}>
      <div className={styles.snippetHead}>
        <span>Verify the signature (over the raw body, before parsing):</span>
        <div role="group" aria-label="Snippet language" className={styles.actions}>
          {(['node', 'python'] as const).map((lang) => (
            <button
              key={lang}
              type="button"
              className={toggleClass}
              aria-pressed={language === lang}
              onClick={() => setLanguage(lang)}
            >
              {lang === 'node' ? 'Node' : 'Python'}
            </button>
          ))}
        </div>
      </div>
      <CopyField label={`Verification snippet (${language === 'node' ? 'Node' : 'Python'})`} value={SNIPPETS[language]} multiline />
    </div>
  );
}
