# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""The blind sets built after the unseen split was consumed (issue 22): per set, commits of
repositories no one had used, their seed sites labelled before any sweep run (each set's
git history: the labels are committed before its findings), measured by
``bench/sweep_unseen.py --corpus bench/sweep_blind_X.json figures``.

Sets a, b and c (diffusers, lmdeploy; tpu-inference, vllm-gaudi; xorbitsai/inference,
OpenRLHF) were measured once with the code they were built against, then consumed: their
misses were read and causes fixed. Set d (lightllm, FastVideo) was sealed until the last
merge: nobody tuning the rules opened it; so were e to h, i to k, l to n and o, p, each until
the round it measured had landed. Each cell meets its target or is a known gap with
its cause; the test fails when a gap closes (remove it) or another cell drops."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.test_sweep_unseen import TARGETS, _load

BENCH = Path(__file__).resolve().parents[1] / "bench"
SETS = sorted(BENCH.glob("sweep_blind_*.json"))
# Repositories the sweep was tuned or measured on before the blind sets.
EARLIER = ("sweep_commits.json", "sweep_unseen.json", "drift_corpus.json", "drift_unseen.json")
# The release diffs of bench/sweep_corpus.json, where the sweep was first tuned.
TUNED_ON = {"vllm", "vllm-omni"}
# Repositories an earlier corpus holds for another tool than the sweep: never swept there.
OTHER_TOOLS_ONLY = {
    "axolotl": "drift_corpus.json holds its CI and pre-commit files for `check` and `init` "
    "(repo rules at one commit); no sweep round read its Python code before set q",
    "docling": "drift_corpus.json holds its CI, Dockerfile and Mergify files for `check` "
    "(repo rules at one commit); no sweep round read its Python code before set ze",
    "torchmetrics": "drift_corpus.json holds its Mergify, pre-commit and CI files for "
    "`check` (repo rules at one commit); no sweep round read its Python code before set zv",
    "optuna": "drift_unseen.json holds its CI workflow files for `check` (an unpinned "
    "install, repo rules at one commit); no sweep round read its Python code before set zzzt",
}

# Repositories whose name an earlier corpus holds for another project (a tree named
# after it): new all the same, as long as no earlier corpus holds the repository itself.
SAME_NAME_OTHER_PROJECT = {
    "guardrails-ai/guardrails": "set zc's tree `guardrails` is NVIDIA/NeMo-Guardrails",
}


def _repos_before(path: Path) -> set[str]:
    """The ``owner/name`` (lower case) of every repository an earlier corpus, or an earlier
    blind set, holds."""
    repos: set[str] = set()
    earlier = [BENCH / name for name in EARLIER] + [p for p in SETS if p.name < path.name]
    for corpus in earlier:
        doc = json.loads(corpus.read_text(encoding="utf-8"))
        trees = doc.get("trees", doc.get("repos", {}))
        values = list(trees.values()) if isinstance(trees, dict) else list(trees)
        for info in values:
            if isinstance(info, dict):
                repos.add(str(info.get("repo", "")).replace("+", "/").lower())
    return repos


def _used_before(path: Path) -> set[str]:
    """The names (lower case, without owner) of every repository an earlier corpus, or an
    earlier blind set, holds; tree names too. A repository an earlier corpus of another
    tool holds (:data:`OTHER_TOOLS_ONLY`) counts only from set a to p, the sets built
    before that was checked repository by repository."""
    names: set[str] = set()
    earlier = [BENCH / name for name in EARLIER] + [p for p in SETS if p.name < path.name]
    for corpus in earlier:
        doc = json.loads(corpus.read_text(encoding="utf-8"))
        trees = doc.get("trees", doc.get("repos", {}))
        items = list(trees.items()) if isinstance(trees, dict) else [(None, t) for t in trees]
        found: set[str] = set()
        for key, info in items:
            if key is not None:
                found.add(key.lower())
            repo = str(info.get("repo", "")) if isinstance(info, dict) else ""
            # sweep_commits.json names its clones: "sweep22-<owner>+<name>".
            found.add(repo.replace("+", "/").rsplit("/", 1)[-1].lower())
        if corpus.name.startswith("drift_") and path.name >= "sweep_blind_q.json":
            found -= set(OTHER_TOOLS_ONLY)
        names |= found
    return (names | TUNED_ON) - {""}


def test_the_blind_sets_are_at_least_100_commits_of_three_new_repositories() -> None:
    corpus = _load()
    commits: list[str] = []
    repos: set[str] = set()
    for path in SETS:
        doc = corpus.load(path)
        used = _used_before(path)
        for info in doc["trees"].values():
            repo = str(info["repo"]).lower()
            assert repo.count("/") == 1, (path.name, repo)
            if repo in SAME_NAME_OTHER_PROJECT:
                assert repo not in _repos_before(path), (path.name, repo)
            else:
                assert repo.split("/")[1] not in used, (path.name, repo)
            assert info["labelled_at"]
            repos.add(repo)
            commits.extend(info["unseen"])
        for site in doc["sites"]:
            assert site["seed"] in ("✗", "⚠", "-"), site
            assert site.get("post_run", "⚠") in ("✗", "⚠", "-"), site
            assert site["rule"] in corpus.RULES, site
            assert len(site["reason"]) > 10, site
        for reading in corpus.READINGS:
            corpus.figures(doc, reading)  # every ✗ and every sampled ⚠ finding has a label
    assert len(repos) >= 3 and len(commits) >= 100
    assert len(set(commits)) == len(commits)


_ENV_DOUBLE = (
    "a test fake `create_subprocess_exec(*args, **kwargs)`, monkeypatched over asyncio's, "
    "that records `kwargs[\"env\"]`, labelled '-' (a test double capturing a call); the "
    "seed's words make it ⚠ (a new `**kwargs` signature whose body reads a key), and the "
    "labellers of sets a and d label the same shape ⚠ (lmdeploy `fake_flatten_kv_cache`, "
    'FastVideo `fake_load_module_from_path` recording `kwargs.get("attention_backend")`, '
    "seven sites): dropping monkeypatched fakes loses those"
)
_WRITES = (
    "tpu-inference `num_valid_tokens`: a new key written into a raw dict in one file and "
    "read with `.get` in another; counting writes as the duplicate gave ~0.3 precision on "
    "the release diffs (+38 ✗ on vllm-omni, +5 on vLLM, mostly payload and config dicts)"
)
_C_EXCEPT = (
    "3/4: a `pass` that falls through to a fallback in `*post_install` (xinference venv "
    "setup; the rule keeps pass-to-fallback ⚠, and `post_install` is no fail-fast name); "
    "`is_vlm_model`'s `return False` around `AutoConfig.from_pretrained` is ✗ since round D "
    "(what the `try` loads)"
)
_C_ASYNC = (
    "1/2: openrlhf `load_images`' `requests.get`, which `async def "
    "SingleTurnAgentExecutor.execute` calls on its loop through `process_prompt_with_images` "
    "in another module, labelled '-' as a sync function (the labeller read only the `def` "
    "it sits in)"
)
_EF_SEALED = (
    "sealed until round C's code was final (round C moved none of its findings); consumed "
    "by round D"
)
_E_FIGURES = {
    ("broad-except", "x-recall"): (
        "0/1: nemo-rl `_parallelize_model` (reached only from `DTensorPolicyWorker.__init__` "
        "in another module) prints the error and falls back to the HF tp plan: a logged "
        "fallback to a second implementation whose errors propagate, the shape set f's "
        "labels and the release diffs' call ⚠ (routing_logic.py:298, "
        "pipeline_diffusers_adapter.py:258)"
    ),
    ("any-annotation", "x-recall"): (
        "8/11 (7/10 before round AT read a caller handing on its own None default, "
        "`_init_placement_groups(use_unified_pg: bool | None = None)` to a `use_unified_pg: "
        "bool` the callee tests, labelled ✗ after the run; "
        "8/10 before round Z left a parameter only stored as a dict display's value "
        "unreported: the test helper `create_test_config`'s `custom_parallel_plan: str = "
        "None`, put in the config dict it returns, is missed again; 7/9 before round S, whose "
        "after-run label on nemo-rl's `create_worker(..., "
        "**extra_options: Optional[Dict[str, Any]])` is found; "
        "round D: torchtune `save_config -> Path` whose `except` only logs is found; "
        "round I: a test helper function's implicit Optional, `create_test_config`'s "
        "`custom_parallel_plan: str = None`, now that a test file's own functions are "
        "checked): nemo-rl `shard_by_batch_size`'s tuple return, labelled twice (blind at the `def`, "
        "after the run at the return): reported at the `def` since the change edits the "
        "signature, so the return-line label is the one missed, and a "
        "`__call__ -> TimerRecord` returning a decorator (a call's type is not inferred)"
    ),
}
_F_FIGURES = {
    ("kwargs-lookup", "x-recall"): (
        "11/15 blind, 11/14 post-run (9/13 before the reads handed to a dropping base "
        "method were ✗): TGI `Fp8Linear.from_fp8`, whose signature the commit writes, gets "
        "its one ✗ at the `**kwargs` line (labelled there after round AB's placement fix; "
        "the blind ✗ at its `def` line is '-' post-run) where f labelled the two reads; guidellm "
        "`Profile.__init__`'s drop, labelled after a run at its old `def` line, is reported "
        "at the `**kwargs` the change adds (labelled there too)"
    ),
}
_GH_SEALED = "sealed: recorded once, with round D's final code; the honest figure"
_G_FIGURES = {
    ("any-annotation", "x-precision"): (
        "13/15 (15/15 before round AM read a plain class whose attributes the fake sets "
        "are all typed as a typed stub): lerobot's two `SimpleNamespace(features=...)` in "
        "the `all_metadata: list[LeRobotDatasetMetadata]` of "
        "`merge_video_feature_info_for_aggregate`, whose `features` is a typed property, "
        "labelled ⚠ as fakes of a class that loads from disk or the Hub (set zzk's and "
        "zzq's labellers read such classes as typed: ✗)"
    ),
    ("kwargs-lookup", "w-precision"): (
        "1/7: `**kwargs` test doubles standing in for `load_dataset`, "
        "`LeRobotDatasetMetadata` and a fake core's `infer_action`, labelled '-' by this "
        "set (sets a and d label the shape ⚠); the old reads an lerobot refactor moved, "
        "labelled '-', are no longer reported (a moved line is not new)"
    ),
}
_H_FIGURES = {
    ("async-blocking", "x-precision"): (
        "1/2 (0/1 before round AX read the `HfApi(...).model_info(...)` of the same "
        "`async def DownloadAdapter`, a synchronous huggingface_hub request labelled ✗ after "
        "the run): lorax `map_pbase_model_id_to_s3`'s `requests.get`, which the gRPC aio "
        "servicer's `async def DownloadAdapter` reaches per request through "
        "`download_adapter` in another module, labelled '-' as a plain helper (the labeller "
        "read only the `def` it sits in; set d's labeller reads a helper the loop reaches as ✗)"
    ),
}
_IJK_SEALED = (
    "sealed until round E's final code was recorded (i, j and k together: ✗ recall 39/76, "
    "✗ precision 39/47, as with the code before round E but for j's precision); consumed "
    "by round F"
)
# Round W settled the convention for mocks: a Mock/MagicMock fake is no fake of the rule
# (the seed's ✗ names SimpleNamespace; typeshed types NonCallableMock as Any, so a mock
# forces no Any into the code under test). Sites labelled ✗ blind for mocks keep their blind
# label and read '-' after the run (post_run, with that reason).
_MOCKS_SETTLED = (
    "labelled ✗ blind; since round W a mock is no fake of the rule, and the settled "
    "convention reads these sites '-' after the run"
)
_I_FIGURES: dict[tuple[str, str], str] = {}
_I_BLIND_RECALL = (
    "30/41 blind, 30/32 post-run (31/41 before round W; round E 19/41;  round F: nine xtuner `RolloutState` fakes in sequence-typed "
    "slots; round G: `WorkerConfig` behind a keyword-only `config: Any`, by a field only "
    "its module declares and the name, a `cast(Any, ...)` into a `RolloutConfig` field, "
    "and lm-eval's MagicMock `Instance`): nine MagicMock data fakes of vLLM's `Logprob` "
    "and `RequestOutput` and lm-eval's `Instance`, " + _MOCKS_SETTLED + "; `DeviceMesh` "
    "through a `self.` attribute a sibling subclass annotates (torch is not installed "
    "for the set), and a tokenizer fake of `PreTrainedTokenizerBase` (a tokenizer is "
    "read as a service object)"
)
_J_FIGURES = {
    ("broad-except", "x-recall"): (
        "1/2 (round E 0/2): a dataset parser's chain of parse attempts (`json.loads`, then "
        "`literal_eval`) ending in a fallback value: a chain of attempts stays ⚠"
    ),
}
_K_FIGURES = {
    ("any-annotation", "x-recall"): (
        "6/11 blind, 6/9 post-run (one more from round Y, litgpt's `function: callable`, a builtin "
        "function as a type, labelled ✗ after the run; 7/10 from round G, which found a `VLLMConfig` fake by two "
        "fields and the helper's name and mcp's MagicMock `CallToolResult` / `TextContent` "
        "data fakes, to round V; those two mocks are "
        + _MOCKS_SETTLED
        + "): litellm response fakes a "
        "test helper returns (`ModelResponse`, `Choices`, `Usage`: pydantic classes of an "
        "installed package, reached only through a patched `-> Any` helper whose body "
        "returns `litellm.acompletion(...)`, ⚠)"
    ),
}
_LMN_SEALED = (
    "sealed until round G's final code was recorded (l, m and n together: ✗ recall 20/55 "
    "with the code before round G and after it; ✗ precision 20/24 -> 20/22); consumed since"
)
_L_FIGURES = {
    ("broad-except", "x-recall"): (
        "1/4 (0/4 as sealed; since round J `OpenAIMixin.check_model_availability`, run "
        "when a model is registered, is found): swallows whose fail-fast path shows only "
        "in what the function does: llama-stack's `run_moderation` (a safety provider's "
        "request handler), speculators' "
        "`_maybe_generate_hs` and `_preprocess_batch` (data loading that logs and skips); "
        "none has a fail-fast name or is reached only from one"
    ),
    ("any-annotation", "x-recall"): (
        "4/5 (sealed 2/5; after: a fake a patched lambda or function returns stands in "
        "for the patched `-> PretrainedConfig`, transformers' alias of an open config): "
        "`_make_verifier_namespace`'s fake of a `PretrainedConfig`, linked only by its "
        "docstring, ⚠"
    ),
    ("async-blocking", "x-recall"): (
        "0/1: Qdrant's `async with self._qdrant_lock:` held across `await "
        "super().openai_attach_file_to_vector_store(...)`, ⚠: a provider module is no "
        "serving path the rule knows"
    ),
}
_M_FIGURES = {
    ("kwargs-lookup", "x-precision"): (
        '6/7 (7/7 before round AH): Liger\'s `kwargs.get("require_logits")` in the new '
        "`apply(cls, **kwargs)`, a key new to the repository that the same change spells in "
        "`v1/core/model_engine.py` (a sibling package, counted in a change of one piece since "
        "round AH), ✗ as a duplicated key; labelled ⚠ at the read, the function's "
        "dropped-keys ✗ being on its `def` line"
    ),
    ("kwargs-lookup", "x-recall"): (
        '6/7 (4/7 before round I: the new `"processor"` key read in `deepspeed.py` and '
        "`fsdp2.py` is ✗ now that a typed parameter's name no longer makes a key "
        "established): Liger's new `apply(cls, **kwargs)` that reads three keys and drops "
        "the rest while the model is built (`apply` is no fail-fast name)"
    ),
}
_M_BLIND_RECALL = (
    "7/9 blind, 7/7 post-run (sealed 4/8; one more from round Y, `attn_fn: Optional[callable]`, "
    "labelled ✗ after the run; after: `group: ProcessGroup = None`, the class "
    "imported by name from a package that is not installed, reads as `dist.ProcessGroup`): "
    "smolagents' MagicMock data fakes of litellm's `ModelResponse` / `Choices`, " + _MOCKS_SETTLED
)
_N_FIGURES = {
    ("any-annotation", "x-recall"): (
        "14/19 blind, 14/18 post-run (13/18 and 13/17 before round AX read ao's "
        "`add_compile_flags(..., extra_link_args: dict)` whose body calls "
        "`extra_link_args.append(...)`, labelled ✗ after the run; "
        "12/17 and 12/16 before round AL read "
        "`quantize_model_to_mxfp8(...) -> None` returning `model`, labelled ✗ after the "
        "run; a wrong return labelled blind at a multi-line signature's "
        "`def` line and reported on its `->` line since round AB; a `-> dict[...]` returning "
        "`list(...)` through a local, found by round O "
        "and labelled ✗ after the run; an `InferenceConfig` fake bound to `config`, found "
        "since round Y reads a module imported from its package by name): tensorboard "
        "`ScalarEvent` fakes (x2) and a "
        "`MultiModuleProcessGroupCollection` fake, ⚠; a test double's implicit Optional "
        "(`MockIterator.__init__(local_cp_size: int = None)`: a class's methods in a test "
        "file are doubles mirroring an API, not checked; its own functions are)"
    ),
}
_OP_SEALED = (
    "sealed: recorded with round G's final code and the typed-parameter reading, then "
    "with round H's final code, the same findings (o and p together: ✗ recall 4/11, ✗ "
    "precision 4/6, ⚠ precision 41/41)"
)
_O_FIGURES: dict[tuple[str, str], str] = {}
_P_FIGURES = {
    ("kwargs-lookup", "x-recall"): (
        "0/1: optimum's `convert_model(self, model, **kwargs)`, a signature rewritten to "
        "take `**kwargs`, reads only `device_map` and drops the rest on the weight-loading "
        "path through `load_quantized_model`: `convert_model` is no fail-fast name (⚠)"
    ),
}
_QRS_SEALED = (
    "sealed: recorded with the code before round I (8adfaaa) and with round I's final "
    "code (q, r and s together: ✗ recall 3/40 both times, ✗ precision 3/14 -> 3/16, ⚠ "
    "precision 91/92); consumed since"
)
_IMPLICIT_OPTIONALS = (
    "implicit Optionals judged against the labels: the sweep's ✗ where None never reaches "
    "a body that tests it (`vlm_img_dir`, `w: np.ndarray`; an `input_ids` only handed to "
    "`self.model(...)` until round N; the "
    "`stream: cuda.CUstream = None` of CUTLASS host functions nested in their factories "
    "is no longer reported since round L: another module's same-named call is not theirs); "
    "Liger's `model: "
    "PreTrainedModel = None` of each `apply_liger_kernel_to_*` is reached since round J "
    "(transformers' `__init__` re-exports the class)"
)
_Q_FIGURES = {
    ("any-annotation", "x-recall"): (
        "6/17 (4/17 before round O named transformers' `CausalLMOutputWithPast` for a fake "
        "model's output, twice; 0/17 before round J): axolotl's `SimpleNamespace` stand-ins "
        "for the trainer's `args` (`AxolotlTrainingArguments`), reached only through a "
        "hand-written fake trainer; two fakes of torch's device-properties stubs (torch not installed); a "
        "hand-written `_FakeConfig` class of `FalconH1Config`; a `-> ContextDecorator` "
        "returning a `saved_tensors_hooks` subclass (" + _IMPLICIT_OPTIONALS + ")"
    ),
    ("any-annotation", "x-precision"): (
        "6/8 (4/6 before round O's two right ✗ on fakes of `CausalLMOutputWithPast`; "
        "4/7 before round N, which no longer reports Liger's HF-style `input_ids` "
        "only handed to `self.model(...)`; 0/7 before round J, 4/11 before round L, which reads that the work tree "
        "annotates `cfg` as the plain `DictDefault` 172 times and that a nested CUTLASS host "
        "function's `stream` is not reached by another module's same-named call): two "
        "axolotl fakes (`axolotl_cfg=SimpleNamespace(...)` held by a trainer stub) matched "
        "by keywords to `AxolotlInputConfig` where the code consumes an open `DictDefault` "
        "(only its `_axolotl_cfg` field is annotated, once), and one implicit Optional ("
        + _IMPLICIT_OPTIONALS
        + ")"
    ),
    ("kwargs-lookup", "x-recall"): (
        "0/1: Liger's `apply_liger_kernel_to_nemotron(..., **kwargs)` never reads the dict "
        "(the unused fail-fast `**kwargs`, labelled ✗ here); `apply_*` is no fail-fast name"
    ),
}
_R_FIGURES = {
    ("any-annotation", "x-recall"): (
        "7/10 (1/10 before round J read the record classes of the installed packages the "
        "code under test imports: the four `RepoSibling` fakes, by their `rfilename`; 5/10 "
        "before round X read a fake in a list display against the field's element type: "
        "the repo's `Manifest` and its `ExpectedFile` entries): unsloth's fake of "
        "huggingface_hub's `ModelInfo` (`siblings` is a field of three classes), "
        "a `Request` fake passed to a route handler, and "
        "openai-agents' `SimpleNamespace(returncode=23)` from a stub of `subprocess.run` "
        "in a script under `.github/`: all ⚠"
    ),
    ("broad-except", "x-recall"): (
        "1/3: unsloth's `_loaded_context_tokens` probes (`except Exception: pass` / "
        "`return None`, commented as deliberate) on a chat request's tool calls, ⚠"
    ),
    ("async-blocking", "x-recall"): (
        "0/1: `async with provider_config_guard(...)`, a helper returning a per-provider "
        "`asyncio.Lock`, held across two `await asyncio.to_thread` calls in a route: the "
        "lock is not named as one at the `async with`"
    ),
}
_S_FIGURES = {
    ("any-annotation", "x-recall"): (
        "5/7 (4/7 before round AL read a `-> None` returning a local bound from a call "
        "that is not `-> None` itself, `new_determine_available_memory`'s `results`; 1/7 "
        "before round J, whose string reading reaches the exporter's and "
        "importer's `moe_router_dtype: torch.dtype | None` compared only to strings and "
        "the public function of the same module forwarding to the exporter): the two "
        "forwarders whose receiver is in another module (`import_mcore_gpt_from_hf` -> "
        "`GPTModelImporter`, the vLLM fake-quant export entry point)"
    ),
    ("any-annotation", "x-precision"): (
        "5/7 (4/6 before round AL's `-> None` reading added a right ✗; 1/3 before round J): "
        + _IMPLICIT_OPTIONALS
    ),
    ("kwargs-lookup", "x-precision"): (
        "1/2 (0/1 before round AK read a filter down to the fields of the dataclass built, "
        "`_create_new_data_cls(data_cls, **kwargs)`, as its init path): "
        '`SGLANGModel.__init__`\'s new `kwargs.get("draft_model_dir")` in a '
        "`**kwargs` signature that already dropped keys before the change"
    ),
}
_TU_SEALED = (
    "sealed: labelled blind and recorded with the code before round J (cda8e1f), then with "
    "round J's final code (t and u together: ✗ recall 28/67 -> 30/67, ✗ precision 28/32 -> "
    "30/34, ⚠ precision 58/62); consumed since"
)
_T_FIGURES = {
    ("kwargs-lookup", "x-recall"): (
        '0/2: `kwargs.pop("static_attention_granularity")` / `"static_kv_granularity"` '
        "in `BaseCompressor.__init__`, keys the change repeats in five files, read by `.pop` "
        "where the other files write them (⚠)"
    ),
}
_U_FIGURES = {
    ("any-annotation", "x-recall"): (
        "13/20 (15/20 before round Z left a parameter only stored as a dict display's value "
        "unreported: nemo-skills' two `endpoint_type: EndpointType = None` put in a request "
        "dict handed on to a body that tests None, now missed; 13/18 before round Y read "
        "`dict[str, any]` as a builtin function written as a "
        "type, twice, labelled ✗ after the run; 12/17 before round P read nemo-skills' `tools=Union[list[dict], None]`, a "
        "type written as a default, labelled ✗ after the run): verifiers' pydantic "
        "`TimeSplit` / `Error` fakes nested in a duck-typed "
        "stand-in for `Rollout` (the stored verifiers has renamed the field they fill); an "
        "implicit Optional `endpoint_type: EndpointType = None` forwarded through "
        "`**request` to a body that tests it"
    ),
    ("kwargs-lookup", "w-precision"): (
        "0/2 (6/8 before round AU, whose six right ⚠ were nemoskills' reads of a plain dict "
        "its `**kwargs` is handed to, no ⚠ since by the brief's reading 4): a test's fake "
        "`mamba_chunk_scan(**kwargs)` asserting on the keys it is given, labelled '-' (set r "
        "labels test reads ⚠: the labellers differ)"
    ),
}
_VWXY_SEALED = (
    "sealed: labelled blind while round K was tuned on sets a to u, recorded with the code "
    "before round K and with its final code: the same findings (v to y together: ✗ recall "
    "40/75, blind 37/75; ✗ precision 41/45; ⚠ precision 91/93); consumed since"
)
_V_FIGURES = {
    ("any-annotation", "x-recall"): (
        "3/9 blind, 3/7 post-run (4/9 from round N, which found `backend._cfg = Mock()` by "
        "the type the backend's class assigns to `_cfg`, to round V; that mock and another "
        "are " + _MOCKS_SETTLED + "): DeepSpeed's `SimpleNamespace(fwd_mem=..., "
        "bwd_mem=...)` `ProfilingResult` fakes "
        "stored in a dict the code indexes, and a `CompileConfig` fake passed positionally to "
        "an untyped `compile_config`; megatron-core's `TransformerConfig` as an untyped "
        "`model_config`"
    ),
    ("broad-except", "x-recall"): (
        "0/1: an unlogged `return None` in a NUMA probe that worker start-up calls and "
        "falls back from (⚠: a probe with a fallback)"
    ),
}
_W_FIGURES = {
    ("hot-copy", "w-precision"): (
        "1/2: a commented `data.clone()` per item written during a checkpoint save, "
        "labelled '-' (not a per-step path)"
    ),
}
_X_FIGURES = {
    ("any-annotation", "x-recall"): (
        "41/58 blind, 41/55 post-run (three Mock data fakes " + _MOCKS_SETTLED + "; 32/58 "
        "before round N, which finds three `recipe.dist_env` fakes by the "
        "`DistInfo` the recipe class assigns, its helper's docstring `Returns:` type; 38/58 "
        "before round AO, which reads the three `ConfigContainer` fakes passed to "
        "`recipe_runner.sync_model_pipeline_layout`, a module a fixture loads by path, at "
        "the one `def` of that name): "
        "transformers' model configs and model outputs (`PreTrainedConfig`, "
        "`BaseModelOutputWithPast`, `.logits` outputs) where no annotation names the class "
        "and transformers is too big to read whole; fakes of `ConfigContainer`'s "
        "fields (`validation=SimpleNamespace(...)` inside a config fake whose slot no "
        "annotation names); `recipe.distributed_config`, unpacked from an unannotated "
        "helper's tuple; "
        "torch's `MixedPrecisionPolicy` (torch not stored)"
    ),
}
_Y_FIGURES = {
    ("broad-except", "w-precision"): (
        "7/8 (8/9 before round L made the sampled `_check_chat_template` probe ✗): a "
        "test's handler that turns any error into `assert False`, labelled '-'"
    ),
}

