import { deflateSync } from 'node:zlib';
import { zipSync, strToU8 } from 'fflate';
import { describe, expect, it } from 'vitest';
import { readCard } from '../../src/engine/cards/read-card.ts';
import { readPngChunks, withTextChunks } from '../../src/engine/cards/png.ts';
import { rawChunk } from '../support/png-chunks.ts';

const PIXEL = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');
const b64 = (json: unknown) => Buffer.from(JSON.stringify(json), 'utf8').toString('base64');
const bytesOf = (json: unknown) => new Uint8Array(Buffer.from(JSON.stringify(json), 'utf8'));
const read = (bytes: Uint8Array) => readCard(bytes);

const V1 = { name: 'Mira', description: 'A captain.', personality: 'wry', scenario: 'A storm.', first_mes: 'Hello, sailor.', mes_example: '<START>\n{{char}}: Aye.' };
const V2 = {
  spec: 'chara_card_v2',
  spec_version: '2.0',
  data: {
    ...V1,
    alternate_greetings: ['Ahoy.', 'You again?'],
    system_prompt: 'Write boldly. {{original}}',
    post_history_instructions: 'Stay in character.',
    creator: 'someone',
    creator_notes: '<b>Hi</b>',
    tags: ['sea', 'adventure'],
    character_version: 3,
    extensions: { depth_prompt: { depth: 4, prompt: 'x' } },
    character_book: {
      name: 'Sea lore',
      entries: [
        { id: 1, keys: ['kraken'], content: 'A beast of the deep.', enabled: true, insertion_order: 10 },
        { id: 1, keys: ['harbour', 'port'], secondary_keys: ['night'], selective: true, content: 'The harbour at night.', enabled: false },
        { keys: 'lighthouse', content: 'Always lit.', constant: true },
      ],
    },
  },
};
const V3 = {
  spec: 'chara_card_v3',
  spec_version: '3.0',
  data: { ...V2.data, nickname: 'Cap', assets: [{ type: 'icon', uri: 'embeded://assets/icon/images/main.png', name: 'main', ext: 'png' }], group_only_greetings: [], creation_date: 1700000000 },
};

describe('character card JSON', () => {
  it('reads V1, V2 and V3 alike, keeping the original whole', async () => {
    const v1 = await read(bytesOf(V1));
    expect(v1).toMatchObject({ format: 'json', card: { spec: 'chara_card_v1', data: { name: 'Mira', firstMessage: 'Hello, sailor.', exampleMessages: '<START>\n{{char}}: Aye.', book: null } } });
    const v2 = await read(bytesOf(V2));
    expect(v2.card.spec).toBe('chara_card_v2');
    expect(v2.card.data).toMatchObject({ alternateGreetings: ['Ahoy.', 'You again?'], characterVersion: '3', tags: ['sea', 'adventure'], systemPrompt: 'Write boldly. {{original}}' });
    expect(v2.card.original).toEqual(V2);
    const book = v2.card.data.book!;
    expect(book.entries.map((e) => [e.position, e.keys, e.enabled, e.constant])).toEqual([
      [0, ['kraken'], true, false],
      [1, ['harbour', 'port'], false, false],
      [2, ['lighthouse'], true, true],
    ]);
    expect(book.entries[1]!.secondaryKeys).toEqual(['night']);
    const v3 = await read(bytesOf(V3));
    expect(v3.card).toMatchObject({ spec: 'chara_card_v3', data: { nickname: 'Cap' } });
    expect((v3.card.original.data as Record<string, unknown>).creation_date).toBe(1700000000);
  });

  it('takes the shapes found in the wild: hybrid exports (data wins), a null book, greetings as one text, no name', async () => {
    const hybrid = await read(bytesOf({ ...V1, name: 'Old top-level name', spec: 'chara_card_v2', data: { ...V1, name: 'Mira', character_book: null } }));
    expect(hybrid.card.data).toMatchObject({ name: 'Mira', book: null });
    const odd = await read(bytesOf({ spec: 'chara_card_v2', data: { ...V1, name: '', alternate_greetings: 'Just one.' } }));
    expect(odd.card.data.alternateGreetings).toEqual(['Just one.']);
    expect(odd.warnings.join(' ')).toMatch(/no name: give the character one/);
    expect(odd.warnings.join(' ')).toMatch(/alternate greetings were one text/);
  });

  it('refuses what is not a card, each with its reason, before anything is written', async () => {
    await expect(read(new TextEncoder().encode('{ "name": "Mira", '))).rejects.toThrow(/JSON is malformed/);
    await expect(read(bytesOf({ spec: 'chara_card_v9', data: {} }))).rejects.toThrow(/not a character card format this app knows/);
    await expect(read(bytesOf({ spec: 'chara_card_v2' }))).rejects.toThrow(/needs its "data" object/);
    await expect(read(new TextEncoder().encode('hello'))).rejects.toThrow(/not a character card/);
    const webp = new Uint8Array(Buffer.from('UklGRiQAAABXRUJQVlA4IBgAAAAwAQCdASoBAAEAAwA0JaQAA3AA/vuUAAA=', 'base64'));
    await expect(read(webp)).rejects.toThrow(/WebP picture/);
    await expect(read(new Uint8Array(21 * 1024 * 1024))).rejects.toThrow(/21 MB: cards of up to 20 MB/);
  });
});

