import { crc32, deflateRawSync } from 'node:zlib';

// Zip archives built byte by byte in tests (no binary fixtures): honest ones, and ones that lie in
// the ways the workbook reader refuses (sources/common/zip-guard.ts).

export interface TestEntry {
  name: string;
  data: Buffer;
  /** Size the headers declare (default: the real one). */
  declared?: number;
}

/** A zip built byte by byte (deflate, no data descriptors), with knobs to make it lie. */
export function buildZip(
  entries: TestEntry[],
  opts: { declaredCount?: number; prepend?: Buffer; beforeEnd?: Buffer } = {},
): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = opts.prepend?.length ?? 0;
  for (const e of entries) {
    const name = Buffer.from(e.name);
    const data = deflateRawSync(e.data);
    const size = e.declared ?? e.data.length;
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(8, 8);
    local.writeUInt32LE(crc32(e.data), 14);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(size, 22);
    local.writeUInt16LE(name.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(8, 10);
    central.writeUInt32LE(crc32(e.data), 16);
    central.writeUInt32LE(data.length, 20);
    central.writeUInt32LE(size, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, data);
    centrals.push(central, name);
    offset += local.length + name.length + data.length;
  }
  const cd = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(opts.declaredCount ?? entries.length, 8);
  end.writeUInt16LE(opts.declaredCount ?? entries.length, 10);
  end.writeUInt32LE(cd.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([opts.prepend ?? Buffer.alloc(0), ...locals, cd, opts.beforeEnd ?? Buffer.alloc(0), end]);
}

const NS = 'xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"';
const REL = 'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"';

/** A minimal .xlsx whose one sheet, "Monthly Prices", holds `sheetBody` inside <worksheet>. */
export function workbookWith(sheetBody: string, extra: TestEntry[] = []): TestEntry[] {
  return [
    {
      name: 'xl/workbook.xml',
      data: Buffer.from(
        `<workbook ${NS} ${REL}><sheets><sheet name="Monthly Prices" sheetId="1" r:id="rId1"/></sheets></workbook>`,
      ),
    },
    {
      name: 'xl/_rels/workbook.xml.rels',
      data: Buffer.from(
        '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/></Relationships>',
      ),
    },
    { name: 'xl/worksheets/sheet1.xml', data: Buffer.from(`<worksheet ${NS}>${sheetBody}</worksheet>`) },
    ...extra,
  ];
}
