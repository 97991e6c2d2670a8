import { en } from './en.ts';
import { es } from './es.ts';
import { ja } from './ja.ts';
import { ko } from './ko.ts';
import { ru } from './ru.ts';
import { zhHans } from './zh-Hans.ts';

/** Every catalogue at once, for the test that checks each has every key English has (the app loads one). */
export const CATALOGUES = { en, ja, 'zh-Hans': zhHans, ko, es, ru } as const;
