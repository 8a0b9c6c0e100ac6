// @ts-check
/**
 * The composer's attachments: files added by the picker, by paste or by drop, uploaded at once,
 * shown as chips until the turn is sent.
 *
 * Rule: the server decides what a file is and whether it fits (it sniffs the bytes and names
 * the limit in its refusal); the tray only uploads (`POST` multipart to the page's
 * attachments URL) and keeps the content block each upload answers with. A refused file is
 * not kept and its reason is shown. A chip shows a stored image from its server URL (no
 * blob: URL, so the CSP stays img-src 'self'). State for tests: the tray's
 * data-state=empty|uploading|ready and each chip's data-state.
 */

import { apiUpload } from "./api.js";
import { el, parts } from "./dom.js";
import { sizeText } from "./format.js";

const COMPOSER_PARTS = {
  list: "[data-attachments]",
  input: "[data-attach-input]",
  box: "[data-composer-input]",
  button: "[data-action='attach']",
};

/** What a tool result's card can carry (a screenshot tool's answer). */
export const ACCEPTED = "image/png,image/jpeg,image/gif,image/webp,application/pdf";

export class AttachTray {
  #list;
  #url;
  #fileUrl;
  #onChange;
  #onError;
  #items = [];

  /** `form` holds the tray's parts: the composer's (by default), or those a tool-result card
   * names in `selectors` ({list, input, box, button}; `box` is where a paste lands). */
  constructor(form, { url, fileUrl, onChange, onError, selectors = {} }) {
    this.#url = url;
    this.#fileUrl = fileUrl;
    this.#onChange = onChange;
    this.#onError = onError;
    const found = parts(form, { ...COMPOSER_PARTS, ...selectors });
    this.#list = found.list;
    // A button opens the (hidden) picker: a real control for touch and keyboard alike.
    found.button.addEventListener("click", () => found.input.click());
    found.input.addEventListener("change", () => {
      this.add([...found.input.files]);
      found.input.value = ""; // the same file can be picked again
    });
    // Paste: files on the clipboard (a screenshot, a copied image) are attached; text pastes
    // as usual.
    found.box.addEventListener("paste", (event) => {
      const files = [...(event.clipboardData?.files ?? [])];
      if (!files.length) return;
      event.preventDefault();
      this.add(files);
    });
    form.addEventListener("dragover", (event) => {
      if (![...(event.dataTransfer?.types ?? [])].includes("Files")) return;
      event.preventDefault();
      form.dataset.dropping = "true";
    });
    form.addEventListener("dragleave", () => delete form.dataset.dropping);
    form.addEventListener("drop", (event) => {
      delete form.dataset.dropping;
      const files = [...(event.dataTransfer?.files ?? [])];
      if (!files.length) return;
      event.preventDefault();
      this.add(files);
    });
    this.#list.hidden = true;
    this.#list.dataset.state = "empty";
  }

  /** The ready files' content blocks, in the order they were added. */
  get blocks() {
    return this.#items.filter((item) => item.block).map((item) => item.block);
  }

  get uploading() {
    return this.#items.some((item) => !item.block);
  }

  clear() {
    this.#items = [];
    this.#draw();
  }

  /** Put back files kept earlier (a draft's blocks, already uploaded). */
  restore(blocks) {
    this.#items = blocks.map((block) => ({
      name: String(block?.source?.name ?? block?.title ?? "file"),
      size: Number(block?.source?.size ?? 0),
      block,
    }));
    this.#draw();
  }

  /** Blocks made elsewhere (an MCP server's resource or prompt), kept as they are:
   * [{name, block}]. */
  addBlocks(items) {
    for (const { name, block } of items) this.#items.push({ name, size: blockSize(block), block });
    this.#draw();
  }

  add(files) {
    for (const file of files) {
      const item = { name: file.name || "pasted file", size: file.size, block: null };
      this.#items.push(item);
      this.#upload(item, file);
    }
    this.#draw();
  }

  async #upload(item, file) {
    const form = new FormData();
    form.append("file", file, item.name);
    try {
      const answer = await apiUpload(this.#url, form);
      item.block = answer.block;
    } catch (failure) {
      this.#items = this.#items.filter((other) => other !== item);
      // The refusal names its form field ("file: …"); the person knows the file by its name.
      const prefix = failure.field ? `${failure.field}: ` : "";
      const reason = prefix && failure.message.startsWith(prefix) ? failure.message.slice(prefix.length) : failure.message;
      this.#onError(`Not attached: ${reason.includes(item.name) ? reason : `${item.name}: ${reason}`}`);
    }
    this.#draw();
  }

  #remove(item) {
    this.#items = this.#items.filter((other) => other !== item);
    this.#draw();
  }

  #draw() {
    this.#list.replaceChildren(...this.#items.map((item) => this.#chip(item)));
    this.#list.hidden = this.#items.length === 0;
    this.#list.dataset.state = this.#items.length === 0 ? "empty" : this.uploading ? "uploading" : "ready";
    this.#onChange();
  }

  #chip(item) {
    const chip = el("li", { className: "attach-chip" });
    chip.dataset.state = item.block ? "ready" : "uploading";
    const source = item.block?.source;
    if (item.block?.type === "image" && source?.sha256) {
      const img = el("img", { className: "attach-thumb" });
      img.alt = "";
      img.src = this.#fileUrl.replace("{sha256}", source.sha256);
      chip.append(img);
    } else if (item.block) {
      chip.append(el("span", { className: "attach-kind", text: kindLabel(item.block) }));
    }
    const label = item.block ? `${item.name} · ${sizeText(source?.size ?? item.size)}` : `${item.name} · uploading…`;
    chip.append(el("span", { className: "attach-name", text: label }));
    const remove = el("button", { className: "btn btn-ghost btn-icon", text: "×" });
    remove.type = "button";
    remove.setAttribute("aria-label", `Remove ${item.name}`);
    remove.addEventListener("click", () => this.#remove(item));
    chip.append(remove);
    return chip;
  }
}

/** A chip's word for a block with no picture: a stored PDF, a text document, an image sent as
 * base64 (an MCP resource's), a text. */
function kindLabel(block) {
  if (block.type === "document") return block.source?.type === "text" ? "TEXT" : "PDF";
  return block.type === "image" ? "IMAGE" : "TEXT";
}

/** A block's size in bytes, near enough for its chip. */
function blockSize(block) {
  const source = block?.source ?? {};
  if (typeof source.size === "number") return source.size;
  if (source.type === "base64") return Math.floor((String(source.data ?? "").length * 3) / 4);
  return new TextEncoder().encode(String(source.data ?? block?.text ?? "")).length;
}
