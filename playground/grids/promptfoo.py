"""promptfoo configs, both ways: a grid with its scorers as a promptfoo config, and a promptfoo
config read as a grid.

Rule: pure (YAML text and plain values; no ORM). Out (:func:`to_promptfoo`): each cell asks
promptfoo what the grid's cell asks: the conversation's prompt is a promptfoo chat prompt (one
per distinct system prompt, ``{{variables}}`` as promptfoo's own), each column one provider
(``anthropic:messages:<model>``, its settings in ``config`` by promptfoo's names, labelled as
the column); rows are ``tests`` with their ``vars``; each scorer of every column an assertion
in ``defaultTest.assert`` (a judge as ``llm-rubric`` with its threshold, its grader and our
judge's prompt); what has no promptfoo form (a scorer of one column, a kind promptfoo lacks) is
listed in ``unmapped``, and said in the file's comment, never dropped silently. A grid's
repeats and concurrency are promptfoo's ``evaluateOptions.repeat`` and ``maxConcurrency`` (a
cell passes when every repeat does: each of promptfoo's N results for it passes); its tool
loop has no promptfoo form (its Anthropic provider goes on only with MCP servers of its own
config, never with saved mocks), so a loop's options are listed as not exported. In
(:func:`from_promptfoo`): the first prompt is the conversation's user turn (a chat prompt's
system message its system prompt), each provider a column (its model and the settings this
playground knows), each test a row, each assertion of a kind above a scorer (of every column:
a test's own assertions whose values differ by test become a row variable each),
``evaluateOptions.repeat`` and ``maxConcurrency`` the grid's repeats and concurrency, and every
kind, prompt, provider or option that does not fit is named in ``unmapped``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import yaml  # type: ignore[import-untyped]  # no stubs installed (types-PyYAML)

from playground.grids.options import REPEATS_MAX
from playground.grids.scorers.judge import (
    JUDGE_MAX_TOKENS,
    JUDGE_SCHEMA,
    JUDGE_SYSTEM,
    judge_prompt,
)
from playground.protocol.errors import RequestValidationError

__all__ = ["Imported", "from_promptfoo", "to_promptfoo"]

#: Our text kinds and promptfoo's names for them (case-insensitive ones prefixed with ``i``).
_TEXT = {
    "contains": ("contains", "icontains"),
    "not_contains": ("not-contains", "not-icontains"),
    "contains_all": ("contains-all", "icontains-all"),
    "contains_any": ("contains-any", "icontains-any"),
}
#: Settings a provider's ``config`` carries both ways.
_SETTINGS = ("temperature", "max_tokens", "top_p", "top_k", "stop_sequences")


def _assertion(scorer: Mapping[str, Any]) -> dict[str, Any] | None:
    """Our scorer as a promptfoo assertion, or None when promptfoo has no such kind."""
    kind = scorer["kind"]
    caseless = bool(scorer.get("ignore_case"))
    if kind in _TEXT:
        name = _TEXT[kind][1 if caseless else 0]
        return {"type": name, "value": scorer.get("value", scorer.get("values"))}
    if kind == "equals" and not caseless:
        return {"type": "equals", "value": scorer["value"]}
    if kind == "starts_with" and not caseless:
        return {"type": "starts-with", "value": scorer["value"]}
    if kind == "regex" and not caseless:
        return {"type": "regex", "value": scorer["pattern"]}
    if kind == "is_json":
        return {"type": "is-json"}
    if kind == "fits_schema" and scorer.get("json_schema") is not None:
        return {"type": "is-json", "value": scorer["json_schema"]}
    if kind == "contains_json":
        schema = scorer.get("json_schema")
        return {"type": "contains-json", **({"value": schema} if schema is not None else {})}
    if kind == "cost_max":
        return {"type": "cost", "threshold": scorer["max"]}
    if kind == "duration_max":
        return {"type": "latency", "threshold": scorer["max_ms"]}
    return None


def _judge(scorer: Mapping[str, Any], *, model: str, api_base_url: str | None) -> dict[str, Any]:
    """A judge as ``llm-rubric``, asked as the grid asks it: its own grader (the judge's model,
    temperature 0, the verdict's JSON Schema as structured output) and our judge's prompt as
    the ``rubricPrompt`` (promptfoo fills ``{{rubric}}`` and ``{{output}}``), so a model, and
    the simulator's deterministic judge, grade the same words. promptfoo passes a verdict at
    its ``threshold`` as we do."""
    config: dict[str, Any] = {
        "temperature": 0,
        "max_tokens": JUDGE_MAX_TOKENS,
        "output_format": {"type": "json_schema", "schema": JUDGE_SCHEMA},
    }
    if api_base_url:
        config["apiBaseUrl"] = api_base_url
    prompt = judge_prompt(rubric="{{rubric}}", answer="{{output}}", threshold=scorer["threshold"])
    chat = [{"role": "system", "content": JUDGE_SYSTEM}, {"role": "user", "content": prompt}]
    return {
        "type": "llm-rubric",
        "value": scorer["rubric"],
        "threshold": scorer["threshold"],
        "provider": {"id": f"anthropic:messages:{scorer.get('model') or model}", "config": config},
        "rubricPrompt": json.dumps(chat, ensure_ascii=False),
    }


def _plain(content: Any) -> Any:
    """Text blocks alone as one string (as promptfoo's chat prompts are written); other
    content as it is."""
    if isinstance(content, list) and all(
        isinstance(block, dict) and block.get("type") == "text" and set(block) <= {"type", "text"}
        for block in content
    ):
        return "".join(str(block["text"]) for block in content)
    return content


def _provider_config(settings: Mapping[str, Any]) -> dict[str, Any]:
    """A column's settings as the ``config`` of promptfoo's ``anthropic:messages`` provider.

    Extra fields go in its ``extra_body``, and so does an output schema (``output_config``):
    promptfoo's own ``output_format`` parses the answer into an object, which its text
    assertions then read as compact JSON, not as the answer's text the grid scores."""
    config = {key: settings[key] for key in _SETTINGS if settings.get(key) not in (None, [])}
    for key in ("tools", "tool_choice", "thinking", "service_tier"):
        if settings.get(key):
            config[key] = settings[key]
    if "temperature" not in config and "top_p" not in config and not config.get("thinking"):
        # promptfoo sends temperature 0 when its config names none; the grid's request leaves
        # it to the API, whose default is 1.
        config["temperature"] = 1
    extra = dict(settings.get("extra_fields") or {})
    if settings.get("output_config"):
        extra["output_config"] = settings["output_config"]
    if extra:
        config["extra_body"] = extra
    return config


def to_promptfoo(
    *,
    title: str,
    messages: Sequence[Mapping[str, Any]],
    columns: Sequence[Mapping[str, Any]],
    rows: Sequence[Mapping[str, str]],
    scorers: Sequence[Mapping[str, Any]],
    judge_model: str,
    api_base_url: str | None = None,
    options: Mapping[str, Any] | None = None,
    concurrency: int | None = None,
) -> tuple[str, list[str]]:
    """The promptfoo config (YAML) and what it could not say. ``columns``: each column
    resolved, ``{label, model, system, settings}`` (its settings by our names, the system
    prompt apart); ``api_base_url``: where promptfoo's Anthropic provider sends (the built-in
    simulator's, for a run against it); ``judge_model``: a judge's model when it names none
    (the conversation's, as the grid's judges use); ``options``: the grid's
    (``grids.options``, stored), ``concurrency`` its cells at once.

    A column whose system prompt differs runs its own prompt (promptfoo's provider
    ``prompts`` names it), so every cell asks what the grid's cell asks."""
    unmapped: list[str] = []
    turns = [{"role": m["role"], "content": _plain(m["content"])} for m in messages]
    prompts: list[dict[str, str]] = []
    by_system: dict[str, str] = {}
    providers = []
    for column in columns:
        system = column.get("system") or ""
        if system not in by_system:
            by_system[system] = label = f"prompt {len(by_system) + 1}"
            chat = ([{"role": "system", "content": system}] if system else []) + turns
            prompts.append({"raw": json.dumps(chat, ensure_ascii=False), "label": label})
        config = _provider_config(column["settings"])
        if api_base_url:
            config["apiBaseUrl"] = api_base_url
        providers.append(
            {
                "id": f"anthropic:messages:{column['model']}",
                "label": column["label"],
                "config": config,
                "prompts": [by_system[system]],
            }
        )
    if len(prompts) == 1:  # one prompt: every provider runs it, as promptfoo's own configs say
        for provider in providers:
            del provider["prompts"]
    asserts = []
    for scorer in scorers:
        name = f"{scorer.get('name') or scorer['kind']} ({scorer['kind']})"
        if scorer.get("column") is not None:
            unmapped.append(f"{name}: promptfoo's assertions are of every provider")
            continue
        if scorer["kind"] == "judge":
            asserts.append(_judge(scorer, model=judge_model, api_base_url=api_base_url))
            continue
        assertion = _assertion(scorer)
        if assertion is None:
            unmapped.append(f"{name}: promptfoo has no such assertion")
            continue
        asserts.append(assertion)
    out: dict[str, Any] = {
        "description": title or "Messages Playground grid",
        "prompts": prompts,
        "providers": providers,
        "defaultTest": {"assert": asserts},
        "tests": [{"vars": dict(values)} for values in rows],
    }
    evaluate = _evaluate_options(options or {}, concurrency, unmapped)
    if evaluate:
        out["evaluateOptions"] = evaluate
    header = "# A Messages Playground grid as a promptfoo config.\n"
    if unmapped:
        header += "".join(f"# not exported: {line}\n" for line in unmapped)
    text = header + yaml.safe_dump(out, sort_keys=False, allow_unicode=True)
    return text, unmapped


def _evaluate_options(
    options: Mapping[str, Any], concurrency: int | None, unmapped: list[str]
) -> dict[str, Any]:
    """The grid's options as promptfoo's ``evaluateOptions``; a tool loop's, which promptfoo
    cannot run, named in ``unmapped``."""
    evaluate: dict[str, Any] = {}
    if concurrency:
        evaluate["maxConcurrency"] = concurrency
    repeats = options.get("repeats")
    if isinstance(repeats, int) and repeats > 1:
        evaluate["repeat"] = repeats
    if options.get("tool_loop"):
        unmapped.append(
            "options.tool_loop: promptfoo has no saved mocks to answer a tool call (its"
            " Anthropic provider goes on only with MCP servers of its own config), so there each"
            " cell is its first answer, the loop's first turn"
        )
        unmapped.append(
            f"options.max_turns ({options.get('max_turns')}): promptfoo bounds MCP tool calls"
            " (max_tool_calls), not a loop's turns"
        )
        if options.get("mcp"):
            unmapped.append(
                "options.mcp: the conversation's MCP tools are this server's; promptfoo's"
                " config.mcp would name a server of its own"
            )
        if options.get("sampling_profile"):
            unmapped.append("options.sampling_profile: promptfoo answers no MCP sampling request")
    return evaluate


@dataclass(slots=True)
class Imported:
    """A promptfoo config as a grid: what ``grids.create_grid`` takes, and what did not fit."""

    title: str
    system: str | None
    prompt: str
    columns: list[dict[str, Any]]
    rows: list[dict[str, str]]
    scorers: list[dict[str, Any]]
    unmapped: list[str] = field(default_factory=list)
    #: The grid's options (``grids.options``) the config says: its repeats.
    options: dict[str, Any] = field(default_factory=dict)
    concurrency: int | None = None


_BACK = {
    "equals": ("equals", False),
    "starts-with": ("starts_with", False),
    **{pf: (ours, False) for ours, (pf, _) in _TEXT.items()},
    **{ipf: (ours, True) for ours, (_, ipf) in _TEXT.items()},
}


def _scorer(assertion: Mapping[str, Any], *, value: Any) -> dict[str, Any] | None:
    kind = assertion.get("type")
    if kind in _BACK:
        ours, caseless = _BACK[kind]
        key = "values" if ours in ("contains_all", "contains_any") else "value"
        return {"kind": ours, key: value, "ignore_case": caseless}
    if kind == "regex":
        return {"kind": "regex", "pattern": value}
    if kind == "is-json":
        return {"kind": "fits_schema", "json_schema": value} if value else {"kind": "is_json"}
    if kind == "contains-json":
        return {"kind": "contains_json", **({"json_schema": value} if value else {})}
    if kind == "cost":
        return {"kind": "cost_max", "max": assertion.get("threshold")}
    if kind == "latency":
        return {"kind": "duration_max", "max_ms": assertion.get("threshold")}
    if kind == "llm-rubric":
        threshold = assertion.get("threshold")
        return {
            "kind": "judge",
            "rubric": value,
            "threshold": 0.5 if threshold is None else threshold,
        }
    return None


def _prompt_text(prompt: Any, unmapped: list[str]) -> tuple[str | None, str] | None:
    """(system, user text) of a promptfoo prompt: a string (JSON chat messages or plain text),
    or ``{raw}``; a file or a function does not fit."""
    raw = prompt.get("raw") if isinstance(prompt, dict) else prompt
    if not isinstance(raw, str) or raw.startswith("file://"):
        unmapped.append(f"prompt {str(raw)[:60]!r}: only inline prompts are read")
        return None
    try:
        chat = json.loads(raw)
    except ValueError:
        return None, raw
    if not isinstance(chat, list):
        return None, raw
    system = next((m.get("content") for m in chat if m.get("role") == "system"), None)
    users = [m.get("content") for m in chat if m.get("role") == "user"]
    if len(users) != 1 or not isinstance(users[0], str):
        unmapped.append("a chat prompt of several turns: only one user turn is read")
        if not users or not isinstance(users[-1], str):
            return None
    return (system if isinstance(system, str) else None), str(users[-1])


def from_promptfoo(text: str) -> Imported:
    """Read a promptfoo config (YAML, the safe loader); a refusal names the place."""
    try:
        config = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise RequestValidationError(f"not YAML: {exc}", field="config") from exc
    if not isinstance(config, dict):
        raise RequestValidationError("expected a promptfoo config (a mapping)", field="config")
    unmapped: list[str] = []
    prompts = config.get("prompts") or []
    prompts = prompts if isinstance(prompts, list) else [prompts]
    read = [found for p in prompts if (found := _prompt_text(p, unmapped)) is not None]
    if not read:
        raise RequestValidationError("no inline prompt to run", field="prompts")
    system, prompt = read[0]
    for extra in read[1:]:
        unmapped.append(f"prompt {extra[1][:60]!r}: a grid runs one prompt; only the first is used")
    columns = []
    providers = config.get("providers") or []
    for index, provider in enumerate(providers if isinstance(providers, list) else [providers]):
        ident = provider if isinstance(provider, str) else str(provider.get("id") or "")
        settings = provider.get("config") or {} if isinstance(provider, dict) else {}
        label = provider.get("label") if isinstance(provider, dict) else None
        model = ident.split(":", 2)[2] if ident.startswith("anthropic:messages:") else None
        if model is None:
            unmapped.append(f"provider {ident!r}: only anthropic:messages providers are read")
        changes = {key: settings[key] for key in _SETTINGS if key in settings}
        if model:
            changes["model"] = model
        columns.append({"label": str(label or ident or f"Column {index + 1}"), "changes": changes})
    if not columns:
        columns = [{"label": "Column 1", "changes": {}}]
    tests = config.get("tests") or []
    rows = [
        {str(k): str(v) for k, v in (test.get("vars") or {}).items()}
        for test in tests
        if isinstance(test, dict)
    ]
    scorers: list[dict[str, Any]] = []
    default = config.get("defaultTest") or {}
    for assertion in default.get("assert") or []:
        scorer = _scorer(assertion, value=assertion.get("value"))
        if scorer is None:
            unmapped.append(f"assertion {assertion.get('type')!r}: no scorer of that kind")
        else:
            scorers.append(scorer)
    # A test's own assertions: one scorer per place, its value a row variable of each test.
    owned = [test.get("assert") or [] for test in tests if isinstance(test, dict)]
    width = max((len(found) for found in owned), default=0)
    for place in range(width):
        kinds = {found[place].get("type") for found in owned if len(found) > place}
        if len(kinds) != 1 or any(len(found) <= place for found in owned):
            unmapped.append(f"the tests' assertion {place + 1}: not the same kind in every test")
            continue
        first = owned[0][place]
        name = f"expected_{place + 1}"
        scorer = _scorer(first, value="{{" + name + "}}")
        if scorer is None or scorer.get("kind") in ("contains_all", "contains_any"):
            unmapped.append(f"assertion {first.get('type')!r}: no scorer of that kind")
            continue
        for row, pieces in zip(rows, owned, strict=True):
            value = pieces[place].get("value")
            row[name] = value if isinstance(value, str) else json.dumps(value)
        scorers.append(scorer)
    options, concurrency = _read_evaluate_options(config, tests, unmapped)
    return Imported(
        title=str(config.get("description") or "Imported from promptfoo")[:200],
        system=system,
        prompt=prompt,
        columns=columns[:4],
        rows=rows,
        scorers=scorers,
        unmapped=unmapped
        + [f"provider {c['label']!r}: a grid has at most 4 columns" for c in columns[4:]],
        options=options,
        concurrency=concurrency,
    )


def _read_evaluate_options(
    config: Mapping[str, Any], tests: Any, unmapped: list[str]
) -> tuple[dict[str, Any], int | None]:
    """``evaluateOptions.repeat`` (else ``commandLineOptions.repeat``) as the grid's repeats and
    ``maxConcurrency`` as its concurrency; what does not fit, named."""
    evaluate = config.get("evaluateOptions")
    evaluate = evaluate if isinstance(evaluate, dict) else {}
    line = config.get("commandLineOptions")
    line = line if isinstance(line, dict) else {}
    options: dict[str, Any] = {}
    repeat = evaluate.get("repeat", line.get("repeat"))
    if repeat is not None:
        if isinstance(repeat, int) and not isinstance(repeat, bool) and 1 <= repeat <= REPEATS_MAX:
            options["repeats"] = repeat
        else:
            unmapped.append(
                f"evaluateOptions.repeat {repeat!r}: a grid repeats a cell 1 to 10 times"
            )
    owned = {
        json.dumps(test["options"].get("repeat"))
        for test in tests
        if isinstance(tests, list)
        if isinstance(test, dict)
        and isinstance(test.get("options"), dict)
        and test["options"].get("repeat") is not None
    }
    if owned:
        unmapped.append("a test's own options.repeat: a grid repeats every row alike")
    concurrency = evaluate.get("maxConcurrency", line.get("maxConcurrency"))
    if concurrency is None:
        return options, None
    if isinstance(concurrency, int) and not isinstance(concurrency, bool) and concurrency >= 1:
        return options, concurrency
    unmapped.append(f"evaluateOptions.maxConcurrency {concurrency!r}: not a count")
    return options, None
