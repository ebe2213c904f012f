import type { AnyBulkWriteOperation } from 'mongodb';
import { describe, expect, it } from 'vitest';
import { writeCommands } from './ferretdb-adapter.ts';

const insert = (id: string): AnyBulkWriteOperation => ({ insertOne: { document: { _id: id } as never } });
const replace = (id: string): AnyBulkWriteOperation => ({
  replaceOne: { filter: { _id: id } as never, replacement: { _id: id } },
});
const ids = (commands: AnyBulkWriteOperation[][]) =>
  commands.map((ops) => ops.map((op) => ('insertOne' in op ? `+${String(op.insertOne.document._id)}` : 'r')).join(''));

describe('the commands of a FerretDB compare-and-set', () => {
  it('sends inserts and replaces in one command while the replaces fit in one', () => {
    expect(ids(writeCommands([insert('a'), insert('b')], [replace('x'), replace('y')], 2))).toEqual(['+a+brr']);
    expect(ids(writeCommands([], [], 16))).toEqual(['']);
  });

  it('else the inserts alone, then the replaces at most perCommand at a time', () => {
    const replaces = Array.from({ length: 5 }, (_, i) => replace(`r${i}`));
    expect(ids(writeCommands([insert('a')], replaces, 2))).toEqual(['+a', 'rr', 'rr', 'r']);
    expect(ids(writeCommands([], replaces, 4))).toEqual(['', 'rrrr', 'r']);
  });
});
