import { getMetadataStorage, IsInt, IsOptional, IsString, MaxLength, MetadataStorage, validate } from 'class-validator';
import { rememberTargetMetadata } from './target-metadata';

class Base {
  @IsString()
  @MaxLength(5)
  name!: string;

  @IsOptional()
  @IsInt()
  count?: number;
}

class Child extends Base {
  // class-validator keeps the child's rules of a type in place of the parent's (here MaxLength(8) for IsString, MaxLength(5)).
  @MaxLength(8)
  declare name: string;

  @IsString()
  note!: string;
}

class Bare {}

const storage = getMetadataStorage();
/** class-validator's own answer, whatever the storage's methods have become. */
const original = (target: Function, groups?: string[]) => MetadataStorage.prototype.getTargetValidationMetadatas.call(storage, target, undefined!, false, false, groups);
const shape = (list: { propertyName: string; type: string; name?: string; constraints?: unknown[] }[]) =>
  list.map((m) => `${m.propertyName}:${m.type}:${m.name ?? ''}:${JSON.stringify(m.constraints ?? [])}`);

describe('class-validator target metadata kept per class (engine room)', () => {
  beforeAll(() => rememberTargetMetadata(storage));

  it("answers each class as class-validator does: its own rules, the inherited ones, the child's in place of the parent's", () => {
    for (const target of [Base, Child, Bare]) {
      expect(shape(storage.getTargetValidationMetadatas(target, undefined!, false, false))).toEqual(shape(original(target)));
    }
    expect(shape(storage.getTargetValidationMetadatas(Child, undefined!, false, false))).toEqual(
      expect.arrayContaining(['name:customValidation:maxLength:[8]', 'note:customValidation:isString:[]', 'count:conditionalValidation:isOptional:[null]', 'count:customValidation:isInt:[]']),
    );
    expect(shape(storage.getTargetValidationMetadatas(Child, undefined!, false, false))).not.toContain('name:customValidation:maxLength:[5]');
  });

  it('keeps one frozen list per class, and its grouping', () => {
    const first = storage.getTargetValidationMetadatas(Child, undefined!, false, false);
    expect(storage.getTargetValidationMetadatas(Child, undefined!, false, false)).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
    expect(storage.groupByPropertyName(first)).toBe(storage.groupByPropertyName(first));
    expect(Object.keys(storage.groupByPropertyName(first)).sort()).toEqual(['count', 'name', 'note']);
  });

  it('a rule added later is seen at once, by the class and by its subclasses', async () => {
    const before = storage.getTargetValidationMetadatas(Child, undefined!, false, false);
    expect(await validate(Object.assign(new Child(), { name: 'ok', note: 'n', late: 3 }))).toEqual([]);
    IsString()(Base.prototype, 'late');
    const after = storage.getTargetValidationMetadatas(Child, undefined!, false, false);
    expect(after).not.toBe(before);
    expect(shape(after)).toEqual(shape(original(Child)));
    const errors = await validate(Object.assign(new Child(), { name: 'ok', note: 'n', late: 3 }));
    expect(errors.map((e) => [e.property, Object.keys(e.constraints ?? {})])).toEqual([['late', ['isString']]]);
  });

  it('calls with groups go through to class-validator, nothing kept', () => {
    const withGroups = storage.getTargetValidationMetadatas(Base, undefined!, false, false, ['admin']);
    expect(shape(withGroups)).toEqual(shape(original(Base, ['admin'])));
    expect(Object.isFrozen(withGroups)).toBe(false);
  });

  it('validate() strips and refuses as before: whitelist, a wrong type, an overridden length', async () => {
    const dto = Object.assign(new Child(), { name: 'abcdefg', note: 'n', extra: 'x', late: 'y' });
    expect(await validate(dto, { whitelist: true, forbidUnknownValues: false })).toEqual([]);
    expect(dto).not.toHaveProperty('extra');
    const bad = await validate(Object.assign(new Child(), { name: 'abcdefghij', note: 4, late: 'y' }), { whitelist: true });
    expect(bad.map((e) => [e.property, Object.keys(e.constraints ?? {}).sort()])).toEqual([
      ['name', ['maxLength']],
      ['note', ['isString']],
    ]);
  });

  it('installing twice wraps once', () => {
    const method = storage.getTargetValidationMetadatas;
    rememberTargetMetadata(storage);
    expect(storage.getTargetValidationMetadatas).toBe(method);
  });
});
