"""profiles_from_environ: which profiles exist, which variables are refused, what stays secret."""

from __future__ import annotations

import json

import pytest

from playground.upstream.profile_keys import CustomUpstreamKeys
from playground.upstream.profiles import Profile, profiles_from_environ

KEY = "sk-test-SECRET-0123456789"
SIMULATOR_URL = "http://127.0.0.1:8000/simulator"
EVERYTHING = {
    "FRIENDLI_TOKEN": KEY,
    "FRIENDLI_TEAM": "team-7",
    "ANTHROPIC_API_KEY": KEY,
    "PLAYGROUND_UPSTREAM_VLLM_BASE_URL": "http://gpu-box:8000",
    "PLAYGROUND_UPSTREAM_VLLM_API_KEY": KEY,
    "PLAYGROUND_UPSTREAM_LLAMA_CPP_BASE_URL": "http://127.0.0.1:8080/",
    "PLAYGROUND_UPSTREAM_LLAMA_CPP_AUTH": "none",
}


def build(environ: dict[str, str], simulator_url: str = SIMULATOR_URL) -> dict[str, Profile]:
    return profiles_from_environ(environ, simulator_url=simulator_url)


def test_the_simulator_is_always_there_and_needs_no_key():
    profiles = build({})

    assert list(profiles) == ["simulator"]
    simulator = profiles["simulator"]
    assert (simulator.auth, simulator.api_key, simulator.auth_headers()) == ("none", "", {})
    assert simulator.messages_url == f"{SIMULATOR_URL}/v1/messages"


@pytest.mark.parametrize(
    ("environ", "expected"),
    [
        pytest.param({}, [], id="nothing"),
        pytest.param(
            {"FRIENDLI_TOKEN": KEY},
            ["friendli-dedicated", "friendli-serverless"],
            id="friendli",
        ),
        pytest.param({"FRIENDLI_TOKEN": "   "}, [], id="blank-friendli-token"),
        pytest.param({"FRIENDLI_TEAM": "team-7"}, [], id="team-without-token"),
        pytest.param({"ANTHROPIC_API_KEY": KEY}, ["anthropic"], id="anthropic"),
        pytest.param({"ANTHROPIC_BASE_URL": "https://proxy.test"}, [], id="url-without-key"),
        pytest.param(
            {
                "PLAYGROUND_UPSTREAM_MY_BOX_BASE_URL": "http://box",
                "PLAYGROUND_UPSTREAM_MY_BOX_AUTH": "none",
            },
            ["my-box"],
            id="custom",
        ),
    ],
)
def test_a_profile_exists_only_when_configured(environ, expected):
    assert list(build(environ)) == ["simulator", *expected]


def test_friendli_profiles_carry_the_token_and_the_team():
    profile = build({"FRIENDLI_TOKEN": KEY, "FRIENDLI_TEAM": "team-7"})["friendli-dedicated"]

    assert profile.messages_url == "https://api.friendli.ai/dedicated/v1/messages"
    assert profile.dialect == "friendli"
    assert profile.auth_headers() == {
        "authorization": f"Bearer {KEY}",
        "x-friendli-team": "team-7",
    }


def test_which_upstreams_list_their_models():
    profiles = build({"FRIENDLI_TOKEN": KEY, "ANTHROPIC_API_KEY": KEY})

    # FriendliAI Dedicated has no GET /v1/models: a model there is an endpoint id.
    assert not profiles["friendli-dedicated"].lists_models
    assert profiles["friendli-serverless"].side_url("models") == (
        "https://api.friendli.ai/serverless/v1/models"
    )
    listing = {name for name, profile in profiles.items() if profile.lists_models}
    assert listing == {"simulator", "friendli-serverless", "anthropic"}


def test_anthropic_uses_x_api_key_and_a_version():
    profile = build({"ANTHROPIC_API_KEY": KEY, "ANTHROPIC_VERSION": "2099-01-01"})["anthropic"]

    assert profile.auth_headers() == {"x-api-key": KEY, "anthropic-version": "2099-01-01"}