_ZZA_SEALED = (
    "sealed: labelled blind while round L was tuned on sets a to y, recorded with the code "
    "before round L (5e1969b; zb with a10817b, the same sweep code)"
)
_Z_FIGURES = {
    ("broad-except", "x-recall"): (
        "0/1: a bare `except: pass` in the readiness probe `test_client()` polled while the "
        "vLLM server starts (⚠: `except:` catches everything)"
    ),
    ("kwargs-lookup", "w-precision"): (
        "0/1: `kwargs['dir']` read from `**kwargs: Unpack[DiskPackedTensors]`, a TypedDict "
        "a type checker does see, labelled '-'"
    ),
}
_ZA_FIGURES = {
    ("broad-except", "x-precision"): (
        "0/1 (0/2 before round M, which reads a broad catch after `except ImportError:` "
        "as the best-effort boundary of an optional feature: the logged NUMA pinning): "
        "`except Exception: payload = {}` in a route that then answers 400, labelled ⚠"
    ),
    ("broad-except", "w-precision"): (
        "11/12: a forked test child's `except Exception:` writing `FAILURE` for the parent "
        "to assert on, labelled '-'"
    ),
}

_ZB_FIGURES = {
    ("any-annotation", "x-recall"): (
        "9/20 blind, 9/16 post-run (7/18 and 7/14 before round Y read `tuple[list, callable]` as "
        "a builtin function written as a type, twice, labelled ✗ after the run; 6/18 before "
        "round O named transformers' "
        "`PreTrainedConfig` for `vision_config=SimpleNamespace(depth=24)`): four MagicMock "
        "data fakes of a transformers model config (`vision_config` given after creation) "
        "and of Olive's pydantic `Metric`, "
        + _MOCKS_SETTLED
        + "; `SimpleNamespace` fakes of vLLM's `RequestOutput`/"
        "`CompletionOutput` where nothing the test calls names the class: ⚠"
    ),
}

_ZC_SEALED = (
    "sealed: labelled blind after round L, recorded once with its final code (c623f25, "
    "and again with b4e7fb4: the same findings); sealed for the next round"
)
_ZC_FIGURES = {
    ("broad-except", "x-recall"): (
        "0/2: olmocr's per-page vLLM request helpers ending in an unlogged `except "
        "Exception: return None` (a retry, then a text fallback), labelled ✗ as request "
        "handling of a client pipeline; ⚠ to the sweep, which reads no serving path there"
    ),
}


_ZDE_SEALED = (
    "sealed: labelled blind during round M, recorded with a5641a6 (main before round M) "
    "and with round M's merged code: the same findings"
)
_ZD_FIGURES = {
    ("kwargs-lookup", "x-recall"): (
        "0/2: `**kwargs` added to bitsandbytes' `Params4bit.__new__` and `Int8Params.__new__` "
        "and never read, forwarded or stored, while accelerate rebuilds quantized parameters "
        "at weight loading (unknown attributes silently ignored): no finding"
    ),
    ("broad-except", "x-precision"): (
        "0/1 (none before round AK read a call a package's module runs at import as its "
        "set-up): bitsandbytes' `get_gaudi_sw_version()`, run at import to set "
        "`GAUDI_SW_VER`, setting `None` on any error; labelled ⚠ as a version probe whose "
        "failure is its answer"
    ),
}
_ZE_FIGURES = {
    ("kwargs-lookup", "x-recall"): (
        "4/6: optimum-habana's new generation-config keys (`decode_attn_batch_split`, "
        "`use_flex_attention`) read from `**kwargs` in two files: ⚠ at the config, whose "
        "dict is forwarded with `**`; ✗ at the other reads"
    ),
    ("any-annotation", "x-recall"): (
        "7/12 blind, 8/11 post-run (6/11 and 7/10 before round AH read a fixed-length "
        "tuple return and found the Whisper forward's, ✗ after the run): "
        "`SimpleNamespace(text=...)` chunks of a faked mlx-vlm "
        "`stream_generate` (package not stored): ⚠; two `MagicMock(returncode=0)` returned "
        "by a fake `subprocess.run` (`CompletedProcess`), " + _MOCKS_SETTLED
    ),
    ("any-annotation", "x-precision"): (
        "7/9 blind, 8/9 post-run (6/8 and 7/8 before round AH's fixed-length tuple "
        "reading added the Whisper forward's 3-tuple annotation over a 2-tuple return, "
        "right after the run; 6/11 before round N, which no longer reports three "
        "HF-style forward inputs only handed to `self.model(...)`): a `hidden_states: "
        "Tensor = None` the body looks up in `**kwargs` and rejects with ValueError, "
        "labelled '-'; a nested function's `max_length` labelled '-' as 'both callers pass a "
        "value' is ✗ post-run (its second caller leaves the default and the body tests it)"
    ),
}

_ZFG_SEALED = (
    "sealed: labelled blind during round N, recorded with 2926bad (main before round N) "
    "and with round N's merged code"
)
_OLD_DROPPING_INIT = (
    "a key read added to an old `__init__(**kwargs)` that drops unknown keys, reported ✗ "
    "at the read (set f's labels); labelled ⚠: the dropping predates the commit"
)
_ZF_FIGURES = {
    ("broad-except", "x-recall"): (
        "8/11 (0/11 before round O's import-time reading: eight bare `except:` around "
        "ktransformers' `torch_npu` set-up or the project's own imports): a bare `except: "
        "pass` around NPU settings at CLI start-up and a retry after any error on the "
        "generation path in files that do not parse at those commits, an unlogged `except "
        "Exception: pass` while writing a flag into an exported model (⚠)"
    ),
    ("broad-except", "w-precision"): (
        "10/11 (8/11 before round W read a test script's `sys.exit(1)` after the traceback "
        "as a re-raise, twice): one sampled catch labelled '-', and the eight right ⚠ that "
        "became ✗ left the sample"
    ),
    ("any-annotation", "x-precision"): (
        "5/6 (3/4 before round Z read `torch.tensor` written as a type: the two "
        "`bsz_tensors: torch.tensor = None` labelled ✗ are found, and the cell's ✗ recall "
        "is 5/5; 0/2 with 2926bad: round N no longer reports an HF-style `position_embeddings` "
        "only handed to `self.<attr>(...)`): an implicit Optional a maintainer keeps, a "
        "`prefill_l: list[int] = None` the body sums and its one caller passes"
    ),
}
_ZG_FIGURES = {
    ("kwargs-lookup", "x-precision"): (
        "2/3 (1/2 before round AK read an `if hasattr(config, k)` loop as keeping only the "
        "keys it tests: Export-Deploy's setup, ✗ labelled after the run): "
        + _OLD_DROPPING_INIT
        + " (ROLL's `mode`)"
    ),
    ("broad-except", "x-recall"): (
        "1/2: an unlogged `except Exception: pass` around `get_cached_module_file` before "
        "`from_pretrained` (model loading): ⚠"
    ),
    ("any-annotation", "x-precision"): (
        "6/8 (7/9 before round W, when a MagicMock data fake of megatron-core's "
        "`TransformerConfig` labelled ✗ was ✗): `megatron_checkpoint_filepath: str = None` twice, only passed on or picked "
        "by `model_format`, labelled '-'"
    ),
}

_ZHI_SEALED = (
    "sealed: labelled blind during round O, recorded with 15704c9 (main before round O) "
    "and with round O's merged code: no finding moved"
)
_ZH_FIGURES = {
    ("broad-except", "x-recall"): (
        "0/2: open-r1's router catch `except Exception: pass` around `await sandbox.kill()` "
        "in a request handler, twice: ⚠ (no serving path read there)"
    ),
    ("any-annotation", "x-recall"): (
        "3/11 blind, 3/9 post-run as sealed; 7/11, 7/9 since round O's late reading of a "
        "local bound to a list (`-> float` rewards returning the list the body builds, four "
        "commits), tuned on these sites after the seal; 8/11, 8/9 since round AU reads "
        "`code_reward -> list[float]` returning the list it appends `None` to: "
        "`cf_code_reward -> list[float]` returning gathered results that hold None: no "
        "finding; blind, two def-line sites of a multi-line signature labelled at its `->` "
        "line (post_run '-')"
    ),
}
_ZI_FIGURES = {
    ("kwargs-lookup", "x-recall"): (
        "1/2 (0/2 before round AB put a dropped-keys ✗ on the `**kwargs` line): forge's "
        "`DatasetActor.__init__(..., **kwargs)` never using the dict (no finding)"
    ),
    ("broad-except", "w-precision"): (
        "4/6 (4/7 before a test's `pytest.fail` in a handler read as a raise, after round "
        "Q): two test catches that return an `AssertionError`, labelled '-'"
    ),
    ("any-annotation", "x-recall"): (
        "8/12 as sealed, 9/12 since round O's late display reading (9/13 blind since round AB "
        "reports a wrong return on its `->` line, not the `def` line labelled blind; `-> [str, str]`, tuned "
        "on this site after the seal): `gpu_ids: int` given a list, `actor_cls: ForgeActor` "
        "given a class, `position_embeddings: torch.Tensor` given a tuple: no finding (no "
        "call-site types are read)"
    ),
    ("any-annotation", "x-precision"): (
        "9/13: a `store: MultiProcessStore = None` only stored, and three DuoAttention "
        "`field(init=False, default=None)` set in a post-init hook, labelled '-'"
    ),
    ("hot-copy", "x-recall"): (
        "0/1: kvpress's `hidden_states.detach().clone()` appended per decoding step from a "
        "forward hook (the step loop is the model's): ⚠"
    ),
}

_ZJK_SEALED = (
    "sealed: labelled blind during round P, recorded with ae5ef16 (main before round P): "
    "zj and zk together ✗ recall 6/12, ✗ precision 6/39 (hot-copy 0/28), ⚠ precision "
    "51/53; round P was then tuned on their wrong hot-copy ✗ and torchchat's type default"
)
_ZJ_FIGURES = {
    ("kwargs-lookup", "x-recall"): (
        "0/1: composer's `FSDPConfig.__init__(self, **kwargs)` replacing the dataclass's "
        "own `__init__` and setting every key as an attribute (a misspelt option is kept "
        "as a stray attribute): ⚠ at its reads, no dropped-keys ✗ (the keys are stored)"
    ),
    ("broad-except", "x-recall"): (
        "0/1: `except Exception: pass` around an `IGNORE_KEYS` probe in a NeoX -> HF "
        "conversion script, whose comment says 'for logging purposes': ⚠"
    ),
    ("any-annotation", "x-precision"): (
        "10/15 (4/9 before round AZ read pytest's `tmp_path` annotated `str`: composer's six "
        "test parameters, ✗ after the run): five implicit-Optional `NeoXArgs` fields, two "
        "always computed before a read, three read nowhere at their commit, labelled '-'"
    ),
}
_ZK_FIGURES = {
    ("broad-except", "x-recall"): (
        "2/3 (1/3 before round AO reads a bare `except:` on a fail-fast path carrying on "
        "with a fallback: the default `max_seq_length` in a server's `__init__`): "
        "`except Exception: continue` over torchchat's checkpoint loaders (weight loading, "
        "then an assert without the cause): ⚠ (no loading path read there)"
    ),
    ("any-annotation", "x-recall"): (
        "3/4 (1/3 as sealed; round P reads a type written as a default, round Y `target: "
        "callable`, labelled ✗ after the run; "
        "`batch=Optional[Dict[str, Any]]`): `initialize_generator(args) -> type` returning "
        "an instance: no finding (what a class call returns is not read)"
    ),
}

_ZLM_SEALED = (
    "sealed: labelled blind during round Q, recorded with 18d107b (main before round Q): "
    "zl and zm together ✗ recall 2/20, ✗ precision 2/2, ⚠ precision 36/39; round Q was "
    "then tuned on their fakes (a keyword-passed `torch.Tensor` slot, a package under "
    "`mooncake-wheel/`) and Lightning's dropped `(*args, **kwargs)`"
)
_ZL_FIGURES = {
    ("any-annotation", "x-recall"): (
        "10/12 (0/12 as sealed): two `SimpleNamespace(name=...)` returned by a "
        "monkeypatched `importlib.metadata.files` stand in for the stdlib's `PackagePath`: "
        "⚠ (what a patched stdlib function returns is not read)"
    ),
}
_ZM_FIGURES = {
    ("kwargs-lookup", "x-recall"): (
        "0/1: xformers' `LowerTriangularMask.__new__(cls, *, _subtensor=None, "
        "device='cpu', **kwargs)` never using the dict: no finding (`__new__` is no "
        "fail-fast name, and its keys are usually `__init__`'s)"
    ),
    ("broad-except", "x-recall"): (
        "0/1: `except Exception: return torch.ones(...)` around `get_active_ranks` in a "
        "helper whose mask feeds `connect()`: ⚠ (the helper is no fail-fast name)"
    ),
    ("any-annotation", "x-recall"): (
        "4/5 (2/5 as sealed): `_OptimalPolicy.__call__ -> bool` returning torch's "
        "`CheckpointPolicy` enum members: no finding (an enum member is not read as a "
        "literal)"
    ),
}

_ZNO_SEALED = (
    "sealed: labelled blind after round Q, recorded with 49bbf9b: zn and zo together ✗ "
    "recall 1/10, ✗ precision 1/3, ⚠ precision 33/48; then, tuned on them, a top-level "
    "`qa/` is test code and a test's catch that calls `self.fail`/`pytest.fail` raises "
    "(⚠ 35/39)"
)
_ZN_FIGURES = {
    ("kwargs-lookup", "x-recall"): (
        '0/3: the new key `"target_tensor"` written into `kwargs["required_inputs"]` in '
        "one file and read back as a literal in another (⚠: the sweep counts reads from a "
        "`**kwargs`, not a key written into a dict it holds), and `create_model_config("
        "model_name, **kwargs)` keeping only the keys that are fields of the config class "
        "(a filter: no finding)"
    ),
    ("broad-except", "x-recall"): (
        "1/2: the `--yaml_config` load of a benchmark's argument parser warning 'Proceeding "
        "without it': ⚠ (its JSON twin is ✗)"
    ),
    ("broad-except", "w-precision"): (
        "4/5 (3/4 as first recorded; the sample follows the findings, and a later "
        "recording drew one more right catch): an enumerating benchmark that stores the "
        "error for a failing configuration and goes on, labelled '-'"
    ),
    ("any-annotation", "w-precision"): (
        "9/10: a rewritten `as_(self, type_: object, ...) -> Any`, labelled '-'"
    ),
}
_ZO_FIGURES = {
    ("broad-except", "x-recall"): (
        "0/1: `except Exception: return None` in Triton's `_parse_lora_configs`, run at "
        "engine start-up: ⚠ (the helper is no fail-fast name)"
    ),
    ("broad-except", "w-precision"): (
        "6/8 (7/9 before round AD left out a handler moved from another file): a QA model "
        "generator that prints the error and returns False to its caller, twice, labelled '-'"
    ),
    ("any-annotation", "x-recall"): (
        "1/4 (0/3 before round AZ read parametrize rows: triton's `error_message: str` given "
        "None, ✗ after the run): `-> None | List[tuple[str, str]]` returning "
        "`TritonLoraConfig` dataclasses, "
        "`-> TritonLoraConfig` returning None on one path, and mistral-common's `-> "
        "dict[str, list[dict[str, Any]]]` returning bools and floats: no finding (what a "
        "returned list or dict holds is not read; the `return None` was not judged)"
    ),
}

