/**
 * An uncompressed 24-bit BMP (about 10 MB at the default size), in two colours side by side: large
 * enough that the app must resize it, and any browser decodes it.
 */
export function bmpPicture(width = 2_000, height = 1_700, colours: { left: [number, number, number]; right: [number, number, number] } = { left: [30, 60, 200], right: [220, 60, 30] }): Buffer {
  const row = Math.ceil((width * 3) / 4) * 4;
  const pixels = row * height;
  const file = Buffer.alloc(54 + pixels);
  file.write('BM', 0, 'ascii');
  file.writeUInt32LE(54 + pixels, 2);
  file.writeUInt32LE(54, 10);
  file.writeUInt32LE(40, 14);
  file.writeInt32LE(width, 18);
  file.writeInt32LE(height, 22);
  file.writeUInt16LE(1, 26);
  file.writeUInt16LE(24, 28);
  file.writeUInt32LE(pixels, 34);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const at = 54 + y * row + x * 3;
      const [r, g, b] = x < width / 2 ? colours.left : colours.right;
      file[at] = b;
      file[at + 1] = g;
      file[at + 2] = r;
    }
  }
  return file;
}