/** A PNG carrying these text chunks (tEXt unless given as a raw chunk). */
function png(texts: { keyword: string; text: string }[]): Uint8Array {
  return withTextChunks(new Uint8Array(PIXEL), texts);
}

describe('PNG cards', () => {
  it('reads the card from its text chunk; ccv3 wins over chara; keywords in any case; other chunks before it are fine', async () => {
    const both = await read(png([{ keyword: 'Comment', text: 'made with love' }, { keyword: 'chara', text: b64(V2) }, { keyword: 'ccv3', text: b64(V3) }]));
    expect(both).toMatchObject({ format: 'png', card: { spec: 'chara_card_v3' } });
    expect(both.picture).not.toBeNull();
    expect((await read(png([{ keyword: 'CHARA', text: b64(V2) }]))).card.spec).toBe('chara_card_v2');
  });

  it('decodes base64 leniently: wrapped lines, the URL-safe alphabet, no padding; and UTF-8 names', async () => {
    const named = { ...V1, name: 'Élodie 李娜' };
    const messy = b64(named).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '').replace(/(.{60})/g, '$1\n');
    expect((await read(png([{ keyword: 'chara', text: messy }]))).card.data.name).toBe('Élodie 李娜');
  });

  it('reads zTXt and iTXt cards, and reads a chunk with a wrong checksum with a warning', async () => {
    const latin = (text: string) => new Uint8Array(Buffer.from(text, 'latin1'));
    const ztxt = rawChunk('zTXt', new Uint8Array(Buffer.concat([latin('chara\u0000\u0000'), deflateSync(Buffer.from(b64(V2), 'latin1'))])));
    expect((await read(ztxt)).card.spec).toBe('chara_card_v2');
    const itxt = rawChunk('iTXt', new Uint8Array(Buffer.concat([latin('ccv3\u0000\u0001\u0000\u0000\u0000'), deflateSync(Buffer.from(JSON.stringify(V3), 'utf8'))])));
    expect((await read(itxt)).card.spec).toBe('chara_card_v3');
    const damaged = rawChunk('tEXt', latin(`chara\u0000${b64(V2)}`), { badCrc: true });
    const result = await read(damaged);
    expect(result.card.spec).toBe('chara_card_v2');
    expect(result.warnings.join(' ')).toMatch(/wrong checksum/);
  });

  it('refuses a picture whose compressed text unpacks past 20 MB (a decompression bomb) as such, after inflating no more than that', async () => {
    const latin = (text: string) => new Uint8Array(Buffer.from(text, 'latin1'));
    // 64 MB of the same letter compresses to about 64 KB: "only a picture" was the old answer, a minute later.
    const inflated = Buffer.alloc(64 * 1024 * 1024, 0x41);
    for (const chunk of [
      rawChunk('zTXt', new Uint8Array(Buffer.concat([latin('chara\u0000\u0000'), deflateSync(inflated)]))),
      rawChunk('iTXt', new Uint8Array(Buffer.concat([latin('ccv3\u0000\u0001\u0000\u0000\u0000'), deflateSync(inflated)]))),
    ]) {
      expect(chunk.length).toBeLessThan(1024 * 1024);
      await expect(read(chunk)).rejects.toThrow(/text unpacks to more than 20 MB, far more than any card holds/);
    }
  });

  it('refuses a card, a lorebook or a chat line nested thousands of levels deep with that reason, not a stack overflow later', async () => {
    const { readLorebookFile } = await import('../../src/engine/lore/lorebook-file.ts');
    const { parseSillyTavernChat } = await import('../../src/engine/cards/st-chat.ts');
    const deep = `${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}`;
    const card = `{"spec":"chara_card_v2","spec_version":"2.0","data":{"name":"Deep","description":"d","extensions":${deep}}}`;
    await expect(read(new TextEncoder().encode(card))).rejects.toThrow(/nests more than 64 levels deep, which no card does/);
    expect(() => readLorebookFile(`{"entries":{"1":{"uid":1,"key":["a"],"content":"x","extensions":${deep}}}}`)).toThrow(/nests more than 64 levels deep, which no lorebook does/);
    expect(() => parseSillyTavernChat(`{"user_name":"Ada","character_name":"Mira"}\n{"name":"Mira","mes":"hi","extra":${deep}}`)).toThrow(/Line 2 nests more than 64 levels deep/);
    // A card nested as deep as real ones go reads as before.
    const normal = `{"spec":"chara_card_v2","spec_version":"2.0","data":{"name":"Fine","description":"d","extensions":${'{"a":'.repeat(20)}1${'}'.repeat(20)}}}`;
    expect((await read(new TextEncoder().encode(normal))).card.data.name).toBe('Fine');
  });

  it('refuses a PNG with no card, a PNG cut short, malformed base64 and malformed JSON inside', async () => {
    await expect(read(new Uint8Array(PIXEL))).rejects.toThrow(/holds no character card/);
    const full = png([{ keyword: 'chara', text: b64(V2) }]);
    await expect(read(full.subarray(0, full.length - 40))).rejects.toThrow(/cut short/);
    await expect(read(png([{ keyword: 'chara', text: 'not base64 at all!!' }]))).rejects.toThrow(/not valid base64/);
    await expect(read(png([{ keyword: 'chara', text: Buffer.from('{"name": "Mira",', 'utf8').toString('base64') }]))).rejects.toThrow(/JSON is malformed/);
  });

  it('writes a card back: both chunks before IEND, replacing the old ones, the picture kept', async () => {
    const first = png([{ keyword: 'chara', text: b64(V1) }]);
    const written = withTextChunks(first, [
      { keyword: 'ccv3', text: b64(V3) },
      { keyword: 'chara', text: b64(V2) },
    ]);
    const chunks = readPngChunks(written);
    expect(chunks.map((c) => c.type)).toEqual(['IHDR', 'IDAT', 'tEXt', 'tEXt', 'IEND']);
    expect(chunks.every((c) => c.crcOk)).toBe(true);
    expect((await read(written)).card.spec).toBe('chara_card_v3');
  });
});