_ZPQ_SEALED = (
    "sealed: labelled blind after round Q, recorded with a3be2a4: zp and zq together ✗ "
    "recall 4/16, ✗ precision 4/5, ⚠ precision 44/50; then, tuned on them, `typing.Self` "
    "in the signature of a function no class encloses is ✗ (✗ recall 7/16)"
)
_ZP_FIGURES = {
    ("any-annotation", "x-recall"): (
        "4/11 blind, 4/7 post-run (3/10 and 3/6 before round AL read `consolidate(...) -> "
        "None` given a `return TensorDictFuture(...)`, labelled ✗ after the run; 7/10 "
        'before round AD: tensordict\'s three `-> "Self"` '
        "module functions and helion's `**kwargs: dict` launcher, labelled ✗ blind, were "
        "moved verbatim from another file in the same commit, which the sweep leaves out: "
        "post_run '-' by the brief's reading 8; 4/10 as sealed): tensordict's `save(...) -> "
        "None` returning `data.memmap("
        "...)` (a returned call is not read: it may give None), and helion's two "
        "`SimpleNamespace(codegen_name=..., backend_name=...)` returned by the patched "
        "`CompileEnvironment.current`, a plain class of 45 methods (a service, no record: ⚠)"
    ),
    ("hot-copy", "w-precision"): (
        "0/1 (0/4 before round V read helion's `correctness_check`, cloning each "
        "benchmark shape's inputs, as run once): tensordict's `consolidate()` copying a "
        "non-contiguous tensor on one branch, labelled '-'"
    ),
}
_ZQ_FIGURES = {
    ("broad-except", "x-recall"): (
        "1/2 (0/2 before round AK read a call a package's module runs at import as its "
        "set-up: flash-attention's `_is_cuda_12()`, run at import to set a config "
        "default): LitServe's `_handle_error_response` logging only at DEBUG on the "
        "request path (a DEBUG log reads as a log): ⚠"
    ),
    ("broad-except", "w-precision"): (
        "10/11: an MCP handler's catch that sends the error text to the client as a 500, "
        "labelled '-'"
    ),
    ("any-annotation", "x-recall"): (
        "0/3: LitServe's `-> dict` returning a pydantic model or starlette `FormData`, `-> "
        "Tuple[str, asyncio.Event]` returning an int queue id, and `handle_request -> "
        "Response` returning the raw output: no finding (what a call returns is not typed "
        "without a type checker)"
    ),
    ("hot-copy", "w-precision"): (
        "0/1: `kv_producer_state.clone()` of a CuTe pipeline state (a few registers) in a "
        "kernel loop, labelled '-'"
    ),
}

_ZRS_SEALED = (
    "sealed: labelled blind after the Self check, recorded with 0ee497a: zr and zs "
    "together ✗ recall 30/51, ✗ precision 31/52, ⚠ precision 52/56; then, tuned on them, "
    "a broad catch after a specific one that falls through to no answer is no expected "
    "failure's answer (✗ -> ⚠ twice in zr, and once in zs, which it was not tuned on) and "
    "a closure testing an implicit-Optional parameter relies on its None (✗ recall "
    "31/51, ✗ precision 32/50)"
)
_ZR_FIGURES = {
    ("broad-except", "x-recall"): (
        "0/1: kernels' `_windows.py`, `except Exception: pass` around "
        "`os.add_dll_directory` at `import kernels` (a later DLL error hides it): ⚠ (the "
        'handler\'s comment, "Ignore if already added or permission issues", puts the '
        "choice on the record)"
    ),
    ("broad-except", "x-precision"): (
        '0/1 (0/2 before round AI read an "init" spelt as a package\'s `__init__.py` in '
        "the function's body as no set-up: `_find_torch_ext_init`; 0/5 as sealed, 0/3 "
        "before round AD left out the helper moved into `cli/`): `kernels info`'s metadata "
        "download whose `metadata = None` before the `try` says it is optional, labelled ⚠"
    ),
    ("any-annotation", "x-recall"): (
        "7/12 (6/12 before round AQ read a fake of one keyword by the fake it holds: one "
        "`GitRefs`, `SimpleNamespace(branches=[SimpleNamespace(name=...)])`): fakes of "
        "`kernels_data.Metadata` (a class of a `.pyi` stub, no data class), "
        "of huggingface_hub's `RepoUrl` (a `str` subclass) twice, of `GitRefs` set as a "
        "`Mock()` method's `return_value` once (⚠), and torchcodec's `seek(...) -> bytes` "
        "returning `file.seek`'s int (a call's result is not typed)"
    ),
}
_ZS_FIGURES = {
    ("kwargs-lookup", "x-recall"): (
        "2/3 (0/3 before round AC read a new key spelled in another file's kwargs dict): "
        'the `"is_final" not in kwargs` test in `callback.py` that sets its default, which '
        "is no read (the two reads in `trainingstate.py` are ✗ now: `callback.py` writes "
        '`kwargs["is_final"]`)'
    ),
    ("broad-except", "x-recall"): (
        "0/2: a rendezvous compare-and-set's `except Exception: return -1` (no fail-fast "
        "name) and a widened `except Exception` around a vision model's `from_pretrained` "
        "that logs, sets `model = None` and falls back to the causal-LM loader: ⚠ (no "
        "finding before round R read its `'...'.format(e)` log line as handing the error on)"
    ),
    ("any-annotation", "x-recall"): (
        "27/32 (26/31 before round AJ read a fixed-length tuple's None item: "
        "`train -> tuple[SFTTrainer, dict]` returning `None, None`, labelled ✗ after the run; "
        "24/30 as sealed; round Y's `render_template: callable`, labelled ✗ after the "
        "run, one more): fakes of a plain rendezvous handler class, of "
        "`LogAnalysisCycleResult` and of `os.stat_result` twice (⚠: no data class found), "
        "and `max_seq_length: str = None` given an int (the int is not read)"
    ),
    ("any-annotation", "x-precision"): (
        "28/39 (27/38 before round AJ's fixed-length tuple reading; with round Y's "
        "`render_template: callable`, labelled ✗ after the run; 26/38 "
        "before round V read the base version of a fall-off's function: "
        "`launch_agent -> Dict[int, Any]` already fell off): eleven implicit-Optional "
        "fields and parameters of fms-hf-tuning that are only passed on, stored or "
        "dereferenced, labelled '-' (the sets' rule: ✗ when the code branches on None; "
        "None reaches them)"
    ),
    ("any-annotation", "w-precision"): (
        "11/12: `SimpleNamespace` stand-ins for attributes of stub modules put into "
        "`sys.modules` for optional dependencies, labelled '-'"
    ),
    ("async-blocking", "x-recall"): (
        "2/3 (0/3 before round AE read a `time.sleep` on the loop outside tests as ✗ on any "
        "path): an asyncio lock held across `await asyncio.shield(...)` on the attribution "
        "service's loop: ⚠ (`attribution/` is no serving path by the default globs, and "
        "`_run_lib_log_analyzer_serialized` no request-path name)"
    ),
}

_ZTU_SEALED = (
    "sealed: labelled blind after round R, recorded with ab5a641: zt and zu together ✗ "
    "recall 11/22, ✗ precision 11/11, ⚠ precision 36/37; then, tuned on them, a specific "
    "catch widened to a silent broad one is ✗ and `-> tuple[X]` returning another length "
    "is ✗ (✗ recall 16/22)"
)
_ZT_FIGURES = {
    ("any-annotation", "x-recall"): (
        "16/21 blind, 16/20 post-run (15/20 and 15/19 before round AZ read parametrize "
        "rows: vllm-spyre's `available_blocks: int` given `[None]`, ✗ after the run; "
        "14/19 and 14/18 before round AH found "
        "`sparse24_bitmask_compress`'s 3-tuple annotation over 2-tuple returns, ✗ after the "
        "run; 11/18 as sealed; a wrong return labelled blind at its "
        "`def` line, reported on its `->` line since round AB): the abstract "
        "`compression_param_names(...) -> tuple[str]` "
        "whose body only raises (its overrides are found), and three `SimpleNamespace(type="
        "...)` returned by a patched `torch.accelerator.current_accelerator()`, whose "
        "`torch.device` is no data class (⚠)"
    ),
    ("any-annotation", "w-precision"): (
        "11/12: nested `SimpleNamespace` stand-ins for the proprietary `torch_sendnn` "
        "module, which is not installed and has no typed class, labelled '-'"
    ),
}
_ZU_FIGURES = {
    ("broad-except", "x-recall"): (
        "2/3 (0/3 as sealed): litdata's `_assert_dir_has_index_file`, `except ClientError` "
        "widened to `except Exception: has_index_file = False`: a failure flag, and a "
        "`raise` tested on it follows (⚠)"
    ),
    ("any-annotation", "x-recall"): (
        "0/1: `not_supported_provider(...) -> bool` whose body always raises (`NoReturn` "
        "was meant): no finding (a body that only raises is read as a stub)"
    ),
}

_ZVWX_SEALED = (
    "sealed: labelled blind after round R, recorded with 87890cd: zv, zw and zx together "
    "✗ recall 1/7, ✗ precision 1/3, ⚠ precision 56/56; then, tuned on them, `*pairs: "
    "tuple[str, str]` is no container ✗ and a request-path handler whose comment says why "
    "it goes on is ⚠ (✗ precision 1/1)"
)
_ZV_FIGURES = {
    ("any-annotation", "x-recall"): (
        "0/2: aiperf's `load_dataset -> dict[str, Any]` returning the parsed ShareGPT JSON "
        "(a list its caller iterates) and the `dataset: dict[str, Any]` parameter that "
        "receives it: the types come from `json` and the callers, a type checker's job"
    ),
}
_ZW_FIGURES = {
    ("kwargs-lookup", "x-recall"): (
        "0/1: an example dataset's `__init__(..., **kwargs: object)` that never reads them, "
        "subclassing torchvision's `ImageFolder` (not stored: an unknown base may declare "
        "the catch-all, so no dropped-keys ✗)"
    ),
    ("broad-except", "x-recall"): (
        "0/2: `load_module`'s `except Exception: return None` (a tracker named in config; "
        "no fail-fast name, callers not on a named path) and a CLI argument parser's "
        "`except Exception: pass` falling back to the raw string (⚠)"
    ),
}
_ZX_FIGURES = {
    ("any-annotation", "x-recall"): (
        "1/2 blind, 2/3 post-run (0/1 before round AZ read parametrize rows: streaming's "
        "`compression: str` given None twice, one ✗ after the run, the other on a line "
        "labelled '-' blind for its `Any` and ✗ post-run): "
        "`get_entry_point(name, default: Optional[T] = None) -> T` returning "
        "catalogue's `super().get_entry_point(name, default=default)`, None when no entry "
        "point matches (the base's return is not read)"
    ),
}

_ZYZ_SEALED = (
    "sealed: labelled blind after round S's first fixes, recorded with 1230457: zy, zz "
    "and zza together ✗ recall 7/38, ✗ precision 7/13, ⚠ precision 76/83; then, tuned "
    "on them, a bare `AsyncMock()` passed to a typed parameter, a `Protocol`'s one-line "
    "stub `-> T: ...` and `**kwargs: Optional[dict]` are read (✗ recall 14/38)"
)
_ZY_FIGURES = {
    ("any-annotation", "x-recall"): (
        "4/6 (2/6 before round AL read the classes' lineage: `-> FileCacheLazy` returning "
        "a sibling class's `CacheFileLazy(...)`, `-> DirectLazy` a `MockLazy(...)`): two "
        "returns a type checker would reject, `-> bytes` returning the inner store's "
        "`(bytes, SourceInfo)` pair (a method of another class, not read) and `-> Trace | "
        "list[BoundSymbolInterface]` whose `Trace` member no path returns"
    ),
    ("broad-except", "w-precision"): (
        "8/9: a hand-written `pytest.raises` (`try: ...; except Exception as e: assert "
        "...`) in a test, labelled '-'"
    ),
}
_ZZ_FIGURES = {
    ("kwargs-lookup", "x-recall"): (
        "5/12 blind, 9/16 post-run (4/12 and 8/16 before round AB put a dropped-keys ✗ on "
        'the `**kwargs` line): the new key `"extra_body"` guarded by `if ... not in '
        'kwargs:` in two files (setting a default is no read), `"top_k"` popped where an '
        "older constructor read it (⚠), and two `__init__(..., **kwargs)` that never read "
        "them while overriding a base `__init__` with parameters (an interface's "
        "catch-all: no dropped-keys ✗)"
    ),
    ("hot-copy", "w-precision"): (
        "0/1: a copy in datasets' `_step`, which builds the dataset `.step()` returns "
        "(the `*step*` per-step glob), labelled '-'"
    ),
}
_ZZA_FIGURES = {
    ("broad-except", "x-recall"): (
        "0/1: `_error_from_crash_marker`, run on every rollout, warns and returns None "
        "when the crash file cannot be read (no fail-fast name; ⚠)"
    ),
    ("broad-except", "w-precision"): (
        "9/12 blind, 10/12 post-run: two test encoders retrying `json.dumps` with another "
        "setting, whose retry raises, labelled '-'"
    ),
    ("any-annotation", "x-recall"): (
        "0/16 blind, 0/8 post-run (0/16 as sealed, 6/16 from round T to round V, which "
        "reported six MagicMock `ExecResult` data fakes; those and two more mocks are "
        + _MOCKS_SETTLED
        + "): eight `SimpleNamespace(body=, message=, error=)` fakes of litellm's "
        "`BadRequestError` (an exception class, no data class: ⚠)"
    ),
}

_ZZBCD_SEALED = (
    "sealed: labelled blind after round S, recorded with e4594d2: zzb, zzc and zzd "
    "together ✗ recall 3/24, ✗ precision 3/5, ⚠ precision 69/70; then, tuned on them, "
    "a folder with its own `pyproject.toml` is an import root (and the second tier skips "
    "the standard library and pytest), consecutive `isinstance` ifs read as one chain, "
    "and typing's abstract collections declare no catch-all (✗ recall 8/24)"
)
_ZZB_FIGURES = {
    ("broad-except", "x-recall"): (
        '0/2: `except Exception: return ""` evaluating the user\'s prompt lambda while '
        "genai-bench loads its dataset, and aibrix's `except Exception: return False` "
        "around `inspect.signature` on the runtime's wait-ready start-up: no fail-fast "
        "name (⚠)"
    ),
    ("any-annotation", "x-recall"): (
        "5/11 (1/11 as sealed): openai's `ChatCompletionChunk` fakes a hand-written "
        "stream's `__anext__` yields and the `httpx.Response` fake it holds, the outer "
        "`BatchJob` fake handed to a hand-written progress manager, a fake a hand-written "
        "`update_job_local_status` returns, and kubernetes' `V1JobCondition` fakes a fake "
        "API returns: ⚠"
    ),
}
_ZZC_FIGURES = {
    ("broad-except", "x-recall"): (
        "0/2: instructor's `except Exception: pass` trying each `Union` member on a "
        "streamed response, and around a `GenericAlias` check of each call's "
        "`response_model`: no fail-fast or request name (⚠)"
    ),
    ("any-annotation", "x-recall"): (
        "2/5: a fake passed as `self` to kserve's `HuggingfaceGenerativeModel."
        "build_generation_config` (a model server, no data class: ⚠), and `models: "
        "Union[BaseModel, list[BaseModel], type]` on two functions that receive classes "
        "(no finding)"
    ),
    ("async-blocking", "x-recall"): (
        "0/1: `async def async_wrapper` returning boto3's synchronous `client.converse("
        "...)` through its parameter `client: BaseClient` (⚠ since round AX reads a "
        "synchronous SDK client's request: instructor's Bedrock wrapper is no serving path)"
    ),
}
_ZZD_FIGURES = {
    ("broad-except", "w-precision"): (
        "3/4: torchdata's worker wraps the error in an `ExceptionWrapper` and sends it to "
        "the main process, which re-raises it, labelled '-'"
    ),
    ("any-annotation", "x-recall"): (
        "0/2: `apply_delta(flat_delta_state: Dict[str, Any])` receiving tuple-keyed "
        "deltas (a later commit annotates `Dict[Tuple, Any]`; no finding), and a fake "
        "model passed to `_convert_naflex_timm_state_dict(model: Union[CLIP, "
        "CustomTextCLIP])` (`nn.Module`s, no data class: ⚠)"
    ),
}

_ZZEFG_SEALED = (
    "sealed: labelled blind after round T, recorded with 74e4538: zze, zzf and zzg "
    "together ✗ recall 11/40, ✗ precision 11/19, ⚠ precision 68/74 (no tuning after)"
)
_ZZE_FIGURES = {
    ("kwargs-lookup", "w-precision"): (
        "6/9 (4/9 before round AU, which gives a plain dict parameter a `**kwargs` dict is "
        "handed to no ⚠, as this set's labels say): reads in test recorders of the keys a "
        "fake captured, labelled '-'"
    ),
    ("broad-except", "x-recall"): (
        "0/5: `except Exception: pass` in a bnb-dequantizing helper of the MLX loader "
        "(×2), and three catches of unsloth's device-map planner that return a default "
        "or skip a field while reading the config at model load: no fail-fast name (⚠)"
    ),
    ("broad-except", "w-precision"): (
        "11/12: a CI script's dry-run handler that logs the traceback and returns exit "
        "status 1, and a websocket handler that reports the error to the client, labelled "
        "'-'"
    ),
    ("any-annotation", "x-recall"): (
        "1/4: a `SimpleNamespace(loader=object())` fake of importlib's `ModuleSpec` and "
        "an empty fake set as a fake model's `config` (standing in for "
        "`PretrainedConfig`), and a `response` fake given to huggingface_hub's "
        "`GatedRepoError` (no annotation names it): ⚠"
    ),
}
_ZZF_FIGURES = {
    ("kwargs-lookup", "x-recall"): (
        "3/7 (1/7 before round AB put a dropped-keys ✗ on the `**kwargs` line): helm's "
        'new `"split"` key read in two files, twice from `**kwargs` (⚠: the scenario that '
        "spells it in its stored kwargs dict is in a sibling package, `scenarios/` beside "
        "`metrics/`, which round AC's reading of another file's spelling leaves out) and "
        "once from the stored `self.kwargs` (no finding); optimum-nvidia's third "
        "`_from_pretrained(**model_kwargs)`, which forwards the dict to a helper that pops"
    ),
}
_ZZG_FIGURES = {
    ("broad-except", "x-recall"): (
        "0/1: `except Exception as e: log.warning(...); continue` in llama-models' "
        "`load_bpe_file`, a tokenizer loader (no fail-fast name: ⚠)"
    ),
    ("any-annotation", "x-recall"): (
        "4/7 (0/7 before round AQ read a fake of one keyword by the fake it holds: garak's "
        "fakes of openai's `Completion`, `ChatCompletion` and their choices returned by "
        "hand-written fake clients' `create` methods): three `SimpleNamespace` stand-ins "
        "for openai's resource objects (`chat`, a `Completions` resource's `_client`): ⚠"
    ),
}

