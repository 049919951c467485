import type { AnyPiece } from './piece';
import { pieces as classValidator } from './class-validator';
import { pieces as express } from './express';
import { pieces as nest } from './nest';
import { pieces as pg } from './pg';
import { pieces as tus } from './tus';
import { pieces as typeorm } from './typeorm';
import { pieces as v8 } from './v8';
import { pieces as ws } from './ws';

/**
 * Every change the relay makes to how a dependency, Node or V8 behaves (docs/architecture.md
 * "Engine room"). installPlatform() runs them by phase; the fences spec walks them. Loading this
 * list loads none of the packages it names.
 */
export const PIECES: readonly AnyPiece[] = [...v8, ...express, ...nest, ...classValidator, ...pg, ...tus, ...ws, ...typeorm];