describe('CHARX cards', () => {
  const zip = (files: Record<string, Uint8Array>) => zipSync(files);
  const icon = new Uint8Array(PIXEL);

  it('reads card.json and its main icon, also after a JPEG in front', async () => {
    const charx = zip({ 'card.json': strToU8(JSON.stringify(V3)), 'assets/icon/images/main.png': icon, 'assets/other/x.bin': new Uint8Array(10) });
    const result = await read(charx);
    expect(result).toMatchObject({ format: 'charx', card: { spec: 'chara_card_v3' } });
    expect(Buffer.from(result.picture!).equals(Buffer.from(icon))).toBe(true);
    const jpegFirst = new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3, ...charx]);
    expect((await read(jpegFirst)).card.spec).toBe('chara_card_v3');
  });

  it('refuses a zip without card.json, an encrypted one, and a zip bomb, before inflating it', async () => {
    await expect(read(zip({ 'readme.txt': strToU8('hi') }))).rejects.toThrow(/has no card.json/);
    const bomb = zip({ 'card.json': new Uint8Array(30 * 1024 * 1024) });
    expect(bomb.length).toBeLessThan(1024 * 1024);
    await expect(read(bomb)).rejects.toThrow(/larger than 20 MB once unpacked/);
    // A zip that lies: its headers say card.json is 2 KB, its data unpacks to 64 MB.
    const liar = new Uint8Array(zip({ 'card.json': new Uint8Array(64 * 1024 * 1024) }));
    const view = new DataView(liar.buffer);
    for (let at = 0; at + 4 <= liar.length; at++) {
      const signature = view.getUint32(at, true);
      if (signature === 0x04034b50) view.setUint32(at + 22, 2_048, true);
      if (signature === 0x02014b50) view.setUint32(at + 24, 2_048, true);
    }
    await expect(read(liar)).rejects.toThrow(/card\.json in this CHARX file unpacks to more than 20 MB/);
    const encrypted = new Uint8Array(zip({ 'card.json': strToU8(JSON.stringify(V3)) }));
    // Set the "encrypted" flag in the central directory entry.
    const at = Buffer.from(encrypted).indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]));
    encrypted[at + 8]! |= 1;
    await expect(read(encrypted)).rejects.toThrow(/encrypted/);
  });
});

