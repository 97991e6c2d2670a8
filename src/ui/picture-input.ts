/** The size a picture is stored at: square, this many pixels a side (or less, from a smaller picture). */
export const AVATAR_SIZE = 512;
/** Larger than any photo a phone takes: a file past this is refused before it is decoded. */
const MAX_INPUT_BYTES = 40 * 1024 * 1024;

export interface PreparedPicture {
  mime: string;
  width: number;
  height: number;
  data: string;
}

export class PictureError extends Error {
  override name = 'PictureError';
}

function toBase64(bytes: Uint8Array): string {
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

/**
 * A chosen file made into an avatar, in the browser: decoded, cropped to its centre square, resized
 * to 512 px and encoded as WebP (JPEG where the browser cannot write WebP). Anything that does not
 * decode as a picture is refused with a message.
 */
export async function preparePicture(file: Blob): Promise<PreparedPicture> {
  if (file.size > MAX_INPUT_BYTES) throw new PictureError(`That file is ${Math.round(file.size / 1024 / 1024)} MB; choose a picture under 40 MB.`);
  let bitmap: ImageBitmap;
  try {
    bitmap = await createImageBitmap(file);
  } catch {
    throw new PictureError('That file is not a picture this browser can read: choose a PNG, JPEG, WebP or GIF.');
  }
  const side = Math.min(bitmap.width, bitmap.height);
  const size = Math.min(AVATAR_SIZE, side);
  const canvas = new OffscreenCanvas(size, size);
  const context = canvas.getContext('2d');
  if (!context) throw new PictureError('This browser cannot resize pictures.');
  context.imageSmoothingQuality = 'high';
  context.drawImage(bitmap, (bitmap.width - side) / 2, (bitmap.height - side) / 2, side, side, 0, 0, size, size);
  bitmap.close();
  let blob = await canvas.convertToBlob({ type: 'image/webp', quality: 0.85 });
  if (blob.type !== 'image/webp') blob = await canvas.convertToBlob({ type: 'image/jpeg', quality: 0.88 });
  return { mime: blob.type, width: size, height: size, data: toBase64(new Uint8Array(await blob.arrayBuffer())) };
}