_ZZHIJ_SEALED = (
    "sealed: labelled blind after round T, recorded with 00af9a4: zzh, zzi and zzj "
    "together ✗ recall 22/61, ✗ precision 22/23, ⚠ precision 83/83 (no tuning after)"
)
_ZZH_FIGURES = {
    ("broad-except", "x-recall"): (
        "0/2: `except Exception:` that assigns a fallback (`mesh = None` while LoRA "
        "weights are restored, `hints = {}` while component sockets are built), labelled "
        "✗ as silent swallows; no log, but no `pass`/`return None`/`continue`: ⚠"
    ),
    ("any-annotation", "x-recall"): (
        "19/28 (9/28 before round Y read `maxtext.configs.types`, which the code imports from "
        "its package by name, a fake written as a keyword argument against that "
        "parameter's `mesh: Mesh`, and a fake passed positionally where `config: Config` "
        "is `Any` by the parameter's name): five `MaxTextConfig` fakes no binding or "
        "parameter name names (bound to other names), two `Mesh` "
        "fakes (one in a dict later spread with `**`), a fake of jax's `Device` (jax's "
        "wheel at hand, jaxlib not) and a fake `self` of "
        "maxtext's `Attention` module: ⚠"
    ),
}
_ZZI_FIGURES = {
    ("any-annotation", "x-recall"): (
        "9/16 (6/13 before round AX read three NeMo performance scripts' `args: str` "
        "read as the argparse namespace, `args.gpus_per_node`, labelled ✗ after the run; "
        "4/11 before round AL read `-> None` returning the async save request and "
        "`-> NeMoMultimodalConversation` returning a `FailedConversion()`, both labelled "
        "blind at the `def` line and found at the `->` line of their multi-line signatures, "
        "labelled there after the run: the two `def`-line sites stay missed): "
        "`generator_seed: int = None` and `device_map: str = None` of an "
        "`__init__` that only stores them on `self` (an inexact default by the rule's "
        "reading: no finding), "
        "`-> ModuleSpec` over rewritten signatures returning what a function of another "
        "module returns"
    ),
    ("hot-copy", "x-recall"): (
        "1/2: a frame-logits `.clone()` in the per-frame body of a CUDA-graph `while` "
        "loop (a function the graph calls per step, no Python loop around it)"
    ),
}
_ZZJ_FIGURES = {
    ("kwargs-lookup", "x-recall"): (
        "3/7: three keys a new simulator file copies from another with no shared "
        "constant, ⚠ as not new to the repository (the seed's 'new string key'; the "
        "labeller calls the copy ✗), and `batch_use_async` read in `BatchEngine.__init__` "
        "and spelled as a keyword two layers up (a write, not a kwargs read)"
    ),
    ("broad-except", "x-recall"): (
        "0/2: `except Exception: return default_value` reading a timeout from the "
        "environment, and a bare `except:` retrying in an example server's start-up "
        "ping loop: no fail-fast name (⚠)"
    ),
    ("any-annotation", "x-recall"): (
        "4/6 (3/6 before round AX read `compile_options: str` whose body calls "
        "`compile_options.items()`): `_compute_f1_score -> str` returning a local bound to "
        "`0.0` or to a computed ratio (one binding no literal: not judged), "
        "and an example parameter typed `str` that receives a bool (no "
        "literal returned or compared: not judged)"
    ),
}

_ZZKLM_SEALED = (
    "sealed: labelled blind after round U, recorded with b62ee45: zzk, zzl and zzm "
    "together ✗ recall 17/46, ✗ precision 17/21, ⚠ precision 79/81 (no tuning after)"
)
_ZZK_FIGURES = {
    ("any-annotation", "x-recall"): (
        "18/26 (15/26 before round AM read evalscope's three fakes of `TaskState`, a "
        "plain class whose `sample_id`, `metadata` and `input_text` are typed properties; "
        "9/26 before round Z read the packages the code under test imports whole "
        "or by a literal name given to an import call: deepeval's `require_dependency("
        '"anthropic")` names anthropic\'s `TextBlock`, `ThinkingBlock`, `Message` and '
        "`Usage` to six fakes): deepeval's fakes of anthropic's `Messages` resources and of "
        "openai's logprob models, held by fake clients no annotation reaches; evalscope's fakes of its `DataAdapter` "
        "and `BatchReviewer` set as attributes or passed to untyped "
        "helpers, and a fake client's `post` returning `BenchmarkData`: ⚠"
    ),
}
_ZZL_FIGURES = {
    ("kwargs-lookup", "x-precision"): (
        "0/2: ignite's `_SerialModel.__init__(_backend=None, **kwargs)` (mirrors the "
        "factory signature of its sibling models) and a nested `func(obj, **kwargs)` "
        "callback whose keys the caller fixes, labelled '-' where the sweep calls the "
        "unused dict a drop"
    ),
    ("any-annotation", "x-recall"): (
        "0/2: `lambda: SimpleNamespace(world_size=..., rank=...)` patched over "
        "physicsnemo's `DistributedManager` class (a class, not a function returning "
        "one, is replaced): ⚠"
    ),
}
_ZZM_FIGURES = {
    ("broad-except", "x-recall"): (
        "2/9: catches that log or pass around Qwen-Agent's MCP connection and resource "
        "listing, a prompt translation, a metric judge's NaN and a query distribution "
        "builder: no fail-fast name (⚠)"
    ),
    ("hot-copy", "x-recall"): (
        "2/3 (0/3 before round AV reads a sampling config copied beside the request's "
        "`messages`): `kwargs['extra_body'] = copy.deepcopy(kwargs.get('extra_body', {}))` "
        "once per completion call in `_complete_create(*args, **kwargs)`, a closure whose "
        "name is no request path and whose signature names no request content: no finding"
    ),
}

_ZZNOP_SEALED = (
    "sealed: labelled blind after round V, recorded with f6e33f1: zzn, zzo and zzp "
    "together ✗ recall 7/51, ✗ precision 7/15, ⚠ precision 87/87 (no tuning after)"
)
_ZZN_FIGURES = {
    ("kwargs-lookup", "x-recall"): (
        "0/1: `__init__(**kwargs)` that pops three keys and hands the rest to the base "
        "class's `__init__`, which ignores them (dropped two classes up): no finding"
    ),
    ("broad-except", "x-recall"): (
        "0/1: `except Exception: return {}` around `load_full_config` in a plugin "
        "script's helper: no fail-fast name (⚠)"
    ),
    ("any-annotation", "x-recall"): (
        "4/6: two `SimpleNamespace(id=...)` records of a mocked vector store's `list()`, "
        "labelled as fakes of the pydantic `OutputData` each of mem0's 22 stores defines "
        "(the base `list` has no return annotation): ⚠"
    ),
}
_ZZO_FIGURES = {
    ("broad-except", "x-recall"): (
        "0/6: a Modal app's handlers that print and go on or `return None`, in functions "
        "decorated `@modal.build()` (model download), `@modal.enter()` (engine start) "
        "and `@modal.method()` (requests): no fail-fast name, and Modal's decorators are "
        "not read as routes (⚠)"
    ),
    ("any-annotation", "x-recall"): (
        "22/29 (2/29 before round X read packages as large as openai and round Y followed the "
        "adapter's `camel.types` re-export to openai: 20 of its Responses models): the "
        "`ResponseUsage` fake a test helper returns and an `IncompleteDetails` fake inside a "
        "conditional expression; a fake of docker's `Container`; "
        "`-> Future[list]` returning a future of a tuple (no literal: not judged): ⚠ or "
        "no finding"
    ),
}
_ZZP_FIGURES = {
    ("broad-except", "x-recall"): (
        "0/5: `except Exception: pass` resolving a summarizer's config and around usage "
        "statistics in `invoke_llm` (its comment calls the trace data best effort), a "
        "logged `return None` of an idempotency lookup, and `pass` around a Slack "
        "`auth_test()` in `attach_routes`: no fail-fast name (⚠)"
    ),
    ("any-annotation", "x-recall"): (
        '1/3: two fakes of agno\'s `AgentOS` passed as `os: "AgentOS"`, a service class '
        "(⚠ by the rule's design; the labeller calls it ✗)"
    ),
}

_ZZQRS_SEALED = (
    "sealed: labelled blind after round V, recorded with 1af44b1: zzq, zzr and zzs "
    "together ✗ recall 20/111, ✗ precision 20/22, ⚠ precision 83/85; recorded again with "
    "round W's code, whose only move there is zzr's two MagicMock ✗ (labelled '-') leaving"
)
# Service objects (a runner, a client, a room, an STT): ⚠ by the rule's design, as the
# majority of the older sets read them; the labellers of zzq to zzs call them ✗.
_SDK_EVENTS = (
    "fakes of an installed SDK's typed models nested in the events or responses a fake "
    "stream or client yields (no annotation of the code under test names the class)"
)
_ZZQ_FIGURES = {
    ("any-annotation", "x-recall"): (
        "7/26 (3/26 before round X read the tag a model's `Literal` field lists: "
        "anthropic's `RawMessageStartEvent`, `RawContentBlockStartEvent` and two "
        "`RawContentBlockDeltaEvent`): " + _SDK_EVENTS + ": anthropic's `InputJSONDelta` "
        "inside the delta events (one keyword, the event's `delta` typed with a union "
        "alias), aiohttp's `WSMessage`, deepgram's client; fakes of service objects (pipecat's `WorkerRunner` and `PipelineWorker`, "
        "livekit's `Room`, `JobContext`, `STT`, `AudioRecognition`, a `RealtimeSession`: "
        "plain classes with more methods than typed attributes, or a base): ⚠"
    ),
    ("async-blocking", "x-recall"): (
        "0/4: an `async with self._send_lock:` around awaited sends in a session host's "
        "`send_message` (twice: ⚠, the function is no serving path the rule knows), and an "
        "inline task slot whose `asynccontextmanager` holds a lock across its `yield`, "
        "entered by `async with` in another module (no finding)"
    ),
    ("broad-except", "x-recall"): (
        "0/1: `except Exception: pass` around closing a half-open socket in "
        "`_connect_websocket` while the outer handler reports the error (⚠: the name is "
        "no fail-fast path the rule reads)"
    ),
}
_ZZR_FIGURES = {
    ("any-annotation", "x-recall"): (
        "7/12 (3/12 before round X read the tag a model's `Literal` field lists: "
        "anthropic's `RawContentBlockStartEvent`, `RawContentBlockDeltaEvent`, "
        "`InputJSONDelta` and `ToolUseBlock`): " + _SDK_EVENTS + ": anthropic's "
        "`TextBlock` in a response's content (no tag set), the openai client and its "
        "`chat` resource, textual's `Button.Pressed` reached through "
        "a handler's `event` parameter in one case of three; a `Settings` fake built as "
        "the `side_effect` of a patched class: ⚠"
    ),
    ("broad-except", "x-recall"): (
        "2/12 post-run, 0/8 blind: storage reads and listings (`get`, `find`) of graphrag's "
        "blob and Cosmos stores that log and `return None` or go on, an input loader that "
        "skips a file, an LLM cache middleware's `...`, a prompt builder's `return ''`: "
        "no fail-fast name the rule reads (⚠); the two ✗ the sweep gives (`get_creation_"
        "date`) were labelled ⚠ blind and ✗ after the run"
    ),
    ("kwargs-lookup", "x-recall"): (
        "0/2 post-run, 0/8 blind: two connector set-ups whose `**kwargs` the body reads "
        "four keys from and drops the rest (`connect(**kwargs)`, `create_blob_storage("
        "**kwargs)`), labelled ✗ at the `**kwargs` line: no finding there (the rule reads "
        "neither name as a fail-fast path); six key reads labelled ✗ blind read ⚠ after "
        "the run (the keys were not new)"
    ),
}
_ZZS_FIGURES = {
    ("any-annotation", "x-recall"): (
        "39/52 (10/52 before round X matched a fake's keywords against the classes of a "
        "package as large as openai's, a rare keyword narrowing them, read a fake in "
        "a list under `Optional` as the element type and read the tag a `Literal` field "
        "lists: 28 of openai's `ChatCompletion`, `ChatCompletionChunk`, their `Choice`, "
        "`ChoiceDelta`, tool-call deltas and `CompletionUsage`, and a "
        "`ResponseCompletedEvent`): " + _SDK_EVENTS + ": an `Embedding` and a "
        "`CompletionUsage` inside fakes bound to `response`, which the sweep reads as "
        "openai's `Response` / `ParsedResponse` by the name; cdp-use's client and "
        "registrations and bubus' `EventBus`; browser-use's `Agent`, `CDPSession` and a "
        "`logging.Logger` fake; a fake inside a source string the test `exec`s: ⚠ or no "
        "finding"
    ),
}

# (set, reading, rule, metric) -> why the cell is below target.
KNOWN_GAPS: dict[tuple[str, str, str, str], str] = {
    ("b", "blind", "any-annotation", "w-precision"): (
        "10/12: two sampled ⚠ are test fakes of a module and a layer "
        "(test_lm_eval_accuracy.py:114, test_hpu_fused_moe.py:68), labelled '-'"
    ),
    ("b", "post-run", "any-annotation", "w-precision"): "10/12: the blind cell above",
    ("b", "blind", "kwargs-lookup", "x-recall"): "0/3: " + _WRITES,
    ("b", "post-run", "kwargs-lookup", "x-recall"): "0/2: " + _WRITES,
    ("c", "blind", "any-annotation", "w-precision"): (
        "11/12: a test fake passed into production code, labelled '-' blind and ⚠ after "
        "the run (post_run; 12/12)"
    ),
    ("c", "blind", "broad-except", "x-recall"): _C_EXCEPT,
    ("c", "post-run", "broad-except", "x-recall"): _C_EXCEPT,
    ("c", "blind", "async-blocking", "w-precision"): _C_ASYNC,
    ("c", "post-run", "async-blocking", "w-precision"): _C_ASYNC,
    ("c", "blind", "kwargs-lookup", "w-precision"): (
        "9/12: " + _ENV_DOUBLE + "; two `**generate_kwargs` reads labelled '-' blind and ⚠ "
        "after the run"
    ),
    ("c", "post-run", "kwargs-lookup", "w-precision"): "11/12: " + _ENV_DOUBLE,
}
_ZZT_SEALED = (
    "sealed: labelled blind after round W, recorded with 378dbe1 (round W's final code): "
    "zzt ✗ recall 3/4, ✗ precision 3/3, ⚠ precision 20/20"
)
_ZZT_FIGURES = {
    ("any-annotation", "x-recall"): (
        '3/4: a test fake\'s `download_as_text(self) -> str` returning `b""`, labelled ✗ '
        "(a judgement call: the commit moved the fake class from another test file), which "
        "the sweep reads as moved lines, not new ones (no finding)"
    ),
}

_ZZU_SEALED = (
    "sealed: labelled blind after round X, recorded with 4baead3 (round X's final code): "
    "zzu ✗ recall 15/55, ✗ precision 15/15, ⚠ precision 39/40"
)
_ZZU_FIGURES = {
    ("any-annotation", "x-recall"): (
        "16/30 blind, 16/29 post-run (15/30 and 15/29 as sealed; round Y reads "
        "`List[callable]`, a builtin function as a type, tuned on this set): seven "
        "implicit-Optional defaults no None reaches (a `Histogram = None` stored and never "
        "tested, `List[torch.Tensor] = None` indexed on every path: the earlier sets' "
        "settled reading is '-', this set's brief gave `x: int = None` as a plain ✗), two "
        "`vocab_size: int` parameters the body tests for None, openai's token-detail fakes "
        "nested in a usage fake, and one blind ✗ on a signature's annotation line that "
        "the sweep reports on its `def` line"
    ),
    ("kwargs-lookup", "x-recall"): (
        "6/26 (0/26 before round AC read a new key spelled in another file's kwargs dict: "
        "the four metric keys `consumer.py` builds a dict of for `**`, two reward keys a "
        "filter of `reward_model_kwargs` lists): ColossalChat keys spelled elsewhere only "
        "outside a kwargs dict (a config display, `max_new_tokens` read before), reward "
        "keys copied from files that read them before (not new: ⚠), and "
        "openllmetry's reads of the plain `kwargs` dict wrapt hands a wrapper (no `**` "
        "parameter) and of `meter_provider`, read in some fifteen instrumentors (⚠ with "
        "the count)"
    ),
    ("broad-except", "w-precision"): (
        "13/14: a handler that puts the exception on a queue its consumer re-raises "
        "(strands' concurrent tool executor), labelled '-'"
    ),
}

_ZZV_SEALED = (
    "sealed: labelled blind after round Y's first readings, from the brief revised after "
    "zzu, recorded with 4baead3 (round X's final code): zzv ✗ recall 10/34 blind, 10/33 "
    "post-run, ✗ precision 10/12, ⚠ precision 37/39"
)
_ZZV_FIGURES = {
    ("any-annotation", "x-recall"): (
        "13/26 blind, 13/25 post-run (12/26 and 12/25 before round AH read a fixed-length "
        "tuple return: InternEvo's `-> Tuple[None, Tensor]` returning five values; 10/26 "
        "and 10/25 as sealed; round Y's reading of "
        "a builtin function as a type, tuned on zzu, finds InternEvo's two "
        "`async_upload_fn: callable`, a shape the brief revised after zzu named): "
        "openinference's fakes of a class the test reaches "
        "only through a monkeypatched or wrapped call (six `SimpleNamespace(data=...)` "
        "returned by a patched cohere `RawV2Client.embed`, cohere's `HttpResponse`; two "
        "google-adk `BaseAgent` fakes cast to `Any` as a wrapper's `instance`; a fake "
        "google-genai client nested in a fake of agno's `Gemini`; a generic pydantic "
        "model fake), and InternEvo's `Dict[int, nn.Module]` holding lists (no rule reads "
        "it), "
        "and, blind only, a `-> Tensor` returning a tuple labelled on its annotation line, "
        "which the sweep reports ✗ on the signature's `def` line (labelled ✗ there after the "
        "run, '-' here)"
    ),
    ("broad-except", "x-recall"): (
        "0/6: five `except Exception: return None` in langgraph's example dump script "
        "(a recovery tool's decode hooks: ✗ by the labeller's reading of a load path), and "
        "openinference's import-time `except Exception: pass` in a pytest plugin: ⚠"
    ),
    ("hot-copy", "x-recall"): (
        "0/1: InternEvo's `k.clone()` in the dynamic-NTK branch of `_forward`, taken on each "
        "decode step: ⚠ (a copy in a per-step function outside any loop is ⚠; ✗ asks "
        "for a step loop)"
    ),
    ("kwargs-lookup", "x-recall"): (
        "0/1: `load_state_dict(shard_state, kwargs)` passing the `**kwargs` dict "
        "positionally as `strict` (found by reading: no key is read)"
    ),
}

_ZZW_SEALED = (
    "sealed: labelled blind at the start of round Z from bench/sweep_brief.md (the brief "
    "kept in the tree from this set on), recorded with da3637c (round Y's final code) and "
    "again with round Z's: zzw ✗ recall 4/24, ✗ precision 4/8, ⚠ precision 40/43, both "
    "times"
)
_ZZW_FIGURES = {
    ("any-annotation", "x-recall"): (
        "2/15: wrong annotations only data flow shows: parameter annotations the callers "
        "contradict (xDiT's `tuple[str]` given tuples of 2 to 20 prefixes, four times; "
        "`Optional[torch.device]` given an f-string `cuda:N`, twice; lmms-eval's "
        '`_norm_label(name: str)` given `pred.get("label")`, twice; a `Dict[str, str]` '
        "given int values), and xDiT's counters annotated `Optional[int]` that the setters "
        "fill with 0-d tensors (three attributes and a `-> Optional[int]` returning them)"
    ),
    ("any-annotation", "x-precision"): (
        "2/3 (2/5 before round AZ read a retry loop raising on its last round: lmms-eval's "
        "two `-> Response` methods that fall off their end only when `num_retries <= 0`, "
        "labelled '-', no longer ✗): xDiT's `fp4_gemm_module_list: List[str] = None` "
        "field that every path dereferences (settled reading 2), labelled '-'"
    ),
    ("broad-except", "x-recall"): (
        "2/7: xDiT's bare `except: return False` in two package probes and `except: pass` in "
        "`set_cross_attention_backend` (⚠: probes and a setter, no fail-fast name the rule "
        "reads), and lmms-eval's logged give-ups in a model's `generate_until` and a task's "
        "`doc_to_visual` image loader (⚠: an eval harness's per-sample paths, read as "
        "request handling by the labeller)"
    ),
    ("broad-except", "w-precision"): (
        "10/12: xDiT's old `check_aiter` handler re-indented into and out of an `if` block "
        "(the sweep reads a re-indented line as added; labelled '-' as moved)"
    ),
    ("hot-copy", "w-precision"): (
        "2/3 (1/2 before round AD read one comment over a run of copies): LightX2V's "
        "`patch_tokens.clone()` moved a few lines down inside the same loop (labelled '-' as "
        "moved; the brief counts such a line as added from set zzy on)"
    ),
    ("kwargs-lookup", "x-recall"): (
        "0/2: lmms-eval's swanlab logger reads the new key `exp_name` from `**kwargs`; the "
        "commit spells it again in `__main__.py` only inside a CLI argument string (only "
        "reads from a kwargs dict count as a duplicate)"
    ),
}

