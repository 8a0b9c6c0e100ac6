// The conversation list a page at a time (static/playground/sidebar.js) under happy-dom, against
// a fake server that pages as playground/conversations/paging.py does (newest first, a `next`
// cursor, `limit`), so what each request asked for is checked, not only what was drawn.
import assert from "node:assert/strict";
import { test } from "node:test";

import { window } from "./dom-support.mjs";

const { PAGE_SIZE, Sidebar } = await import("../../static/playground/sidebar.js");

const MARKUP = `
  <aside data-sidebar>
    <button type="button" data-action="new-conversation">New conversation</button>
    <input type="search" data-sidebar-filter>
    <nav><ul data-sidebar-list></ul><p data-sidebar-empty hidden></p>
      <button type="button" data-action="sidebar-more" hidden>Show older conversations</button></nav>
    <p data-sidebar-error hidden></p>
  </aside>`;

/** `count` conversations, newest first, and a fetch that answers their pages. */
function fakeServer(count) {
  const all = Array.from({ length: count }, (_, index) => ({
    id: `c${count - index}`, title: `Chat ${count - index}`, shown_title: "", model: "simulator-1",
    url: `/c/c${count - index}/`, match: null,
  }));
  const asked = [];
  globalThis.fetch = async (url) => {
    const query = new URL(url, "http://127.0.0.1").searchParams;
    asked.push(Object.fromEntries(query));
    const matching = all.filter((item) => item.title.includes(query.get("q") ?? ""));
    const start = query.has("before") ? matching.findIndex((item) => item.id === query.get("before")) + 1 : 0;
    const limit = Number(query.get("limit"));
    const conversations = matching.slice(start, start + limit);
    const next = start + limit < matching.length ? conversations.at(-1).id : null;
    return new Response(JSON.stringify({ conversations, next }), {
      status: 200, headers: { "Content-Type": "application/json" },
    });
  };
  return { all, asked };
}

function mount() {
  window.document.body.innerHTML = MARKUP;
  const root = window.document.querySelector("[data-sidebar]");
  const sidebar = new Sidebar(root, { urls: { api_conversations: "/api/conversations/", home: "/" } });
  const shown = () => [...root.querySelectorAll("[data-sidebar-list] > li")].map((li) => li.dataset.conversationId);
  const more = root.querySelector("[data-action='sidebar-more']");
  return { root, sidebar, shown, more };
}

test("the list shows a page, and Show older appends the next until there is none", async () => {
  const { all, asked } = fakeServer(PAGE_SIZE * 2 + 5);
  const { sidebar, shown, more } = mount();
  await sidebar.refresh();
  assert.deepEqual(shown(), all.slice(0, PAGE_SIZE).map((item) => item.id));
  assert.equal(more.hidden, false);
  assert.deepEqual(asked.at(-1), { q: "", limit: String(PAGE_SIZE) });

  await sidebar.showOlder();
  assert.deepEqual(asked.at(-1), { q: "", limit: String(PAGE_SIZE), before: all[PAGE_SIZE - 1].id });
  assert.equal(shown().length, PAGE_SIZE * 2);
  more.focus();
  await sidebar.showOlder();
  assert.deepEqual(shown(), all.map((item) => item.id));
  assert.equal(more.hidden, true);
  // The button it was on is gone: the keyboard goes on from the first entry the page added.
  assert.equal(window.document.activeElement.getAttribute("href"), `/c/${all[PAGE_SIZE * 2].id}/`);
});

test("a refresh asks for as many as are shown, and a new search starts at a page", async () => {
  const { asked } = fakeServer(PAGE_SIZE * 3);
  const { root, sidebar, shown } = mount();
  await sidebar.refresh();
  await sidebar.showOlder();
  await sidebar.refresh(); // as after a rename or a delete
  assert.equal(asked.at(-1).limit, String(PAGE_SIZE * 2));
  assert.equal(shown().length, PAGE_SIZE * 2);

  const filter = root.querySelector("[data-sidebar-filter]");
  filter.value = "Chat 1";
  filter.dispatchEvent(new window.Event("input"));
  await sidebar.refresh();
  assert.deepEqual(asked.at(-1), { q: "Chat 1", limit: String(PAGE_SIZE) });
});

test("a short list has no Show older, and an empty one says so", async () => {
  fakeServer(3);
  const { root, sidebar, shown, more } = mount();
  await sidebar.refresh();
  assert.equal(shown().length, 3);
  assert.equal(more.hidden, true);
  fakeServer(0);
  await sidebar.refresh();
  assert.equal(root.querySelector("[data-sidebar-empty]").hidden, false);
});

test("an entry the next page repeats (it changed meanwhile) is drawn once", async () => {
  const { all } = fakeServer(PAGE_SIZE + 2);
  const { sidebar, shown } = mount();
  await sidebar.refresh();
  const real = globalThis.fetch;
  globalThis.fetch = async (url) => {
    const answer = await (await real(url)).json();
    answer.conversations.unshift(all[0]); // already shown above
    return new Response(JSON.stringify(answer), { headers: { "Content-Type": "application/json" } });
  };
  await sidebar.showOlder();
  assert.deepEqual(shown(), all.map((item) => item.id));
});

test("a failed page is said and the list stays", async () => {
  fakeServer(PAGE_SIZE + 1);
  const { root, sidebar, shown, more } = mount();
  await sidebar.refresh();
  globalThis.fetch = async () => { throw new TypeError("offline"); };
  await sidebar.showOlder();
  assert.equal(shown().length, PAGE_SIZE);
  assert.match(root.querySelector("[data-sidebar-error]").textContent, /Could not load older conversations: the server could not be reached/);
  assert.equal(more.disabled, false);
});
