"""Per-delta cost of the live markdown renderer, first tenth of a long answer vs the last.

Run: ``.venv/bin/python benchmarks/render.py [--deltas 10000] [--batch 16] [--size 200000]``

A deterministic ~200 KB markdown answer (headings, paragraphs, lists, tables, fenced code in
several languages, quotes) is cut into ``--deltas`` text deltas of uneven size and streamed
into a ``LiveTurn`` in headless Chromium (Debian's ``/usr/bin/chromium``), served by the test
harness under the page's strict CSP. One relay batch of ``--batch`` events is delivered per
animation frame, as the relay's ~30 ms batching would; each frame times
``applyEvents(batch)`` plus ``flush()`` (the turn's whole frame of DOM work) with
``performance.now()``. A PerformanceObserver records long tasks (> 50 ms, layout included),
and the DevTools Performance domain gives the layout, style and total main-thread time.

Before measuring, a throwaway turn streams the first tenth, so the JIT has warmed up and the
first tenth is not inflated by compilation.

Prints the per-delta cost of the first and last tenth, their ratio, the long tasks, and
PASS/FAIL for the targets (last tenth <= 1.5x the first; no task over 50 ms). Exits 0 either
way unless ``--strict``: the figures are for docs/benchmarks.md, not a gate.
"""

from __future__ import annotations

import argparse
import platform
import random
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from playwright.sync_api import sync_playwright  # noqa: E402

from tests.browser.conftest import CHROMIUM, CHROMIUM_ARGS  # noqa: E402
from tests.browser.harness.server import serve_harness  # noqa: E402

CODE = {
    "python": [
        "def fold(events, *, start=None):",
        '    """Fold events into a snapshot."""',
        "    snapshot = start",
        "    for event in events:",
        "        if event.type == 'ping':",
        "            continue",
        "        snapshot = accumulate(snapshot, event)  # pure",
        "    return snapshot",
    ],
    "javascript": [
        "export function debounce(fn, ms) {",
        "  let timer = 0;",
        "  return (...args) => {",
        "    clearTimeout(timer);",
        "    timer = setTimeout(() => fn(...args), ms);",
        "  };",
        "}",
    ],
    "rust": [
        "fn parse(input: &str) -> Result<Vec<u32>, ParseIntError> {",
        "    input.split(',').map(|s| s.trim().parse()).collect()",
        "}",
    ],
    "bash": [
        "set -euo pipefail",
        'for f in "$@"; do',
        "  wc -l \"$f\" | awk '{print $1}'",
        "done",
    ],
}
WORDS = [
    "stream",
    "delta",
    "token",
    "block",
    "frame",
    "render",
    "parse",
    "model",
    "upstream",
    "relay",
    "cache",
    "usage",
    "thinking",
    "tool",
    "schema",
    "input",
    "result",
    "latency",
    "budget",
    "anchor",
    "window",
    "socket",
    "buffer",
    "markdown",
    "table",
]


def build_markdown(size: int, rng: random.Random) -> str:
    """A long answer mixing everything the renderer meets, deterministic for a seed."""

    def sentence() -> str:
        words = [rng.choice(WORDS) for _ in range(rng.randint(8, 16))]
        words[0] = words[0].capitalize()
        if rng.random() < 0.3:
            words[rng.randrange(len(words))] = f"**{rng.choice(WORDS)}**"
        if rng.random() < 0.3:
            words[rng.randrange(len(words))] = f"`{rng.choice(WORDS)}()`"
        if rng.random() < 0.2:
            words[rng.randrange(len(words))] = (
                f"[{rng.choice(WORDS)}](https://example.com/{rng.randrange(999)})"
            )
        return " ".join(words) + "."

    parts: list[str] = []
    total = 0
    section = 0
    while total < size:
        section += 1
        chunk = [f"## Section {section}: {rng.choice(WORDS)} and {rng.choice(WORDS)}", ""]
        chunk += [" ".join(sentence() for _ in range(rng.randint(3, 6))), ""]
        ordered = rng.random() < 0.5
        for n in range(rng.randint(3, 7)):
            marker = f"{n + 1}." if ordered else "-"
            chunk.append(f"{marker} {sentence()}")
        chunk.append("")
        columns = rng.randint(3, 5)
        chunk.append("| " + " | ".join(f"{rng.choice(WORDS)}" for _ in range(columns)) + " |")
        chunk.append("|" + "---|" * columns)
        for _ in range(rng.randint(4, 10)):
            cells = [
                rng.choice([rng.choice(WORDS), str(rng.randrange(10_000))]) for _ in range(columns)
            ]
            chunk.append("| " + " | ".join(cells) + " |")
        chunk.append("")
        language = rng.choice(sorted(CODE))
        chunk += [f"```{language}", *CODE[language] * rng.randint(1, 3), "```", ""]
        chunk += [f"> {sentence()}", ""]
        text = "\n".join(chunk) + "\n"
        parts.append(text)
        total += len(text)
    return "".join(parts)


def split_deltas(text: str, count: int, rng: random.Random) -> list[str]:
    """Cut text into exactly ``count`` non-empty pieces of uneven size, at any character."""
    cuts = sorted(rng.sample(range(1, len(text)), count - 1))
    bounds = [0, *cuts, len(text)]
    return [text[a:b] for a, b in zip(bounds, bounds[1:], strict=False)]


