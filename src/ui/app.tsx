/** The app shell. The worker, the router and the real screens arrive with the worker and chat issues. */
export function App() {
  return (
    <main class="shell">
      <h1>Roleplay Engine</h1>
      <p>Local-first roleplay. Your stories stay in this browser.</p>
    </main>
  );
}
