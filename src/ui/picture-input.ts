import { t } from './i18n/index.ts';
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

/** Decodes a chosen file, refusing what is too large or not a picture, with a message. */
async function decode(file: Blob): Promise<ImageBitmap> {
  if (file.size > MAX_INPUT_BYTES) throw new PictureError(t('pictureErrors.tooBig', Math.round(file.size / 1024 / 1024)));
  try {
    return await createImageBitmap(file);
  } catch {
    throw new PictureError(t('pictureErrors.unreadable'));
  }
}

/** A canvas as WebP (JPEG where the browser cannot write WebP), in base64. */
async function encode(canvas: OffscreenCanvas, quality: number): Promise<PreparedPicture> {
  let blob = await canvas.convertToBlob({ type: 'image/webp', quality });
  if (blob.type !== 'image/webp') blob = await canvas.convertToBlob({ type: 'image/jpeg', quality: quality + 0.03 });
  return { mime: blob.type, width: canvas.width, height: canvas.height, data: toBase64(new Uint8Array(await blob.arrayBuffer())) };
}

function canvasOf(width: number, height: number): [OffscreenCanvas, OffscreenCanvasRenderingContext2D] {
  const canvas = new OffscreenCanvas(width, height);
  const context = canvas.getContext('2d');
  if (!context) throw new PictureError(t('pictureErrors.noResize'));
  context.imageSmoothingQuality = 'high';
  return [canvas, context];
}

/**
 * A chosen file made into an avatar, in the browser: decoded, cropped to its centre square, resized
 * to 512 px and encoded as WebP (JPEG where the browser cannot write WebP). Anything that does not
 * decode as a picture is refused with a message.
 */
export async function preparePicture(file: Blob): Promise<PreparedPicture> {
  const bitmap = await decode(file);
  const side = Math.min(bitmap.width, bitmap.height);
  const size = Math.min(AVATAR_SIZE, side);
  const [canvas, context] = canvasOf(size, size);
  context.drawImage(bitmap, (bitmap.width - side) / 2, (bitmap.height - side) / 2, side, side, 0, 0, size, size);
  bitmap.close();
  return encode(canvas, 0.85);
}

/** The longest side a background is stored at: sharp on a large screen, behind a dimming veil. */
export const BACKGROUND_SIZE = 1920;
/** What a stored picture may weigh (the image_added event's limit), with room for base64's rounding. */
const MAX_STORED_BYTES = 1000 * 1024;

/**
 * A chosen file (or a card's background asset) made into a chat background: its whole picture,
 * scaled to fit 1920 px and encoded as WebP, smaller and softer until it fits a stored picture.
 */
export async function prepareBackground(file: Blob): Promise<PreparedPicture> {
  const bitmap = await decode(file);
  try {
    for (const [scale, quality] of [[1, 0.8], [1, 0.6], [0.7, 0.6], [0.5, 0.5]] as const) {
      const fit = Math.min(1, (BACKGROUND_SIZE * scale) / Math.max(bitmap.width, bitmap.height));
      const [canvas, context] = canvasOf(Math.max(1, Math.round(bitmap.width * fit)), Math.max(1, Math.round(bitmap.height * fit)));
      context.drawImage(bitmap, 0, 0, canvas.width, canvas.height);
      const picture = await encode(canvas, quality);
      if ((picture.data.length * 3) / 4 <= MAX_STORED_BYTES) return picture;
    }
  } finally {
    bitmap.close();
  }
  throw new PictureError(t('pictureErrors.stillTooBig'));
}