def relay_events(deltas: list[str]) -> list[dict[str, Any]]:
    """The run as the relay sends it: {seq, t, type, data}."""
    datas: list[dict[str, Any]] = [
        {
            "type": "message_start",
            "message": {
                "id": "msg_bench",
                "type": "message",
                "role": "assistant",
                "content": [],
                "usage": {"input_tokens": 10, "output_tokens": 0},
            },
        },
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
    ]
    datas += [
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": d}}
        for d in deltas
    ]
    datas += [
        {"type": "content_block_stop", "index": 0},
        {
            "type": "message_delta",
            "delta": {"stop_reason": "end_turn"},
            "usage": {"output_tokens": 1},
        },
        {"type": "message_stop"},
    ]
    return [{"seq": i + 1, "t": i * 3, "type": d["type"], "data": d} for i, d in enumerate(datas)]


STREAM_IN_PAGE = """async ({events, batch, warmup}) => {
    const { LiveTurn } = window.__pgHarness.render;
    const host = document.getElementById("turns");
    const nextFrame = () => new Promise((resolve) => requestAnimationFrame(resolve));

    async function stream(list, measure) {
        const turn = new LiveTurn(host, {});
        const costs = [];
        for (let i = 0; i < list.length; i += batch) {
            await nextFrame();
            const slice = list.slice(i, i + batch);
            const t0 = performance.now();
            turn.applyEvents(slice);
            turn.flush();
            const t1 = performance.now();
            if (measure) {
                const deltas = slice.filter((e) => e.type === "content_block_delta").length;
                costs.push([deltas, t1 - t0]);
            }
        }
        turn.finish({ status: "complete", stop_reason: "end_turn" });
        return { turn, costs };
    }

    const warm = await stream(events.slice(0, warmup), false);
    warm.turn.element.remove();
    await nextFrame();

    const longTasks = [];
    const observer = new PerformanceObserver((list) => {
        for (const entry of list.getEntries()) longTasks.push(entry.duration);
    });
    observer.observe({ type: "longtask" });
    const started = performance.now();
    const { costs, turn } = await stream(events, true);
    const wall = performance.now() - started;
    await nextFrame();
    await nextFrame();
    observer.disconnect();
    return {
        costs,
        longTasks,
        wall,
        frozen: turn.element.querySelectorAll(".pg-md-frozen").length,
        nodes: turn.element.querySelectorAll("*").length,
        chars: turn.element.textContent.length,
    };
}"""


def tenth_cost(costs: list[list[float]], *, last: bool, total_deltas: int) -> float:
    """ms per delta over the batches holding the first (or last) tenth of the deltas."""
    tenth = total_deltas / 10
    seen = 0
    deltas = 0
    spent = 0.0
    for count, ms in reversed(costs) if last else costs:
        if count == 0:
            continue
        deltas += count
        spent += ms
        seen += count
        if seen >= tenth:
            break
    return spent / deltas


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deltas", type=int, default=10_000)
    parser.add_argument("--batch", type=int, default=16, help="events per animation frame")
    parser.add_argument("--size", type=int, default=200_000, help="markdown size in characters")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--strict", action="store_true", help="exit 1 when a target is missed")
    args = parser.parse_args()

    rng = random.Random(args.seed)
    markdown = build_markdown(args.size, rng)
    deltas = split_deltas(markdown, args.deltas, rng)
    events = relay_events(deltas)

    with serve_harness() as url, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.goto(url)
        page.wait_for_selector("html[data-ready='true']")
        cdp = page.context.new_cdp_session(page)
        cdp.send("Performance.enable")
        before = {m["name"]: m["value"] for m in cdp.send("Performance.getMetrics")["metrics"]}
        result = page.evaluate(
            STREAM_IN_PAGE, {"events": events, "batch": args.batch, "warmup": len(events) // 10}
        )
        after = {m["name"]: m["value"] for m in cdp.send("Performance.getMetrics")["metrics"]}
        version = browser.version
        browser.close()

    costs = result["costs"]
    first = tenth_cost(costs, last=False, total_deltas=args.deltas)
    last = tenth_cost(costs, last=True, total_deltas=args.deltas)
    measured = sum(ms for _, ms in costs)
    ratio = last / first
    long_tasks = result["longTasks"]
    worst_batch = max(ms for _, ms in costs)

    def seconds(name: str) -> float:
        return after.get(name, 0.0) - before.get(name, 0.0)

    print(f"chromium {version}, python {platform.python_version()}, {platform.machine()}")
    print(
        f"markdown: {len(markdown):,} chars in {args.deltas:,} deltas, "
        f"{len(costs)} frames of {args.batch} events; {result['frozen']} frozen segments, "
        f"{result['nodes']:,} DOM nodes"
    )
    print(f"applyEvents+flush total:   {measured:8.1f} ms  (worst frame {worst_batch:.1f} ms)")
    print(f"main thread busy (DevTools): {seconds('TaskDuration') * 1000:6.1f} ms")
    print(
        f"layout + style (DevTools): "
        f"{(seconds('LayoutDuration') + seconds('RecalcStyleDuration')) * 1000:8.1f} ms"
    )
    print(f"wall time of the stream:   {result['wall']:8.1f} ms")
    print(f"per delta, first tenth:    {first * 1000:8.1f} µs")
    print(f"per delta, last tenth:     {last * 1000:8.1f} µs  (ratio {ratio:.2f})")
    print(
        f"long tasks (> 50 ms):      {len(long_tasks)}"
        + (f" (max {max(long_tasks):.0f} ms)" if long_tasks else "")
    )
    ok_ratio = ratio <= 1.5
    ok_tasks = not long_tasks
    print(f"{'PASS' if ok_ratio else 'FAIL'}: last tenth <= 1.5x the first ({ratio:.2f}x)")
    print(f"{'PASS' if ok_tasks else 'FAIL'}: no task over 50 ms ({len(long_tasks)} found)")
    return 1 if args.strict and not (ok_ratio and ok_tasks) else 0


if __name__ == "__main__":
    sys.exit(main())