describe('a card\'s own background', () => {
  const background = new Uint8Array(Buffer.from([0xff, 0xd8, 0xff, 0xe0, ...Buffer.from('a JPEG background')]));
  const withBackground = (uri: string) => ({ ...V3, data: { ...V3.data, assets: [...V3.data.assets, { type: 'background', uri, name: 'main', ext: 'jpg' }] } });

  it('is read from a CHARX zip, a RisuAI PNG chunk and a data: URI', async () => {
    const charx = zipSync({ 'card.json': strToU8(JSON.stringify(withBackground('embeded://assets/background/images/main.jpg'))), 'assets/background/images/main.jpg': background });
    expect(Buffer.from((await read(charx)).background!).equals(Buffer.from(background))).toBe(true);

    const png = withTextChunks(new Uint8Array(PIXEL), [
      { keyword: 'ccv3', text: b64(withBackground('__asset:1')) },
      { keyword: 'chara-ext-asset_:1', text: Buffer.from(background).toString('base64') },
    ]);
    const fromPng = await read(png);
    expect(Buffer.from(fromPng.background!).equals(Buffer.from(background))).toBe(true);
    expect(Buffer.from(fromPng.picture!).equals(Buffer.from(png))).toBe(true);

    const json = await read(bytesOf(withBackground(`data:image/jpeg;base64,${Buffer.from(background).toString('base64')}`)));
    expect(Buffer.from(json.background!).equals(Buffer.from(background))).toBe(true);
  });

  it('is none for a web address, ccdefault:, a missing chunk or a V2 card, and the card still reads', async () => {
    for (const uri of ['https://example.com/bg.png', 'ccdefault:', '__asset:9']) {
      const result = await read(withTextChunks(new Uint8Array(PIXEL), [{ keyword: 'ccv3', text: b64(withBackground(uri)) }]));
      expect(result.card.data.name).toBe('Mira');
      expect(result.background).toBeNull();
    }
    expect((await read(bytesOf(V2))).background).toBeNull();
    const missing = zipSync({ 'card.json': strToU8(JSON.stringify(withBackground('embeded://assets/background/gone.png'))) });
    expect((await read(missing)).background).toBeNull();
  });

  it('goes back out in an exported card, as a PNG chunk or a data: URI, and reads back', async () => {
    const { PNG_BACKGROUND, withBackgroundAsset } = await import('../../src/engine/cards/assets.ts');
    const replaced = withBackgroundAsset(withBackground('embeded://old.png'), PNG_BACKGROUND.uri, 'jpg');
    expect((replaced.data as { assets: unknown[] }).assets).toEqual([V3.data.assets[0], { type: 'background', uri: '__asset:background', name: 'main', ext: 'jpg' }]);
    const png = withTextChunks(new Uint8Array(PIXEL), [
      { keyword: 'ccv3', text: b64(replaced) },
      { keyword: PNG_BACKGROUND.keyword, text: Buffer.from(background).toString('base64') },
    ]);
    expect(Buffer.from((await read(png)).background!).equals(Buffer.from(background))).toBe(true);
    // A card that listed no assets keeps its picture as its icon.
    const { assets: _none, ...bare } = V3.data;
    const json = withBackgroundAsset({ ...V3, data: bare }, `data:image/jpeg;base64,${Buffer.from(background).toString('base64')}`, 'jpg');
    expect((json.data as { assets: { type: string; uri: string }[] }).assets.map((a) => [a.type, a.uri.slice(0, 10)])).toEqual([['icon', 'ccdefault:'], ['background', 'data:image']]);
    expect(Buffer.from((await read(bytesOf(json))).background!).equals(Buffer.from(background))).toBe(true);
  });

  it('that is a bomb is refused with a warning, not the whole card', async () => {
    const bomb = zipSync({ 'card.json': strToU8(JSON.stringify(withBackground('embeded://bg.png'))), 'bg.png': new Uint8Array(64 * 1024 * 1024) });
    const view = new DataView(bomb.buffer);
    for (let at = 0; at + 4 <= bomb.length; at++) {
      const signature = view.getUint32(at, true);
      if (signature === 0x04034b50 && bomb[at + 30] === 0x62) view.setUint32(at + 22, 2_048, true);
      if (signature === 0x02014b50 && bomb[at + 46] === 0x62) view.setUint32(at + 24, 2_048, true);
    }
    const result = await read(bomb);
    expect(result.card.data.name).toBe('Mira');
    expect(result.background).toBeNull();
    expect(result.warnings.join(' ')).toMatch(/background picture could not be read: .*more than 20 MB/);
  });
});

describe('a card as a bot', () => {
  it('maps description and personality to the persona, the scenario to the kickoff, greetings to opening versions, example lines to voice samples', async () => {
    const { botFromCard, substituteNames } = await import('../../src/engine/cards/card-to-bot.ts');
    const { card } = await read(bytesOf({ ...V2, data: { ...V2.data, mes_example: '<START>\n{{user}}: Hi\n{{char}}: Aye, lad.\n<START>\n<BOT>: Hold fast.' } }));
    const bot = botFromCard(card.data);
    expect(bot).toMatchObject({
      name: 'Mira',
      persona: 'A captain.\n\nPersonality: wry',
      kickoff: 'A storm.',
      greetings: ['Hello, sailor.', 'Ahoy.', 'You again?'],
      voiceSamples: ['Aye, lad.', 'Hold fast.'],
      cut: [],
    });
    expect(substituteNames('{{char}} greets {{ user }}; <BOT> and <user>.', { char: 'Cap', user: 'Ada' })).toBe('Cap greets Ada; Cap and Ada.');
    const long = botFromCard({ ...card.data, description: 'x'.repeat(25_000) });
    expect(long.persona).toHaveLength(20_000);
    expect(long.cut).toEqual(['The persona was cut to 20,000 characters']);
  });
});
