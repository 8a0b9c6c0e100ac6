// @ts-check
/**
 * An MCP result's images, shown as pictures: each base64 image block is stored as an
 * attachment (POST multipart to the page's attachments URL, named after its server), then drawn
 * from the app's own URL with a caption naming the server it came from, and the block is
 * swapped for the stored reference (so the card's text is a short reference, not base64, and
 * the sent turn names the file by its server).
 *
 * Rule: never a data: or blob: URL (the CSP keeps img-src 'self'); the app decides what a file
 * is (it sniffs the bytes and refuses what is no image it takes), so a server's claim of a
 * type never reaches an <img>. A block that cannot be stored stays as the server sent it.
 */

import { apiUpload } from "./api.js";
import { el } from "./dom.js";

const EXTENSIONS = { "image/png": "png", "image/jpeg": "jpg", "image/gif": "gif", "image/webp": "webp" };

/** `content` with each base64 image stored: {content, pictures} (the swapped blocks, and a
 * captioned picture of each). */
export async function storeImages(content, { server, urls }) {
  if (!Array.isArray(content)) return { content, pictures: [] };
  const pictures = [];
  let count = 0;
  const stored = await Promise.all(
    content.map(async (block) => {
      const source = block?.source;
      if (block?.type !== "image" || source?.type !== "base64") return block;
      count += 1;
      const name = `${server}-image-${count}.${EXTENSIONS[source.media_type] ?? "bin"}`;
      try {
        const bytes = Uint8Array.from(atob(String(source.data ?? "")), (c) => c.charCodeAt(0));
        const form = new FormData();
        form.append("file", new Blob([bytes], { type: source.media_type }), name);
        const answer = await apiUpload(urls.attachments, form);
        pictures.push(picture(answer.block, { server, name, urls }));
        return answer.block;
      } catch {
        return block; // refused or unreadable: kept as sent, described by the card's text
      }
    }),
  );
  return { content: stored, pictures };
}

/** The pictures of content whose images are stored already (a by-hand run's, after storing). */
export function imagePreviews(content, { server, urls }) {
  const holder = el("div", { className: "mcp-images", dataset: { images: "storing" } });
  storeImages(content, { server, urls }).then(({ pictures }) => {
    holder.replaceChildren(...pictures);
    holder.dataset.images = String(pictures.length);
  });
  return [holder];
}

function picture(block, { server, name, urls }) {
  const sha = block?.source?.sha256;
  const img = el("img", { className: "mcp-image", attrs: { alt: `${name} from the MCP server ${server}`, loading: "lazy" } });
  if (sha) img.src = urls.attachment.replace("{sha256}", sha);
  return el("figure", { className: "mcp-figure", dataset: { server } }, img, el("figcaption", { className: "muted", text: `image from MCP server ${server}` }));
}
