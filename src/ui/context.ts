import { createContext, useContext } from 'solid-js';
import type { AppClient } from './engine-client.ts';

export const ClientContext = createContext<AppClient>();

export function useClient(): AppClient {
  const client = useContext(ClientContext);
  if (!client) throw new Error('useClient() outside <ClientContext.Provider>');
  return client;
}