def test_a_custom_profile_reads_its_variables():
    profile = build(
        {
            "PLAYGROUND_UPSTREAM_MY_BOX_BASE_URL": " http://box:8000/ ",
            "PLAYGROUND_UPSTREAM_MY_BOX_AUTH": "X-API-KEY",
            "PLAYGROUND_UPSTREAM_MY_BOX_API_KEY": KEY,
            "PLAYGROUND_UPSTREAM_MY_BOX_MODELS": " a, b,, ",
            "PLAYGROUND_UPSTREAM_MY_BOX_LABEL": "My box",
        }
    )["my-box"]

    assert (profile.label, profile.kind, profile.models) == ("My box", "custom", ("a", "b"))
    assert profile.messages_url == "http://box:8000/v1/messages"
    assert profile.auth_headers() == {"x-api-key": KEY, "anthropic-version": "2023-06-01"}


@pytest.mark.parametrize(
    ("environ", "variable"),
    [
        pytest.param(
            {"FRIENDLI_TOKEN": KEY, "FRIENDLI_DEDICATED_BASE_URL": "ftp://x"},
            "FRIENDLI_DEDICATED_BASE_URL",
            id="not-http",
        ),
        pytest.param(
            {
                "ANTHROPIC_API_KEY": KEY,
                "ANTHROPIC_BASE_URL": "https://api.anthropic.com/v1/messages",
            },
            "ANTHROPIC_BASE_URL",
            id="ends-in-v1-messages",
        ),
        pytest.param(
            {"FRIENDLI_TOKEN": KEY, "FRIENDLI_SERVERLESS_BASE_URL": "https://x/serverless/v1/"},
            "FRIENDLI_SERVERLESS_BASE_URL",
            id="ends-in-v1",
        ),
        pytest.param(
            {
                "PLAYGROUND_UPSTREAM_BOX_BASE_URL": "box:8000",
                "PLAYGROUND_UPSTREAM_BOX_AUTH": "none",
            },
            "PLAYGROUND_UPSTREAM_BOX_BASE_URL",
            id="custom-no-scheme",
        ),
        pytest.param(
            {
                "PLAYGROUND_UPSTREAM_BOX_BASE_URL": "http://box",
                "PLAYGROUND_UPSTREAM_BOX_AUTH": "basic",
            },
            "PLAYGROUND_UPSTREAM_BOX_AUTH",
            id="bad-auth",
        ),
        pytest.param(
            {"PLAYGROUND_UPSTREAM_BOX_BASE_URL": "http://box"},
            "PLAYGROUND_UPSTREAM_BOX_API_KEY",
            id="missing-api-key",
        ),
        pytest.param(
            {
                "PLAYGROUND_UPSTREAM_SIMULATOR_BASE_URL": "http://box",
                "PLAYGROUND_UPSTREAM_SIMULATOR_AUTH": "none",
            },
            "PLAYGROUND_UPSTREAM_SIMULATOR_BASE_URL",
            id="name-taken",
        ),
    ],
)
def test_a_bad_variable_is_refused_by_name(environ, variable):
    with pytest.raises(ValueError, match=variable):
        build(environ)


# The keys as the model declares them (a key added there is one more here).
KNOWN_KEYS = f"one of {', '.join(CustomUpstreamKeys.model_fields)}"