_ZZX_SEALED = (
    "sealed: labelled blind during round Z from bench/sweep_brief.md as of 26eb721 (which "
    "called a line re-indented within its file a move), recorded with d29f37b (round Z's "
    "code): zzx ✗ recall 13/39 blind, 13/38 post-run, ✗ precision 13/64, ⚠ precision 51/52"
)
_ZZX_FIGURES = {
    ("any-annotation", "x-recall"): (
        "15/31 blind, 15/30 post-run (14/31 and 14/30 before round AJ read fish-speech's "
        "`-> tuple[Tensor, Tensor, Tensor]` returning `values, None, None`; 13/31 and 13/30 "
        "before round Z read `np.array` written "
        "as a type; a blind ✗ on the `->` line of a multi-line signature "
        "is reported on its `def` line, labelled there after the run): parameter "
        "annotations the callers contradict (fish-speech's `audio_masks: torch.Tensor` and "
        "`audio_parts: torch.Tensor` given None from `encode_for_inference`, six times; a "
        "`list[str]` given a dict; `FishTokenizer` given an `AutoTokenizer`, three times; "
        "DiffSynth's `list[int]` parameters of a function copied from torch given ints "
        "under `# type: ignore[arg-type]`, four times, and its `-> list[int]` returning "
        "an int)"
    ),
    ("any-annotation", "x-precision"): (
        "15/25 (14/24 before round AJ's fixed-length tuple reading; 13/23 before round Z's "
        "factory reading found `np.array` written as a type, "
        "13/60 as recorded with d29f37b): ten implicit Optionals of DiffSynth-Studio "
        "that a caller leaves at None and the body forwards to another function, labelled "
        "'-' by the settled reading (brief reading 2: a parameter the body only stores or "
        "forwards). A commit there dropped `Optional[...]` from some forty pipeline "
        "`__call__` parameters so its WebUI can dispatch on the bare type; round Z's "
        "dict-display reading, read from this set, leaves the 37 the body only stores in the "
        "pipeline's inputs dict unreported"
    ),
    ("broad-except", "x-recall"): (
        "0/2: fish-speech's logged `return None` in `load_json`, called on every request "
        "(⚠: no request-path name), and `except Exception as e: pass` around a base64 "
        "decode in a pydantic request validator (⚠: a validator is no fail-fast name)"
    ),
    ("broad-except", "w-precision"): (
        "11/12: a handler re-indented with its text unchanged, which this set's brief "
        "called a move ('-')"
    ),
    ("hot-copy", "x-precision"): (
        "0/3: fish-speech's `decode_one_token(...).clone()` of the sampled token ids (⚠: "
        "ids, not activations, in a call the name reading does not see), and "
        "`y[:, prompt_length:].clone()` of the generated ids per segment of "
        "`generate_long`, once re-indented ('-' by this set's brief) and once new (⚠)"
    ),
    ("kwargs-lookup", "x-recall"): (
        "1/6 (0/6 before round AI read torch's `nn.Module.__init__` as declaring no "
        "parameters: the VAE's `__init__`): DiffSynth's unused `**kwargs` on two training "
        "launchers (no fail-fast name the rule reads: `launch_training_task`), and three "
        "`kwargs.get(...)` keys of a new LoRA wrapper that another file spells only as "
        "dict keys and tuple items, not as kwargs reads (⚠)"
    ),
}

_ZZY_SEALED = (
    "sealed: labelled blind at the end of round Z from bench/sweep_brief.md as of f4f4dba, "
    "recorded with 0fa2039 (round Z before its dict-display reading) and with round Z's "
    "final code, the same findings both times: zzy ✗ recall 18/36, ✗ precision 18/20, ⚠ "
    "precision 38/51; two sampled ⚠ labelled after the run"
)
_ZZY_FIGURES = {
    ("any-annotation", "x-recall"): (
        "20/27 (19/27 before round AZ read parametrize rows: nunchaku's `lora_name: str` "
        "given None; 16/27 before round Z read the PIL module written as a type: nunchaku's two "
        "`-> tuple[Image, str]` found; round AS read a comprehension of `SampleRef` "
        "fakes): SpecForge fakes of its own pydantic config sections handed to untyped "
        "helpers or returned by a fake (`SimpleNamespace(model=..., training=...)` for "
        "`Config`, the tracker args for `TrackingConfig`), "
        "a model-config fake returned by a patched `AutoConfig.from_pretrained`; "
        "nunchaku's `-> Tuple[Tensor, Tensor]` one branch of which returns a bare tensor, and "
        "two test parameters annotated `str` given paths or None"
    ),
    ("kwargs-lookup", "x-precision"): (
        "3/4 (2/3 before round AI found nunchaku's `PuLIDPipeline.__init__(..., *args, "
        "**kwargs)`, an `nn.Module` that neither reads nor passes on either): FunASR's "
        "`SileroVad.__init__(**kwargs)` reading one key, labelled ⚠: "
        "`AutoModel.build_model` constructs every model as `model_class(**model_conf)`, a "
        "dispatch that fixes the signature (no caller in the diff shows it)"
    ),
    ("kwargs-lookup", "w-precision"): (
        "10/18: eight reads of test fakes' captured `**kwargs` (`fake_chunk_kda`, a "
        "`_timestamps_stub`, a `DummyAutoModel`), labelled '-' as this set's brief said; the "
        "brief now follows the seed and the earlier sets (123 such reads ⚠, 38 '-')"
    ),
    ("broad-except", "x-recall"): (
        "0/1: FunASR's unlogged `except Exception: return None` in `_get_punc_tokens` on "
        "`AutoModel`'s inference path (no request-path name the rule reads: ⚠)"
    ),
    ("broad-except", "w-precision"): (
        "7/10: SpecForge handlers that collect the error and raise it at the end of the "
        "function (after a cross-rank sync), read by the labeller as a re-raise ('-')"
    ),
    ("hot-copy", "x-recall"): (
        "0/5: nunchaku's uncommented `.clone()` of the full activations in a TeaCache "
        "forward factory and in the first-block cache helpers, called once per denoising "
        "step from a forward the pipeline's step loop runs in another module (⚠: the step "
        "loop is not in the file)"
    ),
}

_ZZZ_SEALED = (
    "sealed: labelled blind at the start of round AA from bench/sweep_brief.md as of "
    "3a4c89b, recorded with d8b4cad (round AA's caller reading; the same findings as round "
    "Z's a8ae76d): zzz ✗ recall 1/44, ✗ precision 1/1, ⚠ precision 47/47; then with the "
    "package bound read from its anthropic fakes; one site labelled after the run"
)
_ZZZ_FIGURES = {
    ("any-annotation", "x-recall"): (
        "19/27 (1/27 before round AA read packages of up to 4,000 modules, which reaches "
        "anthropic 2.x: eleven fakes of its `TextBlock`, `ThinkingBlock` and stream events "
        "found; 12/27 before round AP read opencompass's `_parse_grid_reference(ref: str)`, "
        "whose body handles a dict too; 13/27 before round AQ read a fake of one keyword by "
        "the fake it holds: six of them): four opencompass fakes of dashscope's "
        "`GenerationResponse` and `GenerationOutput` whose `output` holds a fake of `text` "
        "alone, a field many response classes of the package declare; three fakes of anthropic's `Message` with "
        "its one keyword `content`; metaflow's `yaml_parser(...) -> dict` returning "
        "`yaml.safe_load(...)`"
    ),
    ("kwargs-lookup", "x-recall"): (
        "0/4: metaflow's new `extended_resources` key read from `self._kwargs` (the stored "
        "`**kwargs`, not a `**kwargs` parameter) in two files; agentscope's `offset` key "
        "written by a router and read from `**kwargs` in a storage (sibling packages, "
        "`_router/` beside `storage/`: round AC's reading of another file's spelling "
        "leaves them out), and its chunker's "
        "`**kwargs` whose unknown keys its docstring says are ignored (no fail-fast name the "
        "rule reads)"
    ),
    ("broad-except", "x-recall"): (
        "0/9: handlers each label calls a fail-fast path by judgement (metaflow's step "
        "execution, pip environment setup, a Step Functions command builder, extension "
        "packaging at import; opencompass's HF dtype fallback while loading a model and a "
        "gold-answer parser; agentscope's chat-turn assembly and a permission check), none "
        "under a name the rule reads as one (⚠)"
    ),
    ("hot-copy", "x-recall"): (
        "1/2 (0/2 before round AR read a helper the request path calls: the TurboMind "
        "generation config `_generate` -> `_get_generation_kwargs` copies): opencompass's "
        "`deepcopy` of an OpenAI client's extra kwargs per prompt, a name that says no "
        "sampling config"
    ),
    ("async-blocking", "x-recall"): (
        "0/2: agentscope's distributed session lock held across the awaits of "
        "`ChatService._run_impl` (⚠: the chat service is not a serving path the rule reads)"
    ),
}

