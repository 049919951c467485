/**
 * bench/validation: what the relay's one validation pipe (class-transformer + class-validator,
 * src/common/validation/validation.pipe.ts) costs per JSON body on the soak's write paths, against
 * a hand-written check of the same rules (the floor): issue 42 item 2 asks for validation "compiled
 * once per shape" where it is measurably cheaper. Prints µs per body for both and their difference,
 * first with class-validator as it ships, then as the relay runs it (the engine room's
 * 'class-validator target metadata kept per class' installed, as createRelayApp installs it).
 * Run: npm run bench:validation   (not part of npm test)
 */
import type { ArgumentMetadata, PipeTransform } from '@nestjs/common';
import { join } from 'node:path';
import { buildRelay, median, ROOT } from './support/relay';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const BODIES = Number(process.env.BENCH_BODIES ?? 20_000);
const STATUSES = ['Backlog', 'In Progress', 'Done', 'Rejected'];

/** The relay's compiled classes (dist/), as `npm start` runs them. */
const load = <T>(path: string): T => require(join(ROOT, 'dist', path)) as T;

interface Shape {
  name: string;
  body: Record<string, unknown>;
  metatype: unknown;
  floor: (body: Record<string, unknown>) => unknown;
}

function shapes(): Shape[] {
  const { UpdateBuildDto } = load<{ UpdateBuildDto: unknown }>('builds/dto/update-build.dto');
  const { LoginDto } = load<{ LoginDto: unknown }>('auth/dto/credentials.dto');
  const str = (v: unknown, max: number) => typeof v === 'string' && v.length > 0 && v.length <= max;
  return [
    {
      name: 'PATCH /builds/:id {status_label}',
      body: { status_label: 'Done' },
      metatype: UpdateBuildDto,
      floor: (b) => {
        if (b.status_label !== null && b.status_label !== undefined && !STATUSES.includes(b.status_label as string)) throw new Error('status_label');
        return { status_label: b.status_label };
      },
    },
    {
      name: 'POST /auth/login {email, password}',
      body: { email: 'member@example.com', password: 'a-good-long-password' },
      metatype: LoginDto,
      floor: (b) => {
        if (!str(b.email, 320) || !str(b.password, 1024)) throw new Error('credentials');
        return { email: b.email, password: b.password };
      },
    },
  ];
}

async function perBody(run: (body: Record<string, unknown>) => unknown, body: Record<string, unknown>): Promise<number> {
  const started = process.hrtime.bigint();
  for (let i = 0; i < BODIES; i++) await run({ ...body });
  return Number(process.hrtime.bigint() - started) / 1000 / BODIES;
}

async function main(): Promise<void> {
  buildRelay();
  // Every module, so class-validator's storage holds every DTO class the relay declares, as in the relay.
  load('app.module');
  const { createValidationPipe } = load<{ createValidationPipe: () => PipeTransform }>('common/validation/validation.pipe');
  const pipe = createValidationPipe();
  console.log(`${BODIES} bodies a round, ${ROUNDS} rounds (the first is warm-up); medians of the rest`);
  console.log('shape'.padEnd(60), 'pipe µs'.padStart(9), 'floor µs'.padStart(9), 'added µs'.padStart(9));
  await measure(pipe, 'as shipped');
  const { PIECES } = load<{ PIECES: { name: string; install?: (target: unknown) => void }[] }>('platform');
  PIECES.find((piece) => piece.name === 'class-validator target metadata kept per class')!.install!(undefined);
  await measure(pipe, 'as the relay runs it');
}

async function measure(pipe: PipeTransform, how: string): Promise<void> {
  for (const shape of shapes()) {
    const meta = { type: 'body', metatype: shape.metatype, data: '' } as ArgumentMetadata;
    const pipes: number[] = [];
    const floors: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const p = await perBody((body) => pipe.transform(body, meta), shape.body);
      const f = await perBody(async (body) => shape.floor(body), shape.body);
      if (round === 0) continue;
      pipes.push(p);
      floors.push(f);
    }
    const [p, f] = [median(pipes), median(floors)];
    console.log(`${shape.name}, ${how}`.padEnd(60), p.toFixed(2).padStart(9), f.toFixed(2).padStart(9), (p - f).toFixed(2).padStart(9));
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