@pytest.mark.parametrize(
    ("environ", "refusal"),
    [
        pytest.param(
            {
                "PLAYGROUND_UPSTREAM_VLLM_BASEURL": "http://gpu-box:8000",
                "PLAYGROUND_UPSTREAM_VLLM_AUTH": "none",
            },
            f"PLAYGROUND_UPSTREAM_VLLM_BASEURL: no such key; a profile's keys are"
            f" PLAYGROUND_UPSTREAM_<NAME>_ and {KNOWN_KEYS}",
            id="misspelt-base-url",
        ),
        pytest.param(
            {
                "PLAYGROUND_UPSTREAM_VLLM_BASE_URL": "http://gpu-box:8000",
                "PLAYGROUND_UPSTREAM_VLLM_AUTH": "none",
                "PLAYGROUND_UPSTREAM_VLLM_MODEL": "qwen3",
            },
            f"PLAYGROUND_UPSTREAM_VLLM_MODEL: no such key; a profile's keys are"
            f" PLAYGROUND_UPSTREAM_<NAME>_ and {KNOWN_KEYS}",
            id="a-key-not-known",
        ),
        pytest.param(
            {"PLAYGROUND_UPSTREAM_MY_BOX_MODELS": "a,b"},
            "PLAYGROUND_UPSTREAM_MY_BOX_MODELS: no profile MY_BOX"
            " (PLAYGROUND_UPSTREAM_MY_BOX_BASE_URL or _WIRE is not set)",
            id="a-key-without-its-profile",
        ),
        pytest.param(
            {
                "PLAYGROUND_UPSTREAM_box_BASE_URL": "http://box",
                "PLAYGROUND_UPSTREAM_box_AUTH": "none",
            },
            "PLAYGROUND_UPSTREAM_box_AUTH: a profile's NAME is upper-case letters, digits and _",
            id="lower-case-name",
        ),
        pytest.param(
            {"PLAYGROUND_UPSTREAM_BOX_BASE_URL": " ", "PLAYGROUND_UPSTREAM_BOX_AUTH": "none"},
            "PLAYGROUND_UPSTREAM_BOX_BASE_URL is required",
            id="empty-base-url",
        ),
        pytest.param(
            {
                "PLAYGROUND_UPSTREAM_BOX_BASE_URL": "http://box",
                "PLAYGROUND_UPSTREAM_BOX_AUTH": "basic",
            },
            "PLAYGROUND_UPSTREAM_BOX_AUTH='basic': input should be 'bearer', 'x-api-key' or 'none'",
            id="bad-auth",
        ),
        pytest.param(
            {"ANTHROPIC_API_KEY": KEY, "ANTHROPIC_BASE_URL": "https://api.anthropic.com/v1"},
            "ANTHROPIC_BASE_URL='https://api.anthropic.com/v1': give the base URL without"
            " /v1/messages (the playground appends it)",
            id="built-in-url",
        ),
    ],
)
def test_a_refusal_names_the_variable_and_what_it_takes(environ, refusal):
    with pytest.raises(ValueError) as refused:
        build(environ)
    assert str(refused.value) == refusal


def test_every_known_key_is_read_and_a_longer_name_keeps_its_own_keys():
    profiles = build(
        {
            "PLAYGROUND_UPSTREAM_BOX_BASE_URL": "http://box",
            "PLAYGROUND_UPSTREAM_BOX_API_KEY": KEY,
            "PLAYGROUND_UPSTREAM_BOX_API_BASE_URL": "http://box-api",
            "PLAYGROUND_UPSTREAM_BOX_API_AUTH": "none",
            "PLAYGROUND_UPSTREAM_BOX_API_MODELS": "m",
            "PLAYGROUND_UPSTREAM_BOX_API_RENDER": "on",
            "PLAYGROUND_UPSTREAM_BOX_API_DIALECT": "compatible",
            "PLAYGROUND_UPSTREAM_BOX_API_LABEL": "",
        }
    )

    box, box_api = profiles["box"], profiles["box-api"]
    assert (box.base_url, box.auth, box.api_key, box.models) == ("http://box", "bearer", KEY, ())
    assert (box_api.base_url, box_api.auth, box_api.api_key) == ("http://box-api", "none", "")
    assert (box_api.models, box_api.renders_prompt, box_api.dialect) == (("m",), True, "compatible")
    assert box_api.label == "Box Api"  # an empty value is its default


def test_a_bad_simulator_url_is_refused_by_name():
    with pytest.raises(ValueError, match="PLAYGROUND_SIMULATOR_URL"):
        build({}, simulator_url="127.0.0.1:8000")


@pytest.mark.parametrize("name", list(build(EVERYTHING)))
def test_the_public_view_has_no_key_and_no_url(name):
    profile = build(EVERYTHING)[name]

    public = json.dumps(profile.public())

    assert KEY not in public
    assert profile.base_url not in public
    assert "http" not in public
    assert set(profile.public()) == {
        "name",
        "label",
        "kind",
        "models",
        "dialect",
        "renders_prompt",
    }