_ZZZA_SEALED = (
    "sealed: labelled blind at the end of round AA from bench/sweep_brief.md as of "
    "3a4c89b, recorded only with round AA's final code (ca31487): zzza ✗ recall 13/24, ✗ "
    "precision 13/18, ⚠ precision 42/44; one finding labelled after the run"
)
_ZZZB_SEALED = (
    "sealed: labelled blind before round AB's rule changes were recorded, from "
    "bench/sweep_brief.md as of 34a449d (its clarifications after set zzza), first recorded "
    "with ac1a260 (round AB's kwargs-lookup changes): ✗ recall 14/41 blind, 16/43 post-run, "
    "✗ precision 14/21 and 16/21, ⚠ precision 42/47; round AB's later return-site and "
    "value-default readings were read from it (tuned)"
)
_ZZZB_FIGURES = {
    ("any-annotation", "x-recall"): (
        "21/38 blind, 23/40 post-run (13/38 and 15/40 as sealed; 20/38 and 22/40 before round "
        "AC read mergekit's `-> str` returning an Optional field): marker's extractors' "
        "Optional results reaching `List`/`Dict` annotations modules away (seven), "
        "returns of a class or another model (`-> Optional[BaseModel]`, `-> str`); "
        "mergekit's None keys of multimerge (four), `_patch_mr` given floats, "
        "`TensorLoader.get` returning `safe_open`, and "
        "a moved `-> Tuple[...]` whose rewritten body returns two items: caller and "
        "return-value data flow the sweep does not follow"
    ),
    ("any-annotation", "x-precision"): (
        "21/26 blind, 23/26 post-run (two InternLM2ForCausalLM `input_ids: torch.LongTensor "
        "= None` labelled '-' blind, ✗ after the run: the body tests it and the chat model "
        "omits it): InternLM2ForSequenceClassification's two, which nothing in the "
        "repository calls ('-', reading 2 read strictly), and marker's re-wrapped "
        "`openai_api_key: Annotated[str, ...] = None`, whose field line is old (21/27 and "
        "23/27 before round AD left out `pillow_image_to_base64_string(img: Image)`, moved "
        "verbatim to a new file)"
    ),
    ("any-annotation", "w-precision"): (
        "17/18 (13/18 before round AD left code moved from another file out): InternVL's "
        "`FlickrDataset.__len__`, moved verbatim with its class, whose lines the change adds "
        "twice (the new COCO dataset has the same `__len__`): a block added more often than "
        "removed is new to the sweep, '-' by reading 8"
    ),
    ("broad-except", "x-recall"): (
        "1/3: mergekit's `infer_architecture_info` handlers that log and return "
        "`(None, None, None)`, judged fail-fast (architecture inference feeds merge "
        "planning) by their labeller, under no name the rule reads as one (⚠)"
    ),
}
_ZZZC_SEALED = (
    "sealed: labelled blind from bench/sweep_brief.md as of a1204ab (unchanged since "
    "34a449d), first recorded with 93ae6b3 (round AC's kwargs-lookup reading): ✗ recall "
    "2/21, ✗ precision 2/4, ⚠ precision 33/34; SWE-agent's pyproject.toml is invalid TOML "
    "(a missing comma) at 11 of its 24 commits, which the sweep refuses with that error "
    "(no findings there)"
)
_ZZZC_FIGURES = {
    ("any-annotation", "x-recall"): (
        "1/5: autotrain's `token: bool = Depends(api_auth)` on two routes (FastAPI injects "
        "`api_auth`'s str token), mmengine's moved `_get_batch_size(dataloader: dict)` "
        "whose body branches on `isinstance(dataloader, DataLoader)` for a caller passing "
        "one, and SWE-agent's `_run_attempt(...) -> StepOutput` returning `AgentRunResult` "
        "at a commit the sweep refuses (its pyproject.toml is invalid TOML)"
    ),
    ("any-annotation", "x-precision"): (
        "1/3: mmengine's `initializer: Callable = None` and `initargs: tuple = None` in "
        "`track_parallel_progress`, which only forwards them to `init_pool`, where the None "
        "test is: '-' by reading 2's forward clause (the sweep reads the callers omitting "
        "them)"
    ),
    ("async-blocking", "x-recall"): (
        "2/10 (0/10 as sealed; round AC read huggingface_hub's `get_session()` verbs): eight "
        "blocking calls (`requests`, `time.sleep`) in sync functions that "
        "autotrain's `async def` FastAPI handlers call through runners and helpers, judged "
        "✗ through the call chain by the labeller (the rule follows at most three calls, "
        "through a module's functions, an import or an attribute bound in `__init__`, not "
        "through a local runner object)"
    ),
    ("broad-except", "x-recall"): (
        "1/6: mmengine's three handlers around registering optional optimizers at import "
        "(warn and carry on), autotrain's dreambooth dataset download at training setup and "
        "SWE-agent's `default_factory` that turns an unreadable challenge file into "
        "`dict()`, judged fail-fast by purpose, under no name the rule reads as one (⚠)"
    ),
    ("broad-except", "w-precision"): (
        "14/15: autotrain's process-kill handler moved from `app.py` into "
        "`app_utils.get_running_jobs` in the same commit, '-' as a move"
    ),
}
_ZZZD_SEALED = (
    "sealed: labelled blind from bench/sweep_brief.md as of ec9b8b7 (unchanged since "
    "34a449d), first recorded with ec9b8b7 (round AC's final code): ✗ recall 2/15, ✗ "
    "precision 2/2, ⚠ precision 34/38"
)
_ZZZD_FIGURES = {
    ("any-annotation", "x-recall"): (
        "3/10 (2/10 as sealed; round AD read `any` written as a variable's type, "
        "instructlab's `model_kwargs: dict[str, any]`, from this set): mlx-lm's three "
        "`SimpleNamespace(sequences=...)` fakes of `GenerationContext` passed to an "
        "unannotated `_process_control_tokens(ctx, ...)` (one keyword, no annotation to "
        "read the class from), its `Tuple[Dict[str, Any]]` field and parameter (the "
        "function's return is reported), a callback annotated `List[Any]` that a caller "
        "hands a generator, and instructlab's `self.lr_scheduler: Callable` holding an "
        "LRScheduler"
    ),
    ("broad-except", "x-recall"): (
        "0/5: instructlab's `has_timm_vision_tower` probe (`except Exception: pass`, then "
        "`return False`) that `Model.__init__` calls and its granite-checkpoint loader's "
        "bare `except:` (a context manager `setup_model` enters in another module), "
        "keras-hub's two handlers of `convert_weights` (HF weight conversion at "
        "`from_preset`), and mlx-lm's `share.main` swallowing its own ValueError: fail-fast "
        "by purpose, under no name the rule reads as one (⚠)"
    ),
}
_ZZZE_SEALED = (
    "sealed: labelled blind from bench/sweep_brief.md as of 67a6fcd (unchanged since "
    "34a449d), first recorded with 67a6fcd (round AD's final code): ✗ recall 12/21, ✗ "
    "precision 13/22, ⚠ precision 40/40"
)
_ZZZE_FIGURES = {
    ("kwargs-lookup", "x-recall"): (
        '0/1: mlx-vlm\'s `prompt_kwargs.get("_apc_semantic_hash")`, a plain dict parameter '
        "reading a new key that `mlx_vlm/server/generation.py` writes into `gen_kwargs`: "
        "a sibling package, not the same or an enclosing one the rule reads a writer in"
    ),
    ("broad-except", "x-recall"): (
        "0/2: tunix's `_tensor_metadata` falling back to a replicated mesh shape while it "
        "builds weight-sync registration metadata, and a DEBUG-logged catch around the "
        "r2egym runtime patch in an example's environment: fail-fast by purpose, under no "
        "name the rule reads as one (⚠)"
    ),
}
KNOWN_GAPS[("zzze", "blind", "any-annotation", "x-recall")] = KNOWN_GAPS[
    ("zzze", "post-run", "any-annotation", "x-recall")
] = (
    "12/18 blind, 20/26 post-run: mlx-vlm's two empty config fakes (`SimpleNamespace(config="
    "SimpleNamespace())` on a batch generator's model, `gen.config = SimpleNamespace()`; "
    "nothing the code under test annotates by that name), tilelang's `SimpleNamespace(bits="
    "32, lanes=1)` for tvm's `DataType` stored in a hand-written fake, mlx-vlm's re-added "
    "`eos_token_ids: List[int]` whose caller passes an int, tunix's `spec_flat` values "
    "typed as arrays where a caller passes shardings (under a pyrefly ignore) and its "
    "`tasks: list[Any]` given a datasets `Dataset` "
    f"({_ZZZE_SEALED})"
)
KNOWN_GAPS[("zzze", "blind", "any-annotation", "x-precision")] = (
    "13/21 blind (21/21 post-run): eight mlx-vlm processor fakes that the code under test "
    "annotates with the repository's `ProcessorLike` Protocol, labelled ⚠ blind as a "
    "service object (the labeller did not meet the Protocol; brief reading 1 names one) "
    f"({_ZZZE_SEALED})"
)
_ZZZF_SEALED = (
    "sealed: labelled blind from bench/sweep_brief.md as of 6f18f95 (unchanged since "
    "34a449d), first recorded with 6f18f95 (round AE's final code): ✗ recall 0/5, ✗ "
    "precision 0/1, ⚠ precision 37/41"
)
_ZZZF_FIGURES = {
    ("broad-except", "x-recall"): (
        "0/3: agent-lightning's `except Exception: pass` around parsing the pod URL's port "
        "in the `deploy` command, sentence-transformers' logged `continue` over a model "
        "config's unparsable version requirement (`check_version_requirements`, a "
        "judgement call by its labeller) and verifiers' unlogged fallback to an empty "
        "target for a bad cancel frame in its broker (commented `# noqa: BLE001`): "
        "fail-fast by purpose, under no name the rule reads as one (⚠)"
    ),
    ("any-annotation", "w-precision"): (
        "15/17: verifiers' untyped `_resolve_env(cls, data)` validator pushed down verbatim "
        "from a removed base class into both of its former subclasses (a move by the "
        "labeller; the sweep reads one removal and two additions as one move and a copy)"
    ),
    ("async-blocking", "w-precision"): (
        "5/6: `path.read_bytes()` in the browser harness's `async def main`, a start-up "
        "read of one file: file I/O is none of the brief's async ⚠ kinds ('-' after the "
        "run)"
    ),
}
_ZZZG_SEALED = (
    "sealed: labelled blind from bench/sweep_brief.md as of 8532cbb (unchanged since "
    "34a449d), first recorded with 8532cbb (round AF's final code): ✗ recall 3/20, ✗ "
    "precision 3/7, ⚠ precision 32/35"
)
_ZZZG_FIGURES = {
    ("kwargs-lookup", "x-recall"): (
        "4/6 (1/6 before round AG read `_FusedModelActor.__init__`'s `dict(kwargs)` "
        "handed to a check of named keys as a drop): nv-ingest's `asr_num_gpus` read in "
        "`extract_audio`, a builder whose `**kwargs` go to a model copy (no fail-fast "
        "name: ⚠), and `OCRActor`'s read of its stored `self.ocr_kwargs` (no finding)"
    ),
    ("kwargs-lookup", "x-precision"): (
        "4/5 (1/5 before round AG read a `**kwargs` name rebound to a model dump as "
        "holding validated fields, and a plain dict parameter as no finding): "
        'nv-ingest\'s `kwargs.pop("method", None)` in `pdf_extraction`, a per-document '
        "function, whose key the fused actor's `__init__` also reads (✗ there, by its "
        "dropped keys): ⚠ by the labeller, the key being the `ExtractParams` field the "
        "actors forward"
    ),
    ("any-annotation", "x-recall"): (
        "4/14 (2/14 before round AG read nv-ingest's two `all_text: List[str] = []` "
        "given `None`): flax's wrong annotations the body or a caller contradicts (a "
        "`tuple[...]` given a list, a `list[Variable]` filled with raw arrays, "
        "`capture`'s `tuple[R, State]` returning the result alone or a longer tuple, in "
        "four overloads and a partial, a `fork_rngs` overload's `-> SplitBackups`), "
        "onnxscript's `-> Optional[str]` returning an `ir.Value` and a `type_: type` given "
        "typing forms, and nv-ingest's `SimpleNamespace` returned by a patched "
        "`rd.DataContext.get_current` (ray's `DataContext`, a dataclass)"
    ),
    ("any-annotation", "w-precision"): (
        "17/18: nv-ingest's `row: Any` helper moved from another file with only its name "
        "changed (a move with an edit, '-' by the labeller)"
    ),
}
_ZZZH_SEALED = (
    "sealed: labelled blind from bench/sweep_brief.md as of 7011dd6 (unchanged since "
    "34a449d), first recorded with 7011dd6 (round AF's final code): ✗ recall 4/7, ✗ "
    "precision 4/4, ⚠ precision 41/41"
)
_ZZZH_FIGURES = {
    ("broad-except", "x-recall"): (
        '0/2: aiter\'s unlogged `except Exception: arch = ""` around `get_rocm_arch()` '
        "in `default_f8_type()`, which then picks the FP8 type of the wrong architecture "
        "(kernel construction, a judgement call by its labeller), and earth2studio's "
        "`except Exception: pass` around `create_sync_redis_client()` in its health "
        "command (connector setup, a judgement call): fail-fast by purpose, under no name "
        "the rule reads as one (⚠)"
    ),
    ("any-annotation", "x-recall"): (
        "7/8 (3/4 before round AZ read pytest's `tmp_path` annotated `str`: earth2studio's "
        "four, ✗ after the run): aiter's `activation: int` of `opus_moe_stage1_a8w4_fwd`, whose callers pass "
        "an `ActivationType` member (a pybind11 enum the package aliases as `int`) through "
        "a `functools.partial`: a caller's type the rule does not follow (no finding)"
    ),
}
_ZZZI_SEALED = (
    "sealed: labelled blind from bench/sweep_brief.md as of f7fec18 (unchanged since "
    "34a449d), first recorded with f7fec18 (round AG's final code): ✗ recall 4/19, ✗ "
    "precision 4/9, ⚠ precision 34/39"
)
_ZZZI_FIGURES = {
    ("any-annotation", "x-recall"): (
        "5/10 (4/9 before round AZ read parametrize rows: supervision's `expected_result: "
        "list[str]` given None, ✗ after the run; 1/9 before round AH read a fixed-length tuple return: whisper's 3-tuple "
        "annotation over a 2-tuple return, supervision's 5-tuple over early 4-tuple "
        "returns, twice): optimum-executorch's three tokenizer annotations that their "
        "callers' classes contradict (`TokenizersBackend` or `PreTrainedTokenizer` where "
        "another tokenizer class is passed), `granularity: str` whose callers pass torchao "
        "`PerAxis`/`PerGroup` objects, and supervision's test parameter `exception: "
        "Exception` used as `with exception:` over `DoesNotRaise()` / `pytest.raises(...)` "
        "(a judgement call by its labeller): callers' and parametrize values' types the "
        "rule does not follow (no finding)"
    ),
}
_ZZZJ_SEALED = (
    "sealed: labelled blind from bench/sweep_brief.md as of a22b1b3 (unchanged since "
    "34a449d), first recorded with a22b1b3 (round AH's final code): ✗ recall 2/14, ✗ "
    "precision 3/8, ⚠ precision 39/39"
)
_ZZZJ_FIGURES = {
    ("any-annotation", "x-recall"): (
        "2/10: Gym's six test `SimpleNamespace` fakes of the opensandbox SDK's pydantic "
        "models (`Execution`, `SandboxStatus`, `SandboxInfo`) returned by hand-written fake "
        "services, or of a Responses output item whose type a parametrize list names (⚠: "
        "the fake service stands in for a class the rule does not follow), grain's "
        "`state: dict[int, Any]` whose callers pass JSON's string keys, and timm's `device: "
        "Optional[torch.device]` given `'cpu'` by its one caller through an untyped "
        "`task` (callers' types the rule does not follow: no finding)"
    ),
    ("broad-except", "x-recall"): (
        "0/3: Gym's `except Exception: return None` / `return True` in the two helpers of "
        "its config parser's openai-version check, whose docstrings and comments declare "
        '"constraint unknown" the fallback (judgement calls by the labeller), and the '
        "opencode agent's bare `except:` around the sandboxed run in `responses`, a "
        "request handler by no name or decorator the rule reads (⚠)"
    ),
}
_ZZZK_SEALED = (
    "sealed: labelled blind from bench/sweep_brief.md as of bd5f209 (unchanged since "
    "34a449d), first recorded with bd5f209 (round AI's final code): ✗ recall 6/20, ✗ "
    "precision 6/8, ⚠ precision 46/49"
)
_ZZZK_FIGURES = {
    ("kwargs-lookup", "x-recall"): (
        "1/7 (0/7 before round AK read modelscope's filter keeping only a builder "
        "config's fields in `load_dataset_builder` as that builder's init path): "
        "ComfyUI's Hunyuan VAE `Encoder`/`Decoder.__init__(..., **_)`, four times, "
        "labelled ✗ (one shared config dict handed to both; the sweep reads two classes "
        "of one module with the same unused dict as a family whose dispatch fixes the "
        "signature, and `**_` as ignored on purpose: no finding), a new key "
        '`"conditioning_byt5small"` written into another dict in a second file and read '
        "from a `**kwargs` the function forwards (⚠) "
        "and `trust_remote_code` added to an `__init__` that forwards its dict to a "
        "builder dropping it downstream (⚠: seven other files read the key before)"
    ),
    ("broad-except", "x-recall"): (
        "1/5: logfire's `except Exception: pass` around a git-hash lookup whose comment "
        "says git may be missing (⚠; a judgement call by the labeller) and a resource "
        "detector that warns and is skipped (⚠), modelscope's split discovery whose "
        'docstring declares "an empty set if discovery fails" (⚠) and ComfyUI\'s Rodin '
        "download retry that logs and returns the path of a file never downloaded (⚠)"
    ),
    ("any-annotation", "x-recall"): (
        "7/9 (6/8 before round AZ read pytest's `tmp_path` annotated `str`: logfire's, ✗ "
        "after the run; 5/8 before round AJ read a fixed-length tuple's None item: ComfyUI's "
        "`forward -> Tuple[torch.Tensor, dict]` returning `z, None`): logfire's test "
        "`SimpleNamespace` standing in for mkdocs' `Page`, passed to a function the test "
        "loads from a file path with mkdocs stubbed (⚠), and `_validate_or_warn -> "
        "ResponseT` returning `cast('ResponseT', data)` of data that failed validation "
        "(`: Any` ⚠)"
    ),
    ("any-annotation", "x-precision"): (
        "7/8 (6/7 before round AZ found logfire's `tmp_path: str`): ComfyUI's `timeout: "
        "int = None` that the body forwards to a function whose "
        "own parameter tests it, labelled '-' by the brief's reading 2 (forwarded only)"
    ),
    ("hot-copy", "w-precision"): (
        "1/2 (0/1 before round AJ read an encoder's layer loop: `CLIPEncoder.forward`'s "
        "per-layer clone, ✗ then, ⚠ now as labelled): ComfyUI's `d[k] = v.clone()` over "
        "a conditioning dict's items once before a training loop, labelled '-'"
    ),
}
_ZZZL_SEALED = (
    "sealed: labelled blind from bench/sweep_brief.md as of 49f1888 (unchanged since "
    "34a449d), first recorded with 49f1888 (round AJ's final code): ✗ recall 5/8, ✗ "
    "precision 5/6, ⚠ precision 44/46"
)
_ZZZL_FIGURES = {
    ("kwargs-lookup", "x-recall"): (
        "0/1: VLMEvalKit's Gemma4 `__init__(..., **kwargs)`, which stores the leftover "
        "keys in `self.kwargs` for a vLLM branch that reads only `max_new_tokens` "
        "(stored: passed on, no finding)"
    ),
    ("any-annotation", "x-recall"): (
        "5/7: SciDocBench's `eval_json_match(..., answer: dict)` whose body rebinds "
        "`answer` and then branches on a list (no finding), and inspect_ai's test "
        "`SimpleNamespace(input_tokens=42)` returned by a stub's `count_tokens` for "
        "anthropic's `MessageTokensCount` (⚠: the fake is returned by a method of a "
        "duck-typed stand-in, no parameter or attribute names the class)"
    ),
    ("any-annotation", "x-precision"): (
        "5/6: VLMEvalKit's `system_prompt: str = None` forwarded only to "
        "`BaseAPI.__init__`, labelled '-' by the brief's reading 2; a caller leaves the "
        "default, so the `str` annotation does not hold (mypy rejects it): ✗ kept"
    ),
    ("broad-except", "w-precision"): (
        "16/18: a CI script's two `except Exception as exc: return [f'failed ...: {exc}']` "
        "whose message becomes a reported difference before `sys.exit(1)`, labelled '-'"
    ),
}
_ZZZM_SEALED = (
    "sealed: labelled blind from bench/sweep_brief.md as of 6ca093b (unchanged since "
    "34a449d), first recorded with 6ca093b (round AK's final code): ✗ recall 1/19, ✗ "
    "precision 1/8, ⚠ precision 45/46"
)
_ZZZM_FIGURES = {
    ("any-annotation", "x-recall"): (
        "9/13 (7/13 before round AW read axlearn's two `SimpleNamespace` fakes bound to "
        "`ref_cfg` / `hf_encoder_cfg`, written in place of the `BertConfig(...)` the test "
        "built before, as transformers' `PretrainedConfig` by their `*cfg` slot; 6/12 "
        "before round AT read trulens' `args: tuple[Any]` unpacked with `*args`, "
        "labelled ✗ after the run; 0/12 as sealed; round AL reads trulens' six `-> float` "
        "methods returning "
        "`self.generate_score(...)`, annotated `-> float | tuple[float, dict]`): "
        "trulens' three fakes of google-genai's `GenerateContentResponse` "
        "and of its own `GoogleEndpoint` (⚠: a return value and an attribute the fake "
        "stands in for, no parameter or patch names the class), and `expected: "
        "List[float] = []` appended `row.get(...)` values that may be None"
    ),
    ("broad-except", "x-recall"): (
        "1/6: axlearn's replica-restart fan-out in a gRPC handler (⚠: the handler is "
        "not named as a request path), and bionemo's prefetch thread's silent "
        "`except Exception: self._prefetch_result = StopIteration()` in four synced "
        "copies (⚠: a data loader's background fetch is not a fail-fast path by name)"
    ),
    ("broad-except", "w-precision"): (
        "14/15: axlearn's TPU health check that logs, writes the error type and falls "
        "through to `sys.exit(-1)`, labelled '-' (the exit is after the `try`, not in "
        "the handler)"
    ),
}
_ZZZN_SEALED = (
    "sealed: labelled blind from bench/sweep_brief.md as of 027f774 (unchanged since "
    "34a449d), first recorded with 027f774 (round AL's final code): ✗ recall 1/17, ✗ "
    "precision 1/1, ⚠ precision 38/44"
)
_ZZZN_FIGURES = {
    ("any-annotation", "x-recall"): (
        "2/5 (1/5 before round AX read maxdiffusion's `q_idx: int` whose body calls "
        "`q_idx.new_ones(...)`; 0/5 as sealed; round AM reads `await asyncio.gather(...)` "
        "as a list: guardrails' `async_partial_validate -> Tuple[Any, dict]`): guardrails' "
        "local `call_log: Call = safe_get(..., 0)` whose default is None (a local "
        "annotation, no parameter or field), `pipeline: "
        "nnx.Module` given a plain `LTX2Pipeline` by its only caller (a caller's class is "
        "read for literals only) and `transformer_weight_name: str` given None from "
        '`lora_config.get("weight_name", [None] * n)` (no finding)'
    ),
    ("any-annotation", "w-precision"): (
        "17/18: guardrails' `def reset(self):`, moved from a deleted file with a changed "
        "body and labelled '-' by reading 8 (the sweep reads the function as new: its "
        "body is not the one moved)"
    ),
    ("broad-except", "x-recall"): (
        "1/9: guardrails' two `except Exception: pass` around the guard lookup in "
        "`upsert_guard`/`aupsert_guard` and the hub's `except Exception: continue` while "
        "resolving a validator, maxdiffusion's three `except Exception: pass` around the "
        "WAN pipelines' mesh lookup that silently disables the CFG-cache check and the "
        "LTX2 tuning handler that logs after turning VAE slicing off, numba-cuda's "
        "`_readenv` returning a callable default uncalled (⚠: path judgements no name "
        "the rule reads states)"
    ),
    ("broad-except", "w-precision"): (
        "15/16: numba-cuda's test runner helper that prints the traceback and sets exit "
        "code 1, labelled '-' (it hands the failure back to the parent process)"
    ),
    ("kwargs-lookup", "x-recall"): (
        "0/3: maxdiffusion's `LTX2AudioVideoGemmaTextEncoder.__init__(..., **kwargs)`, "
        "never read, twice (its base `nnx.Module` is flax's, not installed where the "
        "corpus is recorded: an unknown base leaves the override question open, no "
        'finding), and `kwargs.get("vmem_limit_bytes")`, a new key the change spells in '
        "two other files on dicts not named as kwargs (`user_block_sizes.get(...)`: ⚠)"
    ),
}
_ZZZO_SEALED = (
    "sealed: labelled blind from bench/sweep_brief.md as of 85dd498 (unchanged since "
    "34a449d), first recorded with 85dd498 (round AM's final code): ✗ recall 7/33, ✗ "
    "precision 7/15, ⚠ precision 36/42"
)
_ZZZO_FIGURES = {
    ("any-annotation", "x-recall"): (
        "12/20 (11/19 before round AX read SWE-bench's `pull: dict` read only by attribute, "
        "`pull.title`, labelled ✗ after the run; "
        "10/19 before round AT read SWE-bench's `-> tuple[str, str]` returning "
        "`text, all_hints_text`, a list built by `list()`; 6/19 as sealed; round AN reads a "
        "generator annotated with a builtin and "
        "the calls returning one, and a callee's tuple display as a tuple: SWE-bench's "
        "`get_all_loop`/`get_all_issues`/`get_all_pulls -> list`, `get_eval_reports_for_dir "
        "-> dict`): SWE-bench's `-> tuple[str, list[str]]` and two `-> tuple[str, str]` "
        "whose list holds (text, timestamp) tuples, a decoder layer's `forward` tuple whose "
        "second item is attention weights, two `dict[str, str]` holding `Path` values and "
        "two `str` parameters their callers give a `Path` (item types and a caller's "
        "values of another class are not read), and markitdown's local `stream_info: str "
        "| None = None` later bound to a `StreamInfo(...)` (a local annotation)"
    ),
    ("any-annotation", "x-precision"): (
        "12/18 (11/17 before round AX found a ✗ labelled after the run; 10/16 before "
        "round AT found a labelled ✗ more): SWE-bench's six implicit "
        "Optionals (`subprocess_args: dict = None` twice, "
        "`save_path: str = None`, `repo: str = None`, whose bodies test None while every "
        "caller passes a value, and `env: dict = None` twice, only forwarded to "
        "`subprocess.run`), labelled '-' by the brief's reading 2 (the sweep's None reading "
        "takes a body's None test, or a caller in the module leaving the default, alone)"
    ),
    ("any-annotation", "w-precision"): (
        "17/18: monarch's `_stop_worker_mesh(self, mesh: Any, ...)`, moved from another "
        "file with a parameter dropped, labelled '-' by reading 8 (its changed `def` line "
        "is not among the lines removed)"
    ),
    ("async-blocking", "x-recall"): (
        "0/1: markitdown's MCP tool `async def convert_to_markdown` returning "
        "`MarkItDown().convert_uri(uri).markdown`, whose blocking `requests` get is a "
        "method of a class of another module (not followed: no finding)"
    ),
    ("broad-except", "x-recall"): (
        "2/6 (0/6 as sealed; round AN reads a handler returning inside a retry "
        "package's decorator: SWE-bench's two `@retry` model-API calls): two bare "
        "`except:` falling back from a script's imports to the package's relative ones, "
        "the bm25 index worker's and the dataset load's bare `except:` (⚠: path "
        "judgements no name the rule reads states)"
    ),
    ("broad-except", "w-precision"): (
        "15/18: monarch's `_stop_worker_mesh` handler, moved with edits (reading 8), and "
        "two test probes whose `except BaseException as err:` returns the error's name "
        "for the test to assert, labelled '-' (the error goes to the assertion)"
    ),
    ("kwargs-lookup", "x-recall"): (
        "1/7: markitdown's `enable_builtins(**kwargs)` reading four keys new to it "
        "(`llm_prompt`, `docintel_credential`, `docintel_file_types`, "
        "`docintel_api_version`), labelled ✗ as init plumbing that drops unknown keys "
        "(`__init__` hands the same dict to `enable_plugins`, and `enable_builtins` is no "
        "init path by name: ⚠), and `keep_data_uris` read in `_CustomMarkdownify.__init__("
        "**options)` before `super().__init__(**options)` (read as markdownify's parameter: "
        "⚠) and from the stored `self.options` (no finding)"
    ),
}
_ZZZP_SEALED = (
    "sealed: labelled blind from bench/sweep_brief.md as of 86399ed (unchanged since "
    "34a449d), first recorded with 86399ed (round AN's final code): ✗ recall ten of 24, ✗ "
    "precision eleven of 32, ⚠ precision 42 of 43"
)
_ZZZP_FIGURES = {
    ("any-annotation", "x-recall"): (
        "6/15 (5/15 before round AY reads a body that ends in a call that returns: "
        "data-juicer's `calc_minhash -> pa.Table`, ending in `ray.get(result_refs)`): "
        "ultravox's `_forward -> List[int]` returning a tensor slice, `_generate("
        "inputs: torch.Tensor)` given a dict, three `gr.Chatbot` annotations over the chat "
        "history list, `chat_completion -> str` returning openai's Optional content and "
        "`eval_config: Optional[EvalConfig]` filled with `{}` by the change's defaults, "
        "data-juicer's `self.ast_tree: ast.Expression = None` (a stdlib class the None "
        "reading does not resolve) and aider's `SimpleNamespace(status_code=403, ...)` "
        "passed as litellm's `PermissionDeniedError(response=...)`, a class litellm's "
        "package root does not re-export by name"
    ),
    ("any-annotation", "x-precision"): (
        "7/21 (6/20 before round AY's `calc_minhash`): data-juicer's fourteen `save_dir: "
        "str = None` that the operators' "
        "`__init__` only store and hand to `transfer_filename`, labelled '-' by the "
        "brief's reading 2 (the labellers split on a parameter only handed on: set zzu "
        "marks it ✗)"
    ),
    ("broad-except", "x-precision"): (
        "1/3 (0/7 as sealed; round AO reads working defaults set before the `try`, a "
        "`try` introduced as best-effort and a function named for an attempt as complete "
        "fallbacks: aider's three Spinner probes in `__init__`, `Commands.__init__`'s "
        "realpath of a path already stored, data-juicer's `maybe_init_submodules`): "
        "aider's `_supports_unicode` and data-juicer's `is_notebook`, probes whose `return "
        "False` `__init__`/`setup_logger` reads, labelled ⚠ as display probes (sets y and "
        "zzw label such probes ✗)"
    ),
    ("broad-except", "w-precision"): (
        "13/14: data-juicer's `is_valid_tag` handler moved from conf.py to "
        "build_versions.py, '-' as a move"
    ),
    ("kwargs-lookup", "x-recall"): (
        "5/8: data-juicer's `prepare_yolo_model(model_path, **model_params)` and "
        "`prepare_embedding_model(...)` using only `device` (no fail-fast name: a "
        "`prepare_*` loader), and `EmbeddingAPIModel.__init__`'s `**kwargs` filtered "
        "down to what `openai.OpenAI` accepts by `filter_arguments`, a helper inspecting "
        "the signature (the rule reads a filter written in the function, against a "
        "class's fields)"
    ),
}
_ZZZQ_SEALED = (
    "sealed: labelled blind from bench/sweep_brief.md as of 5079e11 (unchanged since "
    "34a449d), first recorded with 5079e11 (round AO's final code): ✗ recall none of 11, "
    "✗ precision none of 8, ⚠ precision 23 of 24"
)
_ZZZQ_FIGURES = {
    ("any-annotation", "x-recall"): (
        "2/3 (0/3 as sealed; round AP reads a parameter the body handles as another "
        "builtin kind: llama-cpp-python's two `visit(n: dict)` walking lists): "
        "`prepare_request_resources(llama_proxy: LlamaProxy, ...)`, whose callers pass the "
        "module's `Optional[LlamaProxy]` and whose body tests it for None"
    ),
    ("any-annotation", "x-precision"): (
        "2/4 (0/2 as sealed): llama-cpp-python's two `BuiltinRule(deps: list = None)`, "
        "labelled '-' by the brief's reading 2 as every call passes a list (the split "
        "noted in round AN)"
    ),
    ("broad-except", "x-recall"): (
        "0/3: llama-cpp-python's grammar fallbacks, `except Exception` around "
        "`from_json_schema` carrying on with the generic JSON grammar in a chat "
        "handler (one re-raises when its flag is off), labelled ✗ as request handling; "
        "over every corpus such a fallback is labelled ⚠ far more often than ✗"
    ),
    ("kwargs-lookup", "x-precision"): (
        "0/1 (0/6 before round AQ read a method copying a repository `Protocol`'s "
        "signature with `**kwargs`: five of mteb's encoder wrappers, whose `__init__` "
        "starts with `EncoderProtocol.__init__`'s parameters): mteb's Bedrock wrapper, "
        "whose `__init__(model_id=..., region_name=..., **kwargs)` reads no key, labelled "
        "'-' because the loader passes every wrapper `revision=` and `device=` "
        "(lm-eval's registry-built models in set i, the same shape, are labelled ✗)"
    ),
    ("kwargs-lookup", "w-precision"): (
        '4/5: Fast-LLM\'s `kwargs["cache_position"]` of a `**kwargs: '
        "Unpack[BlockSequenceKwargs]`, labelled '-' as typed (sets zzze and zzzm label "
        "such reads ⚠, 29 to 2)"
    ),
}
_ZZZR_SEALED = (
    "sealed: labelled blind from bench/sweep_brief.md as of 293d196 (unchanged since "
    "34a449d), first recorded with 293d196 (round AP's final code): ✗ recall 9 of 27, "
    "✗ precision 9 of 11, ⚠ precision 28 of 30"
)
_ZZZR_FIGURES = {
    ("any-annotation", "x-recall"): (
        "17/26 (9/26 as sealed; round AQ reads a fake of one keyword by the fake it holds, "
        "graphiti's openai `ChatCompletion` and `Choice` fakes, and a parameter stored in "
        "`self.<attr>` and tested there in the same `__init__`): graphiti's "
        "`SimpleNamespace(output_text=...)` fakes of openai's `ParsedResponse` (a property "
        "of the model, no field) twice, a fake of `ParsedChatCompletionMessage` "
        "(`parsed=`) and the `ParsedChoice` holding it, `httpx.Response` handed to "
        "`openai.RateLimitError(response=...)` (a constructor the class inherits); "
        "fairchem's `regress_config=SimpleNamespace(direct_forces=True)` (a `@dataclass` "
        "the repository assigns to that attribute in modules the test never imports); "
        "speechbrain's `hx: Optional[bool]` handed a tensor and `adapter_class: "
        "nn.Module` called as a constructor; fairchem's `Literal` annotation under a "
        "`ty:ignore`"
    ),
    ("any-annotation", "x-precision"): (
        "17/19 (9/11 as sealed): speechbrain's `FetchConfig` fields `revision: str = None` "
        "and `huggingface_cache_dir: str = None`, labelled '-' as only stored and handed "
        "to `hf_hub_download` (the brief's reading 2; over every corpus a parameter only "
        "handed on is labelled ✗ 19 times and '-' 29 times)"
    ),
    ("kwargs-lookup", "x-recall"): (
        "0/1: speechbrain's `TorchAutocast.__init__(self, *args, **kwargs)`, which hands "
        "the dict to `torch.autocast` on one branch and drops it for a `nullcontext()` on "
        "the other (⚠ at its `dtype` read)"
    ),
}
_ZZZW_SEALED = (
    "sealed: labelled blind from bench/sweep_brief.md as of 9e9593d (the clarifications "
    "added after set zzzv), first recorded with a7d729c (round AU's final code): ✗ recall "
    "1 of 4, ✗ precision 1 of 1, ⚠ precision 24 of 24"
)
_ZZZW_FIGURES = {
    ("any-annotation", "x-recall"): (
        "2/4 (1/4 as sealed; round AV reads kornia's `mask = self.fix_mask(mask, "
        "reference_signal)`, the caller's own None default handed in before the call's "
        "assignment rebinds it): stable-baselines3's test callback whose `_on_step -> bool` "
        "returns a numpy bool and a tensor on purpose (judgement call), and "
        "`obs_space_info`'s re-added `return keys, shapes, dtypes  # type: ignore"
        "[return-value]` whose `keys`, declared `List[str]`, hold a Tuple space's int "
        "indices or None (the keys of a dict built per space kind)"
    ),
}
_ZZZX_SEALED = (
    "sealed: labelled blind from bench/sweep_brief.md as of 4c0c29b (the clarifications "
    "added after set zzzw), first recorded with d07cf35 (round AV's final code): ✗ recall "
    "36 of 89, ✗ precision 36 of 72, ⚠ precision 36 of 41"
)
_ZZZX_FIGURES = {
    ("any-annotation", "x-recall"): (
        "39/80 (34/80 as sealed; round AW reads TransformerLens' four transformers config "
        "fakes bound to `cfg` / `layer0_cfg` and chainlit's `spec: AskFileSpec = "
        "files_spec.get(ask_parent_id, None)` then `if not spec`): Gymnasium's 38 wrong "
        "annotations of its typing clean-up, judgement calls of deep types (`np.ndarray` "
        "where an env yields dicts or tuples for Dict/Tuple spaces, `ctx: ModuleType = mp` "
        "given a `multiprocessing` context, `rng: PRNGKey` naming jax's key-building "
        "function, a worker `Callable` of another arity, `Space[dict[str, Space]]` as the "
        "sample type), TransformerLens' two fakes of Tracr dataclasses (Tracr is no wheel "
        "on PyPI: not installed for the record) and `return SimpleNamespace(**values)` "
        "patched over `AutoConfig.from_pretrained` (no keywords to read)"
    ),
    ("broad-except", "x-recall"): (
        "2/7: chainlit's request-path catches that fall back to a default (`metadata = {}` "
        "after `json.loads`, `user_can_view = False` around a user callback, a stored URL, "
        "a Slack bot id of None; ⚠: a default on a request path is no fail-fast path by "
        "name)"
    ),
    ("async-blocking", "x-recall"): (
        "0/2: chainlit's boto3 DynamoDB `self.client.query(...)` in `async def` data-layer "
        "methods (⚠ since round AX reads a synchronous SDK client's request: "
        "`chainlit/data/` is no serving path)"
    ),
}
_ZZZY_SEALED = (
    "sealed: labelled blind from bench/sweep_brief.md as of 5236dfd (the clarifications "
    "added after set zzzx), first recorded with 84fa7f3 (round AW's final code): ✗ recall "
    "1 of 18, ✗ precision 1 of 1, ⚠ precision 44 of 44"
)
_ZZZY_FIGURES = {
    ("any-annotation", "x-recall"): (
        "3/8 (2/8 before round AZ read parametrize rows: dataset-viewer's `expected_pems: "
        "list[str]` given None; 1/8 as sealed; round AX reads tritonparse's `entry: str` whose body calls "
        "`entry.setdefault(...)`): dataset-viewer's three test fakes of `datasets` "
        "dataclasses (`DatasetModule`, `BuilderConfigsParameters`, `BuilderConfig`; "
        "`datasets` is pinned to a git commit, no wheel: not installed for the record, ⚠), a "
        "test's `expected_pems: list[str]` given None by two parametrize rows (a judgement "
        "call), `MediaColumn.open -> Union[io.BytesIO, nullcontext[None]]` whose "
        "`# type: ignore`d branch returns datasets' `xopen` file, and "
        "`_infer_file_extension`'s container items its caller's table does not hold (item "
        "types are not read)"
    ),
    ("broad-except", "x-recall"): (
        "0/7: OpenEnv's three copies of `_json_safe`, `except Exception: pass` around "
        "`tolist()` and `item()` before a `str(value)` fallback, on the env servers' step "
        "path (a conversion probe with a fallback: ⚠; labelled ✗ as a judgement call), and "
        "the chat env's `_tokenize_conversation`, whose comment says the catch is the "
        "fallback for tokenizers without a chat template (⚠)"
    ),
    ("async-blocking", "x-recall"): (
        "1/3 (0/3 as sealed; round AY reads an old await the change moves under an old "
        "lock, and the coroutines of a serving path's module as request-path callers: "
        "5dabb5ab moves the lock outward over `await index_path.is_file()`, and "
        "`routes/search.py`'s endpoint awaits the builder): dataset-viewer's two commits "
        "that only edit the lock statement around the awaits it held before (narrowed to "
        "one lock per index file; re-indented into a `try` with a timeout): an edited lock "
        "is not a new one"
    ),
}
_ZZZZ_SEALED = (
    "sealed: labelled blind from bench/sweep_brief.md as of 5236dfd (the clarifications "
    "added after set zzzx), first recorded with c843110 (round AX's final code): ✗ recall "
    "9 of 27, ✗ precision 9 of 10, ⚠ precision 44 of 44"
)
_ZZZZ_FIGURES = {
    ("any-annotation", "x-recall"): (
        "10/21 (9/21 as sealed; round AY reads a body that ends in a call that returns: "
        "RD-Agent's `extract_tar(...) -> str` over `tar.extractall(...)`): RD-Agent's "
        "wrong annotations found by reading (`get_sort_key_without_decision -> "
        "Tuple[bool, float]` returning a float local, `timedelta_to_str -> str` returning "
        "its `timedelta | None` parameter after an `isinstance` branch, "
        "`UserInstructions | None` given the UI's JSON list, `hypothesis_candidates: "
        "list[str]` given hypothesis objects, `from trace import Trace` naming the "
        "standard library's tracer, a `bool` field its own validator lets None through, a "
        "float stored into `score: str | None`) and MONAI's (`config_file: str | None` "
        "given dicts by test callers, `-> tuple[tuple]` over `ensure_tuple(centers)`)"
    ),
    ("kwargs-lookup", "x-recall"): (
        "0/3: MONAI's `_get_latest_bundle_version(..., **kwargs: Any)` reading only "
        "`headers` (no fail-fast name: a version look-up the labeller read as the "
        "bundle download path) and RD-Agent's two scheduler `__init__(..., *args, "
        "**kwargs)` whose every sibling class leaves `**kwargs` unused (the family's "
        "catch-all: ⚠)"
    ),
}
_ZZZZA_SEALED = (
    "sealed: labelled blind from bench/sweep_brief.md as of df4f10c (the clarifications "
    "added after set zzzz), first recorded with 9861080 (round AY's final code): ✗ recall "
    "10 of 51, ✗ precision 10 of 18, ⚠ precision 41 of 42"
)
_ZZZZA_FIGURES = {
    ("any-annotation", "x-recall"): (
        "13/27 (5/27 as sealed; round AZ reads parametrize rows, a test parameter annotated "
        "as its yield fixture's generator, `tmp_path: str` and FastAPI's `Form(None)`): "
        "MLServer's gRPC interceptor typed for requests where responses pass (six lines), "
        "`-> List[MLModel]` over `chain.from_iterable(...)  # type: ignore`, a test call "
        "passing `True` to an old `ssl_verify_path: str`; GenAIComps' `-> bool | dict` / "
        "`-> bool | list` stores returning id strings, the prompt template's "
        "`con_history: List[...]` given an Optional field, the openGauss retriever's "
        "`input: EmbedDoc` given the route's Union through its loader; feast's test "
        "`SimpleNamespace` of `BaseFeatureServerConfig` and `MetricsConfig`"
    ),
    ("broad-except", "x-recall"): (
        "7/18 (3/18 as sealed; round AZ reads a check that fails open, feast's protected "
        "project `teardown`/`delete_project`, a helper only routes call giving up with "
        "`return {}`, and a cleanup `try` inside a logging handler of "
        "`_initialize_clients`): feast's lineage app's RBAC look-ups that fail open into "
        "None, its registry server's start-up sync reading every error as 'no project'; "
        "GenAIComps' store reads (`aget_document_by_id` logs and returns None), the MCP "
        "manager's tool extraction reached from `create`, the finetuning handler's token "
        "read, the paraformer's `transcribe`, the neo4j summary placeholder, the "
        "openGauss health check leaving the config half set (each reached from a route "
        "or a set-up in another module, or through a method of another class)"
    ),
    ("kwargs-lookup", "x-recall"): (
        "2/3: GenAIComps' `BaseAgent.__init__(self, args, tools_descriptions=None, "
        "local_vars=None, **kwargs)`, a parameter added to a signature whose old body "
        "reads only `custom_prompt` (the drop predates the change: no finding; a reading "
        "of it tried in round AZ found two such signatures labelled '-' or unlabelled "
        "and was backed out)"
    ),
    ("async-blocking", "x-recall"): (
        "0/3: MLServer's `_worker_starting_lock` held across a gather of model loads "
        "(⚠: the dispatcher's module is no serving path; the load request reaches it "
        "through the model registry's methods), feast's PyJWKClient key fetch in a sync "
        "helper an `async def` calls, and GenAIComps' `AsyncHtmlLoader.load()` reached "
        "through two helpers of a dataprep route"
    ),
    ("async-blocking", "w-precision"): (
        "1/2: GenAIComps' `requests.get` in `async def validate_svc`, a test's branch "
        "moved into a file of its own and dedented (labelled '-' as a move; the sweep "
        "reads moved code indented alike only)"
    ),
}
_ZZZV_SEALED = (
    "sealed: labelled blind from bench/sweep_brief.md as of 05f3451 (the clarifications "
    "added after set zzzu), first recorded with 138c8cb (round AT's final code): ✗ recall "
    "6 of 14, ✗ precision 6 of 9, ⚠ precision 32 of 36"
)
_ZZZV_FIGURES = {
    ("any-annotation", "x-recall"): (
        "7/12 (6/12 as sealed; round AU reads sentry's `messages: \"Union[str, "
        'SequenceNotStr[str], ...]" = kwargs.get("input")` later tested for None): '
        "evidently's `Dict[str, Dict[int, Union[float, str]]]` given datetimes through "
        "an `Any`-returning helper, its `not_eq(expected: ThresholdType)` that an added "
        "`isinstance` branch and its callers' strings contradict; sentry's two Django "
        "handlers annotated `WSGIRequest` that the ASGI handler also calls, and a "
        "classmethod's `cls` annotated as an instance `agents.Runner`"
    ),
    ("any-annotation", "x-precision"): (
        "7/9: pytorch_geometric's fake `config` read as transformers' `PreTrainedConfig` "
        "(labelled ⚠ as a plain class; 27 such fakes in other sets are labelled ✗), and "
        "evidently's `show_service(self, page: ServicePage = None)` that hands `page` to a "
        "method testing `page or ServicePage()` (labelled '-': the body only forwards it)"
    ),
    ("broad-except", "x-recall"): (
        "0/1: evidently's `is_service_running` readiness probe, `except Exception: pass` "
        "(⚠; labelled ✗ as a judgement call on the service's start-up path)"
    ),
    ("kwargs-lookup", "x-recall"): (
        "0/1: evidently's new `ColumnMetricGenerator.__init__(..., **kwargs)` that stores "
        "the dict and later splats it into a pydantic metric ignoring unknown fields (the "
        "dict is passed on here; labelled ✗ as a judgement call)"
    ),
}
_ZZZU_SEALED = (
    "sealed: labelled blind from bench/sweep_brief.md as of 248313a (the clarifications "
    "added after set zzzt), first recorded with 1c252fd (round AS's final code): ✗ recall "
    "0 of 19, ✗ precision 0 of 1, ⚠ precision 27 of 30"
)
_ZZZU_FIGURES = {
    ("any-annotation", "x-recall"): (
        "4/14 (0/14 as sealed; round AT reads a tuple return's item of another kind, None "
        "written into an old return under an uninstalled class, a subclass's "
        "`super().__init__` handing on its None default, and a fake given to a model class "
        "a package `__init__` re-exports): botorch's `-> dict[str, Any]` built with int "
        "keys, `-> Sequence[int]` returning a `list[float]`, `np.NDArray` (no such numpy "
        "name), a dataclass field given a plain `AcquisitionFunction`, `-> OptimizeResult` "
        "returning a 3-tuple, and a test's tuple item made a dict on its binding line; "
        "autogen's `TypeGuard[list[...]]` over `isinstance(obj, list)` twice (a judgement "
        "call) and two nested azure-ai-agents fakes whose keywords fit no one model"
    ),
    ("any-annotation", "w-precision"): (
        "14/15: phoenix's `set_sqlite_pragma(connection: Connection, _: Any)`, "
        "byte-identical to a removed line, labelled '-' as a diff-alignment artifact (the "
        "brief since says the `-U0` diff decides, where the line is added)"
    ),
    ("broad-except", "x-recall"): (
        "0/1: autogen's `_create_default_code_executor`, called from `MagenticOne.__init__`, "
        "whose `except Exception: pass` under the comment `# Fallback to local if Docker "
        "fails to initialize` falls through to a warned local executor (⚠: a commented "
        "fallback; labelled ✗ as a judgement call on the init path)"
    ),
    ("kwargs-lookup", "x-recall"): (
        '0/4: autogen\'s reads of the new `"include_name_in_message"` key in two client '
        "constructors whose `**kwargs: Unpack[...]` TypedDict declares it (⚠ by design: a "
        "type checker checks the key; the brief since settles typed `**kwargs` as ⚠)"
    ),
}
_ZZZT_SEALED = (
    "sealed: labelled blind from bench/sweep_brief.md as of 68ddc68 (the clarifications "
    "added after set zzzs), first recorded with 1214cc4 (round AR's final code): ✗ recall "
    "22 of 46, ✗ precision 22 of 26, ⚠ precision 34 of 39"
)
_ZZZT_FIGURES = {
    ("any-annotation", "x-recall"): (
        "34/45 (22/45 as sealed; round AS reads comprehensions of fakes, SQLModel records, "
        "`namedtuple` as a type and `.item()` under an array annotation): gpustack's fakes "
        "of a `PaginatedList` return through a mocked client, of a `WorkloadStatus` "
        "handed to an unannotated parameter, of `Cluster` rows a patched unannotated "
        "`Cluster.all()` returns through a test helper, of `GPUDeviceStatus` elements "
        "through a helper and `parametrize`, of a `BackendRunner` returned by a patched "
        "function annotated with a union, of the model record an unannotated attribute "
        "holds; optuna's `list[np.ndarray]` given 1-tuples through `args_list` twice, an "
        "`np.ndarray` parameter given `[0]`, and a test's `type[...]` parameter given "
        "lambdas through a `parametrize` list twice"
    ),
    ("any-annotation", "w-precision"): (
        "16/17: gpustack's harness `SimpleNamespace(subscribe=AsyncMock(), ...)` that "
        "bundles the test's mocks and is never handed to the code under test, labelled "
        "'-' (a judgement call the brief leaves open)"
    ),
    ("broad-except", "x-recall"): (
        "0/1: FlagScale's `extract_actions_from_tokens`, a method of another module that "
        "the Flask `/infer` route calls, logging and substituting a zero action chunk per "
        "token (⚠: the rule reads a route's private helpers in its own module only)"
    ),
}
_ZZZS_SEALED = (
    "sealed: labelled blind from bench/sweep_brief.md as of d018728 (unchanged since "
    "34a449d), first recorded with d018728 (round AQ's final code): ✗ recall 11 of 35, "
    "✗ precision 11 of 11, ⚠ precision 40 of 41; one site labelled after the run"
)
_ZZZS_FIGURES = {
    ("any-annotation", "x-recall"): (
        "12/19 (6/19 as sealed; round AR reads a local left None unless an `if` runs, a "
        "fall-off under a class from an absent package, a `lambda` as a type and a FastAPI "
        "dependency's Optional): ChatLearn's `Tuple[BaseModule]` annotating the "
        "variable-length `*models` tuple twice, a `List[Dict[str, Any]]` parameter given "
        "replay-buffer objects, `Dict[str, ShardedTensorInfo]` keyed by int ids, "
        "`List[Tuple[str, torch.Tensor]]` given sglang's `LocalSerializedTensor` dataclass, "
        "Megatron's `moe_freq_type` parser function named in a string annotation under "
        "`TYPE_CHECKING` (Megatron not installed); nncf's test dataclass `ref: set[str]` "
        "built with ints"
    ),
    ("broad-except", "x-recall"): (
        "2/11: openhands' `except Exception: pass` / `return False` after a handler of "
        "`ValueError, TypeError` (errors a bug raises too) in route helpers, twice; a "
        "sandbox pause loop whose comment says why it goes on; the `pwsh --version` probes "
        "of a search over candidates, twice; a local `.env` generator script's "
        "print-and-continue, twice; ChatLearn's package `__init__` printing the traceback "
        "of its own imports under a comment saying why (Sphinx); nncf's `_maybe_*` probe "
        "of the OpenVINO version (a name for an attempt)"
    ),
    ("kwargs-lookup", "x-recall"): (
        "1/2: ChatLearn's `VLLMModule.__init__` re-signed from `(*args, **kwargs)` to named "
        "parameters and `**kwargs`: the keys it reads and drops are the old function's, "
        "so the drop is not the change's"
    ),
}
_ZZZA_FIGURES = {
    ("kwargs-lookup", "x-recall"): (
        "1/4 (0/4 before round AB read a loop popping the keys it names as passing nothing "
        "on: Daytona's sandbox): rllm's `**kwargs` that three `__init__`s never read "
        "(VerlEngine, whose signature line the change re-adds for an annotation; a "
        "cookbook's `Solver` and `Judge`)"
    ),
    ("kwargs-lookup", "x-precision"): (
        "1/3 (1/4 before round AF read `init_rollout_engine` as the backend interface's "
        "catch-all): rllm's reads of a key only one file reads (`hooks`, twice) "
        "inside an `__init__` that drops unknown keys, labelled ⚠ at the read "
        "(the labeller split on a new key read inside a dropping function, which the brief "
        "settles as ✗ from set zzzb on)"
    ),
    ("kwargs-lookup", "w-precision"): (
        '11/12: atropos\'s `kwargs.pop("model", None)`, whose value is thrown away: a '
        "deletion, '-' by the set's labeller"
    ),
    ("broad-except", "x-recall"): (
        "1/6: quack's three `except Exception: pass` around pinning the compile pool's GPU "
        "architecture (a forkserver preload, an executor's arch probe, a worker initializer), "
        "rllm's readiness poll of a sandbox and a training run's dataset-entry resolver, none "
        "under a name the rule reads as fail-fast (⚠)"
    ),
    ("broad-except", "x-precision"): (
        "1/2: rllm's logged handler moved with its function from another file in the same "
        "commit (re-indented, `config` renamed `self.config`), '-' as a move"
    ),
    ("any-annotation", "x-recall"): (
        "12/14: rllm's `__iter__(self) -> Iterator[list[dict[str, Any]]]` and "
        "`interleave_tasks(batch: list[dict], ...)`, whose data are `Task` objects a caller "
        "several modules away builds"
    ),
}