def test_friendli_dedicated_renders_prompts_and_nothing_else_does_unasked():
    profiles = build(EVERYTHING)

    offered = {name for name, profile in profiles.items() if profile.renders_prompt}

    assert offered == {"friendli-dedicated"}
    assert profiles["friendli-dedicated"].side_url("render") == (
        "https://api.friendli.ai/dedicated/v1/chat/render"
    )


@pytest.mark.parametrize(
    ("environ", "offered"),
    [
        pytest.param({"FRIENDLI_DEDICATED_RENDER": "0"}, set(), id="dedicated-off"),
        pytest.param(
            {"FRIENDLI_SERVERLESS_RENDER": "yes"},
            {"friendli-dedicated", "friendli-serverless"},
            id="serverless-on",
        ),
        pytest.param(
            {
                "PLAYGROUND_UPSTREAM_BOX_BASE_URL": "http://box",
                "PLAYGROUND_UPSTREAM_BOX_AUTH": "none",
                "PLAYGROUND_UPSTREAM_BOX_RENDER": "1",
            },
            {"friendli-dedicated", "box"},
            id="custom-on",
        ),
        pytest.param(
            {"PLAYGROUND_SIMULATOR_RENDER": "on"},
            {"friendli-dedicated", "simulator-render"},
            id="simulator-variant",
        ),
    ],
)
def test_which_profiles_render_is_a_setting(environ, offered):
    profiles = build({"FRIENDLI_TOKEN": KEY, **environ})

    assert {name for name, profile in profiles.items() if profile.renders_prompt} == offered


def test_the_simulators_render_variant_is_the_simulator_with_render():
    profiles = build({"PLAYGROUND_SIMULATOR_RENDER": "1"}, simulator_url=SIMULATOR_URL)

    variant = profiles["simulator-render"]

    assert list(profiles) == ["simulator", "simulator-render"]
    assert (variant.kind, variant.base_url) == ("simulator", profiles["simulator"].base_url)
    assert variant.side_url("render") == f"{SIMULATOR_URL}/v1/chat/render"
    assert not profiles["simulator"].renders_prompt


def test_a_render_flag_that_is_no_flag_is_refused_by_name():
    with pytest.raises(ValueError, match="FRIENDLI_DEDICATED_RENDER='maybe'"):
        build({"FRIENDLI_TOKEN": KEY, "FRIENDLI_DEDICATED_RENDER": "maybe"})


def test_the_key_stays_out_of_a_profile_repr():
    assert KEY not in repr(build(EVERYTHING)["anthropic"])


def test_each_built_in_profile_has_its_dialect_and_a_custom_one_defaults_to_anthropic():
    profiles = build(EVERYTHING)
    assert {name: profile.dialect for name, profile in profiles.items()} == {
        "simulator": "anthropic",
        "friendli-dedicated": "friendli",
        "friendli-serverless": "friendli",
        "anthropic": "anthropic",
        "llama-cpp": "anthropic",
        "vllm": "anthropic",
    }


@pytest.mark.parametrize("written", ["compatible", " Compatible ", "friendli", "anthropic"])
def test_a_custom_profile_chooses_its_dialect(written):
    profile = build(
        {
            "PLAYGROUND_UPSTREAM_OLLAMA_BASE_URL": "http://127.0.0.1:11434",
            "PLAYGROUND_UPSTREAM_OLLAMA_AUTH": "none",
            "PLAYGROUND_UPSTREAM_OLLAMA_DIALECT": written,
        }
    )["ollama"]
    assert profile.dialect == written.strip().lower()
    assert profile.public()["dialect"] == profile.dialect


def test_an_unknown_dialect_is_refused_by_name_with_the_valid_ones():
    environ = {
        "PLAYGROUND_UPSTREAM_OLLAMA_BASE_URL": "http://127.0.0.1:11434",
        "PLAYGROUND_UPSTREAM_OLLAMA_AUTH": "none",
        "PLAYGROUND_UPSTREAM_OLLAMA_DIALECT": "openai",
    }
    with pytest.raises(ValueError) as refused:
        build(environ)
    assert str(refused.value) == (
        "PLAYGROUND_UPSTREAM_OLLAMA_DIALECT='openai': "
        "expected one of anthropic, friendli, compatible"
    )