for _name, _cells, _when in (
    ("e", _E_FIGURES, _EF_SEALED),
    ("f", _F_FIGURES, _EF_SEALED),
    ("g", _G_FIGURES, _GH_SEALED),
    ("h", _H_FIGURES, _GH_SEALED),
    ("i", _I_FIGURES, _IJK_SEALED),
    ("j", _J_FIGURES, _IJK_SEALED),
    ("k", _K_FIGURES, _IJK_SEALED),
    ("l", _L_FIGURES, _LMN_SEALED),
    ("m", _M_FIGURES, _LMN_SEALED),
    ("n", _N_FIGURES, _LMN_SEALED),
    ("o", _O_FIGURES, _OP_SEALED),
    ("p", _P_FIGURES, _OP_SEALED),
    ("q", _Q_FIGURES, _QRS_SEALED),
    ("r", _R_FIGURES, _QRS_SEALED),
    ("s", _S_FIGURES, _QRS_SEALED),
    ("t", _T_FIGURES, _TU_SEALED),
    ("u", _U_FIGURES, _TU_SEALED),
    ("v", _V_FIGURES, _VWXY_SEALED),
    ("w", _W_FIGURES, _VWXY_SEALED),
    ("x", _X_FIGURES, _VWXY_SEALED),
    ("y", _Y_FIGURES, _VWXY_SEALED),
    ("z", _Z_FIGURES, _ZZA_SEALED),
    ("za", _ZA_FIGURES, _ZZA_SEALED),
    ("zb", _ZB_FIGURES, _ZZA_SEALED),
    ("zc", _ZC_FIGURES, _ZC_SEALED),
    ("zd", _ZD_FIGURES, _ZDE_SEALED),
    ("ze", _ZE_FIGURES, _ZDE_SEALED),
    ("zf", _ZF_FIGURES, _ZFG_SEALED),
    ("zg", _ZG_FIGURES, _ZFG_SEALED),
    ("zh", _ZH_FIGURES, _ZHI_SEALED),
    ("zi", _ZI_FIGURES, _ZHI_SEALED),
    ("zj", _ZJ_FIGURES, _ZJK_SEALED),
    ("zk", _ZK_FIGURES, _ZJK_SEALED),
    ("zl", _ZL_FIGURES, _ZLM_SEALED),
    ("zm", _ZM_FIGURES, _ZLM_SEALED),
    ("zn", _ZN_FIGURES, _ZNO_SEALED),
    ("zo", _ZO_FIGURES, _ZNO_SEALED),
    ("zp", _ZP_FIGURES, _ZPQ_SEALED),
    ("zq", _ZQ_FIGURES, _ZPQ_SEALED),
    ("zr", _ZR_FIGURES, _ZRS_SEALED),
    ("zs", _ZS_FIGURES, _ZRS_SEALED),
    ("zt", _ZT_FIGURES, _ZTU_SEALED),
    ("zu", _ZU_FIGURES, _ZTU_SEALED),
    ("zv", _ZV_FIGURES, _ZVWX_SEALED),
    ("zw", _ZW_FIGURES, _ZVWX_SEALED),
    ("zx", _ZX_FIGURES, _ZVWX_SEALED),
    ("zy", _ZY_FIGURES, _ZYZ_SEALED),
    ("zz", _ZZ_FIGURES, _ZYZ_SEALED),
    ("zza", _ZZA_FIGURES, _ZYZ_SEALED),
    ("zzb", _ZZB_FIGURES, _ZZBCD_SEALED),
    ("zzc", _ZZC_FIGURES, _ZZBCD_SEALED),
    ("zzd", _ZZD_FIGURES, _ZZBCD_SEALED),
    ("zze", _ZZE_FIGURES, _ZZEFG_SEALED),
    ("zzf", _ZZF_FIGURES, _ZZEFG_SEALED),
    ("zzg", _ZZG_FIGURES, _ZZEFG_SEALED),
    ("zzh", _ZZH_FIGURES, _ZZHIJ_SEALED),
    ("zzi", _ZZI_FIGURES, _ZZHIJ_SEALED),
    ("zzj", _ZZJ_FIGURES, _ZZHIJ_SEALED),
    ("zzk", _ZZK_FIGURES, _ZZKLM_SEALED),
    ("zzl", _ZZL_FIGURES, _ZZKLM_SEALED),
    ("zzm", _ZZM_FIGURES, _ZZKLM_SEALED),
    ("zzn", _ZZN_FIGURES, _ZZNOP_SEALED),
    ("zzo", _ZZO_FIGURES, _ZZNOP_SEALED),
    ("zzp", _ZZP_FIGURES, _ZZNOP_SEALED),
    ("zzq", _ZZQ_FIGURES, _ZZQRS_SEALED),
    ("zzr", _ZZR_FIGURES, _ZZQRS_SEALED),
    ("zzs", _ZZS_FIGURES, _ZZQRS_SEALED),
    ("zzt", _ZZT_FIGURES, _ZZT_SEALED),
    ("zzu", _ZZU_FIGURES, _ZZU_SEALED),
    ("zzv", _ZZV_FIGURES, _ZZV_SEALED),
    ("zzw", _ZZW_FIGURES, _ZZW_SEALED),
    ("zzx", _ZZX_FIGURES, _ZZX_SEALED),
    ("zzy", _ZZY_FIGURES, _ZZY_SEALED),
    ("zzz", _ZZZ_FIGURES, _ZZZ_SEALED),
    ("zzza", _ZZZA_FIGURES, _ZZZA_SEALED),
    ("zzzb", _ZZZB_FIGURES, _ZZZB_SEALED),
    ("zzzc", _ZZZC_FIGURES, _ZZZC_SEALED),
    ("zzzd", _ZZZD_FIGURES, _ZZZD_SEALED),
    ("zzze", _ZZZE_FIGURES, _ZZZE_SEALED),
    ("zzzf", _ZZZF_FIGURES, _ZZZF_SEALED),
    ("zzzg", _ZZZG_FIGURES, _ZZZG_SEALED),
    ("zzzh", _ZZZH_FIGURES, _ZZZH_SEALED),
    ("zzzi", _ZZZI_FIGURES, _ZZZI_SEALED),
    ("zzzj", _ZZZJ_FIGURES, _ZZZJ_SEALED),
    ("zzzk", _ZZZK_FIGURES, _ZZZK_SEALED),
    ("zzzl", _ZZZL_FIGURES, _ZZZL_SEALED),
    ("zzzm", _ZZZM_FIGURES, _ZZZM_SEALED),
    ("zzzn", _ZZZN_FIGURES, _ZZZN_SEALED),
    ("zzzo", _ZZZO_FIGURES, _ZZZO_SEALED),
    ("zzzp", _ZZZP_FIGURES, _ZZZP_SEALED),
    ("zzzq", _ZZZQ_FIGURES, _ZZZQ_SEALED),
    ("zzzr", _ZZZR_FIGURES, _ZZZR_SEALED),
    ("zzzs", _ZZZS_FIGURES, _ZZZS_SEALED),
    ("zzzt", _ZZZT_FIGURES, _ZZZT_SEALED),
    ("zzzu", _ZZZU_FIGURES, _ZZZU_SEALED),
    ("zzzv", _ZZZV_FIGURES, _ZZZV_SEALED),
    ("zzzw", _ZZZW_FIGURES, _ZZZW_SEALED),
    ("zzzx", _ZZZX_FIGURES, _ZZZX_SEALED),
    ("zzzy", _ZZZY_FIGURES, _ZZZY_SEALED),
    ("zzzz", _ZZZZ_FIGURES, _ZZZZ_SEALED),
    ("zzzza", _ZZZZA_FIGURES, _ZZZZA_SEALED),
):
    for (_rule, _metric), _why in _cells.items():
        for _reading in ("blind", "post-run"):
            KNOWN_GAPS[(_name, _reading, _rule, _metric)] = f"{_why} ({_when})"
KNOWN_GAPS[("zzzz", "blind", "async-blocking", "x-recall")] = (
    "1/3 blind, 1/1 post-run (0/3 as sealed; round AY reads a module-level `async def` "
    "that a route of another module awaits as on the request path: dstack's gateway "
    "registry lock in `set_service_id`): dstack's two retry sleeps of `delete_fleets`, "
    "old awaits under the old fleet and instance locks that the change re-indents under "
    "an `if` (the last attempt no longer sleeps), labelled ✗ blind, '-' after the run by "
    f"the brief's clarification after set zzzz ({_ZZZZ_SEALED})"
)
KNOWN_GAPS[("zx", "blind", "any-annotation", "x-precision")] = (
    "1/2: streaming's `test_validate_checksum(local_remote_dir: Any, ..., compression: "
    "str)`, whose `compression` a parametrize row gives None (✗ since round AZ), on a "
    "line labelled '-' blind for its `Any` and ✗ post-run "
    f"({_ZVWX_SEALED})"
)
for _metric, _figure in (("x-recall", "0/3"), ("x-precision", "0/3")):
    KNOWN_GAPS[("y", "blind", "kwargs-lookup", _metric)] = (
        f"{_figure}: outlines' three `__init__(self, **kwargs)` reading only `tokenizer` "
        "(dropped keys), labelled ✗ at the read; the sweep gives the ✗ on the `def` line and "
        "⚠ at the read (post_run: placement only, 3/3) " + f"({_VWXY_SEALED})"
    )
# Round AF reads an override of a base method that itself takes ``**kwargs`` as the
# interface's catch-all: optimum-nvidia's two ``_from_pretrained(**model_kwargs)`` drops
# (huggingface_hub's ``ModelHubMixin`` hook) are ⚠ now, and read ⚠ after the run.
KNOWN_GAPS[("zzf", "blind", "kwargs-lookup", "x-recall")] = KNOWN_GAPS[
    ("zzf", "post-run", "kwargs-lookup", "x-recall")
] = (
    "3/7 blind, 3/5 post-run (1/7 and 1/5 before round AH counted a spelling in a sibling "
    'package of a change of one piece: helm\'s new `"split"` key, twice; 3/7 before round '
    "AF; 1/7 before round AB put a dropped-keys "
    "✗ on the `**kwargs` line): optimum-nvidia's two `_from_pretrained(**model_kwargs)` "
    "drops, labelled ✗ blind, whose signature huggingface_hub's `ModelHubMixin` fixes (⚠ "
    'after the run); helm\'s third read of `"split"`, from the stored `self.kwargs` (no '
    "finding); "
    "optimum-nvidia's third `_from_pretrained(**model_kwargs)`, which forwards the dict to "
    "a helper that pops (" + _ZZEFG_SEALED + ")"
)
KNOWN_GAPS[("zzf", "blind", "any-annotation", "x-recall")] = (
    "10/16 blind, 10/11 post-run (10/15 blind before round AB reported whisper's wrong return "
    "on its `->` line, not the `def` line labelled blind; 6/11 and 6/7 before round Z read "
    "`np.array` written as a "
    "type: four such annotations of optimum-nvidia's weight converters, labelled ✗ after "
    "the run; 4/10 and 4/7 before round U read `-> Path` over a rewritten signature): "
    '`has_moe(self) -> bool` returning `getattr(self, "moe_num_experts", 1)`, and four '
    "wrong returns labelled on a signature line after the `def` line they are reported on "
    f"(post_run '-' on the duplicates) ({_ZZEFG_SEALED})"
)
for _name, _figure, _site, _when in (
    ("b", "41/46", "vllm-gaudi's `deepseek_v2` wrong return", ""),
    ("zf", "5/6", "optimum-intel's `openvino/utils.py` wrong return", _ZFG_SEALED),
):
    KNOWN_GAPS[(_name, "blind", "any-annotation", "x-recall")] = (
        f"{_figure} blind, all post-run: {_site}, labelled blind at its multi-line "
        "signature's `def` line before the brief fixed the site on the line carrying `->`, "
        "where the sweep reports it since round AB (labelled there after the run; post_run "
        "'-' on the `def` line: placement, same verdict)" + (f" ({_when})" if _when else "")
    )
# h's any-annotation ✗ recall meets its target since round AT (9/10: lorax's
# `weight_names: Tuple[str]` looped over, labelled ✗ after the run; the one miss left is
# fastchat's `conv_template: str = None`, moved verbatim into `base_model_worker.py`).
for _rule, _figure, _site in (
    (
        "broad-except",
        "3/4",
        "lorax's `except Exception: pass` of `FlashCausalLM.__init__`, moved verbatim from "
        "`flash_llama.py`",
    ),
):
    KNOWN_GAPS[("h", "blind", _rule, "x-recall")] = (
        f"{_figure} blind, all post-run: {_site}, labelled ✗ blind; the sweep leaves code "
        "moved from another file of the change out since round AD (post_run '-' by the "
        f"brief's reading 8, settled after this set was labelled) ({_GH_SEALED})"
    )
KNOWN_GAPS[("n", "blind", "kwargs-lookup", "x-recall")] = (
    "0/4 blind, no ✗ post-run: megatron 7afe0319's two copies of a test container's "
    "`__init__` reading the new keys `kwargs.get(\"moe_dispatch_fwd_dtype\", 'bf16')` and "
    '`"moe_combine_bwd_dtype"`, labelled ✗ blind before the brief kept the kwargs ✗ to '
    "production code; ⚠ since round AW, as set zzzx's labeller read 33 such reads of "
    f"copied test helpers (post_run ⚠ by that clause) ({_LMN_SEALED})"
)
KNOWN_GAPS[("zzm", "blind", "any-annotation", "x-recall")] = (
    "4/7 blind, all post-run (6/7 before round AD: ragas' two `**kwargs: t.Dict[str, t.Any]`, "
    "labelled ✗ blind, moved verbatim from `llm_based.py` in the same commit, which the "
    "sweep leaves out: post_run '-' by the brief's reading 8): Qwen-Agent's `llm/base.py` "
    "wrong return, labelled blind at its multi-line signature's `def` line before the brief "
    "fixed the site on the line carrying `->` (post_run '-' there: placement, same verdict) "
    f"({_ZZKLM_SEALED})"
)
KNOWN_GAPS[("zz", "blind", "kwargs-lookup", "x-precision")] = (
    '5/9 blind, 9/9 post-run: four reads of the new `"extra_body"` labelled ⚠ blind and ✗ '
    f"after the run ({_ZYZ_SEALED})"
)
for _name, _figure, _sites, _when in (
    ("a", "2/4", "diffusers' two new `lora_state_dict(cls, ..., **kwargs)`", ""),
    ("e", "1/2", "torchtune's rewritten `DiskLogger.__init__(..., **kwargs)`", _EF_SEALED),
):
    KNOWN_GAPS[(_name, "blind", "kwargs-lookup", "x-recall")] = (
        f"{_figure} blind, all post-run: {_sites}, labelled blind at the multi-line "
        "signature's `def` line before the brief fixed the site on the line declaring "
        "`**kwargs`, where the sweep reports it since round AB (labelled there after the "
        "run; post_run '-' on the `def` line: placement, same verdict)"
        + (f" ({_when})" if _when else "")
    )
KNOWN_GAPS[("zz", "blind", "broad-except", "x-precision")] = (
    "0/1: a bare `except:` in `LlamaCppEngine.__init__`, labelled ⚠ blind (a comment "
    "above the `try` says why) and ✗ after the run (post_run: the comment is not in the "
    f"handler; 1/1) ({_ZYZ_SEALED})"
)
KNOWN_GAPS[("ze", "blind", "hot-copy", "x-recall")] = (
    "14/20: six `)[0].clone()` of the Wan transformer's noise prediction in the denoising "
    "loop hold two sites each, the blind one at the `.clone()` line and one labelled after "
    "the run at the statement's first line, where the sweep reported them then; it reports "
    "them at the `clone` line since 6e4b89e (post_run '-' on the second site: 14/14; "
    "the same fix took away two ✗ on statements whose first line only was rewritten) "
    + f"({_ZDE_SEALED})"
)
KNOWN_GAPS[("zzm", "blind", "async-blocking", "w-precision")] = (
    "0/2: ragas examples' synchronous helpers calling `urlretrieve`, themselves called "
    "from an `async def`, labelled '-' blind and ⚠ after the run (post_run: the caller "
    f"is async; 2/2) ({_ZZKLM_SEALED})"
)
KNOWN_GAPS[("o", "blind", "any-annotation", "x-precision")] = (
    "6/7 (3/4 before round I found the three `CompletedProcess` fakes a patched "
    "replacement returns through a local variable): an empty `SimpleNamespace()` standing "
    "in for dspy's session parameter typed with the Protocol `_MCPToolClient`, labelled ⚠ "
    "blind as a service fake and ✗ after the run (post_run: the seed names Protocol; 7/7) "
    + f"({_OP_SEALED})"
)

# Cells below target in the blind reading only: the mocks labelled ✗ blind read '-' after
# the run (round W's settled convention), which meets the target.
for _name, _why, _when in (
    ("i", _I_BLIND_RECALL, _IJK_SEALED),
    ("m", _M_BLIND_RECALL, _LMN_SEALED),
    (
        "p",
        "2/4 blind, 2/2 post-run (round Y's `meta: Optional[Dict[str, any]]`, labelled ✗ after "
        "the run, one more found): two llm-foundry `mock_stat = MagicMock()` given `st_size` / "
        "`st_mode` and patched in as the return of `os.stat`, " + _MOCKS_SETTLED,
        _OP_SEALED,
    ),
    (
        "za",
        "10/24 blind, 10/10 post-run (22/24 from round L to round V): fourteen Mock data "
        "fakes of huggingface_hub's `InferenceEndpoint` and `JobInfo` and AReaL's `Worker`, "
        + _MOCKS_SETTLED,
        _ZZA_SEALED,
    ),
    (
        "zg",
        "6/13 blind, 6/6 post-run (4/13 before round O reported `torch_dtype: Optional["
        'torch.dtype] = "auto"`, a string default under a dtype, three times; 7/13 to round '
        "V): seven MagicMock data fakes of megatron-core's model config, `requests.Response` "
        "from a patched `requests.get` and pytriton's `TensorSpec`, " + _MOCKS_SETTLED,
        _ZFG_SEALED,
    ),
    (
        "zn",
        "0/1 blind, no ✗ site post-run: a bare `Mock()` whose comment says it mimics fbgemm's "
        "`SplitTableBatchedEmbeddingBagsCodegen`, given attributes by hand, " + _MOCKS_SETTLED,
        _ZNO_SEALED,
    ),
):
    KNOWN_GAPS[(_name, "blind", "any-annotation", "x-recall")] = f"{_why} ({_when})"

KNOWN_GAPS[("zzr", "blind", "broad-except", "x-precision")] = (
    "0/2: graphrag's `get_creation_date` handlers (`except Exception: return ''`), labelled "
    "⚠ blind and ✗ after the run (post_run: only the input loaders call them; 2/2) "
    f"({_ZZQRS_SEALED})"
)


def test_each_known_gap_names_a_cell_below_target() -> None:
    """A gap whose cell has gone (no finding or site left) or met its target is stale."""
    corpus = _load()
    stale = []
    for (name, reading, rule, metric), _why in sorted(KNOWN_GAPS.items()):
        figures = corpus.figures(corpus.load(BENCH / f"sweep_blind_{name}.json"), reading)
        cells = [
            hits_total for (_split, r, m), hits_total in figures.items() if (r, m) == (rule, metric)
        ]
        if not cells or cells[0][0] / cells[0][1] >= TARGETS[metric]:
            stale.append((name, reading, rule, metric))
    assert stale == []


def test_each_known_gap_states_its_cell_figure() -> None:
    """A gap's reason names the cell's figure as recorded now (``hits/total``), so a
    re-recording that moves a cell below target also updates what the gap says."""
    corpus = _load()
    docs = {path.stem.removeprefix("sweep_blind_"): corpus.load(path) for path in SETS}
    stale = []
    for (name, reading, rule, metric), why in sorted(KNOWN_GAPS.items()):
        figures = corpus.figures(docs[name], reading)
        for (_split, r, m), (hits, total) in figures.items():
            if (r, m) == (rule, metric) and f"{hits}/{total}" not in why:
                stale.append((name, reading, rule, metric, f"{hits}/{total}"))
    assert stale == []


@pytest.mark.parametrize("path", SETS, ids=[p.stem for p in SETS])
def test_each_blind_cell_meets_its_target_or_is_a_known_gap(path: Path) -> None:
    corpus = _load()
    doc = corpus.load(path)
    name = path.stem.removeprefix("sweep_blind_")
    for reading in corpus.READINGS:
        figures = corpus.figures(doc, reading)
        assert figures, "no figures"
        for (_split, rule, metric), (hits, total) in sorted(figures.items()):
            meets = hits / total >= TARGETS[metric]
            gap = (name, reading, rule, metric) in KNOWN_GAPS
            assert meets != gap, (name, reading, rule, metric, hits, total)
