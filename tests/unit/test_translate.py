"""The title translator (prhub.engine.translate) and its reviewed glossary."""
from __future__ import annotations

import json
import re

import pytest
from prhub.engine import gist, headline, translate


@pytest.mark.parametrize(("title", "zh"), [
    ("[trainer] fix: return NaN for empty tensors in compute_metrics", "compute_metrics 对空张量返回 NaN"),
    ("[megatron] fix: add missing FP8 padding for router replay", "为 router replay 补上缺失的 FP8 padding"),
    ("fix memory leakage when initializing multiple tools", "修复初始化多个工具时的内存泄漏"),
    # how it is done, said before the verb (cargo #17095 read "在顺序中报告所有错误")
    ("fix(diag): Report all errors, in order", "按顺序报告所有错误"),
    ("[vllm] feat: get gpt-oss encoding on demand", "按需获取 gpt-oss 编码"),
    # a version is released (发布), memory freed (释放): trl "Release 0.9.2" read "释放 0.9.2"
    ("Release 0.9.2", "发布 0.9.2"), ("Release version 0.137.0", "发布 0.137.0"),
    ("release GPU memory after rollout", "在 rollout 后释放 GPU 内存"),
    # a call's parentheses are code, not an aside moved after the sentence (88 titles read "…（）" or "…（cuda）")
    ("fix: use del instead of explicit shutdown in CombinedLoader.reset()",
     "改用 del，而非 CombinedLoader.reset() 中的显式关闭"),
    ("[rollout, vllm] fix: use engine.sleep() instead of collective_rpc", "改用 engine.sleep()，而非 collective_rpc"),
    ("[data] fix: merge metrics from all workers in DataProto.concat()",
     "从 DataProto.concat() 中的所有 worker 合并指标"),
    # "feature" is 特性: a Chinese reader's word, and Rust's for Cargo's features too ("默认特性", "不稳定特性")
    ("[fsdp] feat: Support zero2 optional feature for FSDP1", "为 FSDP1 支持 zero2 可选特性"),
    ("feat(unstable): add -Zbuild-analysis unstable feature", "新增 -Zbuild-analysis 不稳定的特性"),
    ("support decouple ppo for v1 separate_async", "为 v1 separate_async 支持 decouple ppo"),
    ("avoid redundant clone in the actor", "避免 actor 中多余的克隆"),
    ("remove x86_64-apple-darwin from CI and tests", "从 CI 和测试中移除 x86_64-apple-darwin"),
    ("chore(deps): bump serde to 1.0.200", "将 serde 升级到 1.0.200"),
    ("make `reward_extra_info` optional in `reward_result`", "让 `reward_result` 中的 `reward_extra_info` 变为可选"),
    ("use uv for the docker image", "Docker 镜像改用 uv"),
    ("Refactor `Layout` into `BuildDirLayout`", "将 `Layout` 重构为 `BuildDirLayout`"),
    ("update triton-ascend and fix npu ut", "更新 triton-ascend 并修复 NPU 单元测试"),
    ("🪂 Don't gather logits in SFT to avoid hanging", "不再在 SFT 中汇总 logits，以避免卡死"),
    ("feat(config): Allow `build.dir` on Windows", "在 Windows 上允许 `build.dir`"),
])
def test_title_structures_read_in_chinese_order(title: str, zh: str) -> None:
    assert translate.title(title) == zh


@pytest.mark.parametrize(("title", "zh"), [
    # a condition: during / without (the purpose's own condition is said with the purpose)
    ("fix: preserve generation config during merge", "在合并期间保留生成配置"),
    ("fix: preserve GPT-OSS weights without expert parallelism", "在不使用专家并行时保留 GPT-OSS 权重"),
    ("fix: skip redundant clone in get_named_tensor_buckets to avoid OOM during SGLang weight sync",
     "跳过 get_named_tensor_buckets 中多余的克隆，以避免 SGLang 权重同步期间的 OOM"),
    # the means: via / using / over a name
    ("feat: support sglang ROCm backend via aiter defaults", "通过 aiter 默认值支持 sglang ROCm 后端"),
    ("feat: sharded delta weight sync over NCCL for disaggregated rollout",
     "为分离式 rollout 提供基于 NCCL 的分片的增量权重同步"),  # opened by an attribute: a noun phrase, no verb
    # kept from happening; made from; moved from A to B; put somewhere
    ("fix: stop the policy from sampling vision placeholder tokens", "阻止策略采样视觉占位的 token"),
    ("fix: build RL tokenizer/processor from HFModelConfig", "基于 HFModelConfig 构建 RL tokenizer/processor"),
    ("feat: migrate fused logprob/entropy from GPTModel.forward monkey-patch to Megatron output_processor hook",
     "将融合的 logprob/entropy 从 GPTModel.forward monkey-patch 迁移到 Megatron output_processor 钩子"),
    ("fix: offload process_vision_info to a thread executor to unblock the agent-loop event loop",
     "将 process_vision_info 卸载到线程池，以避免阻塞 agent-loop 事件循环"),
    # any purpose verb, and the serial comma before it or before "and"
    ("chore: upgrade vllm, nccl and numpy > 2.0.0, to resolve packages dependency error",
     "升级 vllm、nccl 和 numpy > 2.0.0，以解决包依赖错误"),
    ("feat: per-unit LoRA summon, FSDP1/2 compatibility, and strip-modules support",
     "逐单元的 LoRA summon、FSDP1/2 兼容性和 strip-modules 支持"),
    # "X support for Y"; a trouble "with" Y; "with A and B" keeps its "and" inside
    ("feat: PP/VPP support for the steady delta export", "为稳定的增量导出支持 PP/VPP"),
    ("fix: sort buffers in fsdp2_load_full_state_dict to prevent NCCL deadlock with heterogeneous buffers",
     "在 fsdp2_load_full_state_dict 中排序缓冲区，以防止带有异构缓冲区的 NCCL 死锁"),
    ("feat: async generation dump with exception propagation and streaming write",
     "带有异常传播和流式写入的异步生成转储"),
    ("fix: backfill missing state for DSD optimizer checkpoint", "为 DSD 优化器检查点补齐缺失的状态"),
    ("refactor: rename misleading `trainer` arg to `actor_wg`", "将有误导性的 `trainer` 参数重命名为 `actor_wg`"),
])
def test_more_title_structures_read_in_chinese_order(title: str, zh: str) -> None:
    assert translate.title(title) == zh


def test_glossary_entry_kinds() -> None:
    # an attribute is read before a noun's stem: "merged" is 合并后的, not the noun "merge"
    assert translate.title("sync merged LoRA weights") == "同步合并后的 LoRA 权重"
    # a phrase entry keeps a component's name whole although the glossary knows one of its words ("loop" is not
    # a noun of its own; "event loop" is)
    assert translate.title("make reward loop the default") == "将 reward loop 设为默认"
    assert "事件循环" in translate.title("unblock the event loop")
    # names the team keeps: router replay, trl chat
    assert translate.title("add missing FP8 padding for router replay") == "为 router replay 补上缺失的 FP8 padding"
    assert translate.title("remove trl chat") == "移除 trl chat"


def test_a_verb_left_in_english_marks_the_line_untranslated() -> None:
    from prhub.engine import gist

    said = translate.title("add Qwen3.5 GRPO trainer demo with EP enabled using VeOmniEngine")
    assert "enabled" in said and translate.leftover(said)
    assert gist.doing("add Qwen3.5 GRPO trainer demo with EP enabled using VeOmniEngine", "feat") == \
        "新功能：“add Qwen3.5 GRPO trainer demo with EP enabled using VeOmniEngine”"  # quoted, never half translated


def test_identifiers_paths_flags_and_versions_stay_verbatim() -> None:
    zh = translate.title("fix typo in docs/prep/data.rst for `--max-len` with vLLM v0.8.5")
    for kept in ("docs/prep/data.rst", "`--max-len`", "vLLM", "v0.8.5"):
        assert kept in zh
    assert zh.startswith("修正")  # a typo is corrected, not repaired


def test_a_title_opening_with_a_name_keeps_its_first_character() -> None:
    # the leading symbols cut are emoji and marks, not what opens a name (hono's "<Activity>" had lost its "<")
    bare = translate.strip  # the title without its type and tags, not str.strip
    assert bare("feat(jsx): <Activity> component support") == "<Activity> component support"
    assert headline.headline("feat(jsx): <Activity> component support", "", "feat", ["jsx"], 3, 10, 1, "en") == \
        "<Activity> component support"
    assert bare("fix(caddyfile): {block} in snippet") == "{block} in snippet"
    assert bare("[red-knot] @override lint rule") == "@override lint rule"
    assert bare("🐛 ✨ Fix the thing") == "Fix the thing"


def test_what_the_glossary_does_not_know_stays_english() -> None:
    assert translate.title("add frobnicator widgets") == "新增 frobnicator widgets"


def test_a_title_without_a_verb_says_only_the_title() -> None:
    assert translate.title("[rollout] fix: max_num_seqs not take effect", "fix") == "修复 max_num_seqs 不生效的问题"
    assert translate.title("[doc] browsergym example script") == "browsergym 示例脚本"


def test_short_sentences_translate_and_long_ones_are_left_alone() -> None:
    assert translate.sentence("Remove the unused import.") == "移除未使用的导入"
    assert translate.sentence("This " + "very " * 20 + "long sentence explains things.") == ""
    assert translate.sentence("The results are below.") == ""  # no verb the glossary knows


def test_the_glossary_is_a_reviewed_data_file() -> None:
    data = json.loads(translate.GLOSSARY.read_text(encoding="utf-8"))
    for part in ("verbs", "nouns", "attributes"):
        keys = list(data[part])
        assert keys == [k.lower() for k in keys], part  # looked up in lower case
        assert all(isinstance(v, str) and v for v in data[part].values()), part
    raw = translate.GLOSSARY.read_text(encoding="utf-8")
    for part in ("verbs", "nouns", "attributes", "modules"):
        block = raw.split(f'"{part}": {{', 1)[1].split("}", 1)[0]
        keys = re.findall(r'"([^"]+)":', block)  # json keeps a repeated key's last value silently
        assert len(keys) == len(set(keys)), [k for k in keys if keys.count(k) > 1]
    domains = ("训练", "推理", "并行", "检查点", "权重同步", "kernel", "工作流", "打包", "编译器", "文档", "优势")
    values = {v for part in ("verbs", "nouns") for v in data[part].values()}
    assert all(word in values for word in domains)


def test_untrusted_titles_translate_without_error() -> None:
    for hostile in ("", "   ", "(((", "``", "for for for", "fix fix", "add to", "; ;", "a" * 5000,
                    "<script>x</script>"):
        assert isinstance(translate.title(hostile), str)


def test_zh_prose_names_generic_modules_in_chinese_and_keeps_proper_names():
    from prhub.engine.translate import glossary, module

    assert module("doc") == "文档" and module("Algo") == "算法" and module("tests") == "测试"
    for name in ("megatron", "fsdp", "rollout", "vllm", "veomni", "trainer"):  # proper names stay as spelled
        assert module(name) == name
    nouns = glossary()["nouns"]  # the table agrees with the glossary where both name a word
    data = json.loads(translate.GLOSSARY.read_text(encoding="utf-8"))
    clash = {k for k, v in data["modules"].items() if k in nouns and nouns[k] != v}
    # a docker/ folder holds the images (verl 06-15
    # read "docker 本周 3 个 PR"), "docker" in a title is the tool; the root module is the top-level files (仓库根目录),
    # "root" in a title a root (文档根, 根日志器)
    assert clash <= {"ci", "docker", "root"}, clash
    assert module("docker") == "Docker 镜像"


def test_an_acronyms_english_plural_is_dropped_and_the_acronym_kept():
    from prhub.engine import translate

    assert "AMD GPU" in translate.title("[hardware] feat: enable FlashAttention on AMD GPUs")
    assert "GPUs" not in translate.title("[hardware] feat: enable FlashAttention on AMD GPUs")
    assert "GPU" in translate.title("[hardware] feat: enable FlashAttention on AMD GPUs")


def test_a_parenthesis_that_opens_with_a_verb_is_translated_as_a_clause():
    said = translate.title("[megatron] feat: add Muon optimizer support (expose Megatron-Core TensorParallelMuon)")
    assert said.endswith("（暴露 Megatron-Core TensorParallelMuon）")
    assert translate.title("[trainer] fix: handle empty batches (GRPO, RLOO)").endswith("（GRPO、RLOO）")


# Structures that recur across the three exports' titles (bench.title_coverage lists what makes titles fall back),
# each on real titles of verl, cargo and trl.
@pytest.mark.parametrize(("title", "kind", "zh"), [
    # a passive, said as the verb acting on its subject; a state, said "X 为 None" / "X 不正确"
    ("[tool] refactor: tools will be initialized in AgentLoopWorker", "refactor", "在 AgentLoopWorker 中初始化工具"),
    ("[ci] feat: npu nightly ci log is redirected to the specified directory", "feat",
     "将 NPU 夜间 CI 日志重定向到指定的目录"),
    ("[rollout] fix: guard sglang profiling when self.tokenizer_manager is None", "fix",
     "在 self.tokenizer_manager 为 None 时保护 sglang 性能分析"),
    ("[Update reward_trainer.py] append PeftSavingCallback if callbacks is not None", "",
     "在回调不为 None 时追加 PeftSavingCallback"),
    ("[doc] fix: `actor_rollout_ref.critic` is not correct", "fix", "修复 `actor_rollout_ref.critic` 不正确的问题"),
    # "instead of", ", not X", "rather than": 而非
    ("fix: share frozen layers with reference model instead of duplicating in memory", "fix",
     "将冻结层与参考模型共享，而非在内存中复制"),
    ("[algo] fix: normalize critic value loss over the global mini-batch, not per micro-batch", "fix",
     "在全局 mini-batch 上归一化 critic 价值损失，而非按微批次"),
    # "by default"; "by <doing>" (the means); "by <a key>"
    ("[BREAKING][trainer, cfg] chore: enable V1 trainer by default", "chore", "默认启用 V1 trainer"),
    ("👮 Fix GRPO CLI by setting parameters for `get_soft_overlong_punishment`", "fix",
     "通过为 `get_soft_overlong_punishment` 设置参数修复 GRPO CLI"),
    # where a thing goes: "pass X to Y", "set X to Y for Z", "treat X as Y", "add X as Y", "cap X at Y"
    ("[veomni] fix: pass mixed precision config to veomni", "fix", "将混合精度配置传给 veomni"),
    ("[megatron] fix: set use_mbridge to True for some npu scripts", "fix", "为部分 NPU 脚本将 use_mbridge 设为 True"),
    ("[rollout, vllm] fix: treat null rollout seed as 0 for engine init",
     "fix", "为引擎初始化将空的 rollout 随机种子视为 0"),
    ("[ray,rollout,trtllm] feat: Adding tensorrt_llm as new rollout engine",
     "feat", "新增 tensorrt_llm 作为新的 rollout 引擎"),
    ("[rollout] fix: cap partial rollout resumes at the remaining response budget", "fix",
     "将部分 rollout 恢复限制在剩余的响应预算内"),
    ("chore(deps): bump crossbeam-channel from 0.5.14 to 0.5.15",
     "chore", "将 crossbeam-channel 从 0.5.14 升级到 0.5.15"),
    # two verb phrases joined by a comma; a subject first ("X falls back to Y", "X should use Y"); "Default X to Y"
    ("[BREAKING] [misc] refactor: deprecate workers, migrate to engines", "refactor", "弃用 worker，迁移到引擎"),
    ("[trainer] fix: gen_batch_size falls back to train_batch_size", "fix", "gen_batch_size 回退到 train_batch_size"),
    ("[BREAKING][trainer] fix: separate_async should use the same step granularity with other trainers", "fix",
     "separate_async 应使用与其他 trainer 相同的步粒度"),
    ("Default SFT loss to chunked_nll", "", "将 SFT 损失默认设为 chunked_nll"),
    # a purpose with any verb the glossary knows, not a noun ("to test file"), not after "how"; "allow X to V"
    ("Update sft_llama2.py to work with the latest API", "", "更新 sft_llama2.py，以兼容最新 API"),
    ("Add license to test file and disable docstyle in GOLD script",
     "", "为测试文件添加许可证并在 GOLD 脚本中禁用 docstyle"),
    ("Allow users to pass in custom compute_score function", "", "允许用户传入自定义 compute_score 函数"),
    ("[megatron] chore: refactor to use Megatron-Bridge new APIs", "chore", "重构，以使用 Megatron-Bridge 新的 API"),
    # places: across, between, over; a condition on a title without a verb
    ("[megatron] feat: cache the Megatron-Bridge HF export plan across weight updates", "feat",
     "跨权重更新缓存 Megatron-Bridge HF 导出计划"),
    ("[fsdp] fix: device mismatch between fsdp2 offload and weights transfer",
     "fix", "修复 fsdp2 offload 与权重传输之间的设备不匹配"),
    ("[megatron] fix: MTP loss deadlock when using context parallelism", "fix", "修复使用上下文并行时的 MTP 损失死锁"),
    ("[fsdp, perf] feat: defer gradient sync during accumulation", "feat", "在累积期间推迟梯度同步"),
    # a participle before its noun, a possessive, a name's label, "drop support for X older than V", give X the same Y
    ("[Breaking] dataset: support customized datasets for RayPPOTrainer", "", "为 RayPPOTrainer 支持自定义的数据集"),
    ("[veomni] feat: use VeOmni's native return_log_probs path to compute log_probs", "feat",
     "改用 VeOmni 的原生 return_log_probs 路径，以计算 log_probs"),
    ("SDFT/SDPO: live teacher logprobs from the vLLM server", "feat", "SDFT/SDPO：vLLM 服务端中的实时教师 logprobs"),
    ("[vllm] refactor: drop support for vLLM older than 0.18.0", "refactor", "移除对早于 0.18.0 的 vLLM 的支持"),
    # support that ends is 移除对 X 的支持 (not 丢弃 X 支持, as if support were thrown away); a version dropped
    ("Drop vLLM 0.16 support", "chore", "移除对 vLLM 0.16 的支持"),
    ("[BREAKING][rollout] refactor: drop vllm v0.5.4 and v0.6.3 support", "refactor",
     "移除对 vllm v0.5.4 和 v0.6.3 的支持"),
    ("Remove foo and add bar support", "", "移除 foo 并新增 bar 支持"),
    ("CHORE Drop Python 3.9, add 3.13", "chore", "不再支持 Python 3.9，新增 3.13"),
    ("Drop MDX", "chore", "丢弃 MDX"),
    # "resolve" a path, a config or a name is 解析; a trouble is 解决 (vite's tsconfig paths had read 解决)
    ("fix: resolve tsconfig paths in CSS and Sass @import", "fix", "解析 CSS 和 Sass @import 中的 tsconfig 路径"),
    ("[trainer] fix: resolve dataset config in agent loop", "fix", "解析 agent loop 中的数据集配置"),
    ("upgrade vllm to resolve packages dependency error", "chore", "升级 vllm，以解决包依赖错误"),
    ("resolve merge conflicts", "", "解决合并冲突"),
    # "X with Y support" is an X that supports Y, not something done "based on" Y's support
    ("Add native Z.AI (Zhipu AI) provider with thinking support", "feat",
     "新增支持思考的原生 Z.AI provider（Zhipu AI）"),
    ("[sglang] feat: Add SGLang async multi-turn rollout with tool support", "feat",
     "新增支持工具的 SGLang 异步多轮 rollout"),
    # "for V-ing Z" after a target says what X is for, not which target (okhttp #8897 had fallen back)
    ("feat: add curl() method to Request for generating cURL commands", "feat",
     "为请求添加 curl() 方法，用于生成 cURL 命令"),
    # a type or a range widened to a bound (放宽为), narrowed (收窄为); tear down (移除)
    ("fix(jsx): widen jsx and jsxFn children to Child[]", "fix", "将 jsx 和 jsxFn 的子节点放宽为 Child[]"),
    ("Tear down AddressPolicy", "refactor", "移除 AddressPolicy"),
    # a value clamped to a bound is 钳制到 it, not cut off (截断 is truncate)
    ("codec: clamp runtime frame length to field width", "fix", "将 runtime frame 长度钳制到字段宽度"),
    # a runtime steals tasks (窃取); "work stealing" is the scheduler's term
    ("runtime: steal tasks from the LIFO slot", "feat", "从 LIFO 插槽窃取任务"),
    ("Minor: avoid clone in RunArray row decoding via buffer stealing", "perf",
     "通过缓冲区窃取避免 RunArray 行解码中的克隆"),
    # renovate's "non-major" updates are minor and patch versions, not "non-primary" ones
    ("chore(deps): update all non-major dependencies", "chore", "更新所有非大版本依赖"),
    # a default as the phrase's head is a value (默认值), before a noun it says which; null as code says it
    ("[BREAKING][megatron] chore: set ETP default to null", "chore", "将 ETP 默认值设为 null"),
    ("Change default for PT001 and PT023", "", "为 PT001 和 PT023 修改默认值"),
    ("Use default config", "", "改用默认配置"),
    ("refactor(ipc): derive Default for CompressionContext", "refactor", "对 CompressionContext 推导 Default"),
    ("fix(diag): Give diagnostics the same display path behavior as rustc",
     "fix", "让诊断信息的显示路径行为与 rustc 相同"),
    # an adverb said before its verb, also after a negation; "get rid of" (a verb of three words)
    ("[fsdp] fix: do not manually move model to GPU", "fix", "不再手动将模型移到 GPU"),
    ("[hardware] feat: Auto set device_name to npu for Ascend NPU",
     "feat", "自动为 Ascend NPU 将 device_name 设为 NPU"),
    ("[BREAKING][rollout,cfg] refactor: get rid of actor_rollout_ref config from rollout", "refactor",
     "从 rollout 中去掉 actor_rollout_ref 配置"),
    # a rename without a verb; "fixes to X"; "by <a verb>"; "pull X out into Y"; a subject before a verb in -s
    ("🩳 `max_seq_length` to `max_length`", "", "`max_seq_length` 改为 `max_length`"),
    ("[trtllm] fix: minor fixes to trtllm rollout", "fix", "对 trtllm rollout 的若干小修复"),
    ("[ci] fix: fix ci by downgrade transformers to <5", "fix", "通过将 transformers 降级到 <5 修复 CI"),
    ("refactor(shell): Pull out hyperlink logic into anstyle-hyperlink",
     "refactor", "将超链接逻辑抽出到 anstyle-hyperlink"),
    ("[worker] fix: new engine saves megatron LoRA adapters checkpoints",
     "fix", "新的引擎保存 megatron LoRA adapter 检查点"),
    # "change X from A to B"; "to <a verb> Y" after a target verb is a purpose, "to ignore list" a noun; "&"
    ("Change tiny model dtype from float16 to bfloat16 to fix CUDA error", "fix",
     "将小型模型的 dtype 从 float16 改为 bfloat16，以修复 CUDA 错误"),
    ("docs(layout): Updated layout module docs to document new layout", "docs", "更新布局模块文档，以说明新的布局"),
    ("[ci] fix: add `flash_attn_supports_top_left_mask` to ignore list", "fix",
     "将 `flash_attn_supports_top_left_mask` 加入忽略列表"),
    ("[BREAKING][ci] feat: add CI request channel & improve PR template", "feat", "新增 CI 请求通道并改进 PR 模板"),
    ("fix(git): make checkout names independent of git config", "fix", "让 checkout 名称不依赖 git 配置"),
    # important verl PRs that had fallen back to "新功能：涉及 X": lend X to Y, move X out of Y, "to <adverb> <verb>",
    # a subject before an unconjugated verb ("verl add X"), and nouns the glossary lacked
    ("[trainer, vllm] feat: lend idle trainer GPUs to generation in separate_async", "feat",
     "将空闲的 trainer GPU 借给 separate_async 中的生成"),
    ("[BREAKING][rollout] refactor: move LLMServerManager out of AgentLoopManager", "refactor",
     "将 LLMServerManager 移出 AgentLoopManager"),
    ("[tool, rollout] feat: Use SkipManager to uniformly manage the skipping schemes.", "feat",
     "改用 SkipManager，以统一管理跳过方案"),
    ("[tool] feat: verl integrate msprobe data collection", "feat", "verl 集成 msprobe 数据采集"),
    ("[recipe] fix: DAPO add trust_remote_code parameter to tokenizer and processor", "fix",
     "DAPO 为分词器和处理器添加 trust_remote_code 参数"),
    ("[vllm, rollout] fix: vLLM Lora sync index misalignment fix", "fix", "修复 vLLM Lora 同步索引错位"),
    ("[BREAKING][worker, rollout, vllm] feat: implement vLLM colocated training-inference rollout with process "
     "separation", "feat", "基于进程分离实现 vLLM 共置的 training-inference rollout"),
    ("[perf, data] feat: DP workload balance", "feat", "DP 负载均衡"),
    # a noun before "support"/"enable" is no subject when a symbol or a noun follows ("enable flag" is a flag)
    ("[sglang] fix: sglang TP+DP support / port bug", "fix", "修复 sglang TP+DP 支持 / 端口问题"),
    ("[doc] fix: reward_loop enable flag name", "fix", "修复 reward_loop enable 参数名称"),
    # a product's name, a term of art, a type system's "generic" (泛型; diffusers' "为稳定 Diffusion 3", svelte's
    # "CSS escape 序列", ty's "通用的类")
    ("feat: Add Modular Pipeline for Stable Diffusion 3", "feat", "为 Stable Diffusion 3 新增模块化 Pipeline"),
    ("fix: preserve CSS escape sequences when printing selectors", "fix", "在打印选择器时保留 CSS 转义序列"),
    ("[ty] Deduplicate type variables in generic functions", "", "在泛型函数中去重类型变量"),
    # a linter flags what it reports (标记), as a verb first in a title; "flag X as Y" marks it as Y
    ("[`airflow`] Flag `Variable.get()` calls outside of task execution context (`AIR003`)", "feat",
     "标记任务执行上下文（`AIR003`）之外的 `Variable.get()` 调用"),
    ("Flag Flax schedulers as deprecated", "", "将 Flax 调度器标记为已弃用的"),
    # a series' "[5/N]:" ends a clause, as any colon after a word (trl's 35 series titles had read "[5/N]: Refactor
    # TrainingCommand" in English); abort as the moment it happens (在中止时); delayed imports (延迟导入)
    ("Refactor CLI with delayed imports [5/N]: Refactor TrainingCommand", "refactor",
     "基于延迟导入重构 CLI [5/N]：重构 TrainingCommand"),
    ("Implement Agent Skills [4/N]: Create skills CLI", "feat", "实现智能体 Skills [4/N]：创建技能 CLI"),
    ("[rollout] feat: automatically resume generation on abort", "feat", "在中止时自动恢复生成"),
    # long is 长 before its noun (长上下文), not 很长的 (diffusers' "很长的多提示")
    ("[misc][Long Context] feat: support ulysses for long context training", "feat", "为长上下文训练支持 ulysses"),
    # "ℹ️" opens trl's XPU titles: a symbol, though Unicode files it as a letter
    ("ℹ️ feat: Add NPU and XPU support for activation offloading", "feat", "为激活卸载新增 NPU 和 XPU 的支持"),
])
def test_recurring_structures_read_in_chinese_order(title: str, kind: str, zh: str) -> None:
    description = translate.strip(title)
    said = translate.title(description, kind)
    assert said == zh
    assert translate.leftover(said) == 0


def test_grown_glossary_carries_the_titles_that_fell_back() -> None:
    # key PRs whose zh headline fell back to facts ("新功能：改动 21 个文件，多为新增") for one missing word
    assert translate.title("add dynamic context parallel scheduling") == "新增动态上下文并行调度"
    assert translate.title("support dynamic resource scheduling") == "支持动态资源调度"
    assert translate.title("handle non-contiguous weights in bucketed transfer") == "处理分桶传输中的非连续权重"


def test_a_title_opened_by_a_verb_the_glossary_lacks_stays_english_and_falls_back() -> None:
    from prhub.engine import gist

    # a guessed noun phrase ("book deployment 中的 reflect 文档文件夹 move") would mislead: the line falls back
    said = translate.title("reflect doc folder move in book deployment")
    assert translate.leftover(said)
    assert gist.doing("reflect doc folder move in book deployment", "chore").startswith("维护：“")
    # a lower-case short name, an adjective and a glossary word open titles that still translate
    assert translate.title("Conversational dataset support for `DPOTrainer`") == "为 `DPOTrainer` 支持对话式数据集"


def test_generic_folders_of_any_layout_are_named_in_chinese() -> None:
    # cargo's core/util/diag/publish, trl's experimental/models/chat_templates, a file at the top: the highlights
    # headed them "experimental 模块" four times in one trl week
    from prhub.engine.lexicon import area_name

    assert [area_name(m) for m in ("experimental", "core", "util", "diag", "publish", "chat_templates", "root")] == [
        "实验特性", "核心", "工具函数", "诊断", "发布", "对话模板", "仓库根目录"]
    assert area_name("megatron") == "megatron 模块"  # a proper name stays, marked a module


def test_a_place_named_by_two_capitalised_words_stays_a_name() -> None:
    # verl #7032 read "在跳过 Manager 中支持参数同步步": "Skip Manager" is a component, not the verb "skip"
    assert translate.title("[tool, rollout] feat: support parameter sync steps in Skip Manager").startswith(
        "在 Skip Manager 中支持")
    assert translate.title("fix deadlock in the sampler") == "修复采样器中的死锁"  # a plain place is still said


@pytest.mark.parametrize("title, zh", [
    # "X fix" says "fix X": "nccl broadcast bucket size fix" had fallen back to "重构：改动 1 个文件，增删相当"
    ("[ckpt]: nccl broadcast bucket size fix", "修复 nccl 广播 bucket 大小"),
    ("minor BCO fixes", "修复 BCO"),
    ("[GRPO] Reference model initialization bug fix", "修复参考模型初始化"),
    # a container's image is a 镜像 ("将稳定 trtllm 图像升级到…"); a model's image, even in a CI fix, an 图像
    ("[docker] feat: bump stable trtllm image to 1.3.0rc15", "将稳定 trtllm 镜像升级到 1.3.0rc15"),
    ("[ci] chore: Update ascend ci image", "更新 ascend CI 镜像"),
    ("Fix OOM in CI by reducing image size of tiny Gemma3 model", "通过减少小型 Gemma3 模型的图像大小修复 CI 中的 OOM"),
    ("[doc] chore: update arch image", "更新 arch 图像"),
    # words the exports' key PRs left in English
    ("[ckpt] feat: Node-local multi-sender broadcast in NCCL checkpoint engine",
     "NCCL 检查点引擎中的节点本地多发送端广播"),
    ("[fully_async, rollout] feat: enable online policy distillation in fully async training",
     "在完全异步训练中启用在线策略蒸馏"),
    ("[ckpt] fix: use separate magic_recv buffer to prevent weight corruption",
     "改用独立的 magic_recv 缓冲区，以防止权重损坏"),
    ("[megatron] fix: remove redundant return value for hf_config", "移除 hf_config 的多余的返回值"),
    ("Replace deprecated list with tuple indexing in PPOTrainer", "用 PPOTrainer 中的元组索引替换已弃用的列表"),
    # "default to X" opening a clause is a verb (trl #5987, breaking, had fallen back to "重构：改动 4 个文件"); a
    # default after another verb stays a word
    ("Simplify agent skills target and default to `.agents`", "简化智能体技能的 target 并默认改为 `.agents`"),
    ("fall back to default X", "回退到默认 X"),
    # verl 06-01: "修复：改动 1 个文件，多为新增" (importance 8.3), "新增平台抽象层层…", "arbitrary 代码执行"
    ("[megatron] fix: Fix GPU memory leak in ref model offload by explicitly releasing storage",
     "通过显式释放存储修复参考模型 offload 中的 GPU 内存泄漏"),
    ("[hardware] feat: add platform abstraction layer and plugin-based engine override system",
     "新增平台抽象层和基于插件的引擎覆盖系统"),
    ("[rollout] fix: avoid arbitrary code execution in Qwen3 tool parser", "避免 Qwen3 工具解析器中的任意代码执行"),
    ("Allow configuring arbitrary codegen backends", "允许配置任意 codegen 后端"),
    # a condition tells a state: 未配置, not 不再配置 (a change)
    ("fix: improve error message when `pad_token_id` is not configured", "在未配置 `pad_token_id` 时改进错误信息"),
    # make run's sample quoted these raw
    ("[api] feat: job priorities", "任务优先级"),
    ("[scheduler] feat: cron expressions for periodic jobs", "周期性任务的 cron 表达式"),
    # an image is a container's only by the word beside it; code, paths and flags stay as written
    ("[ci] fix: handle `image` field in CI config", "处理 CI 配置中的 `image` 字段"),
    ("[ci] update scripts/ci/image.py", "更新 scripts/ci/image.py"),
    ("feat: support image generation pipeline", "支持图像生成流水线"),
    ("fix: images of the base model", "基础模型的图像"),
    ("[ci,sglang] feat: update docker file building schema, from sglang base images",
     "更新 sglang 基础镜像中 Docker 文件构建的 schema"),
    # a fix of nothing named is not "修复 Minor"
    ("Minor fix", "小修复"),
    ("Temporary fix", "临时修复"),
    # "default to X to Y": the purpose after the new default
    ("Default to bf16 to save memory", "默认改为 bf16，以节省内存"),
])
def test_a_trailing_fix_a_container_image_and_common_words(title: str, zh: str) -> None:
    assert translate.title(title) == zh


@pytest.mark.parametrize("title, zh", [
    # a hyphenated word of a name or noun and an ending the glossary frames (the July month's key PRs, quoted)
    ("[veomni] feat: EP-aware sharded delta export (fused expert stacks)", "EP 感知的分片的增量导出（融合的专家栈）"),
    ("[ckpt, fsdp] feat: sharded delta block placements + backend-owned HF export (engine core + FSDP)",
     "分片的增量块放置 + 由后端持有的 HF 导出（引擎核心 + FSDP）"),
    ("[veomni] feat: add VeOmni-native critic support", "新增 VeOmni 原生的 critic 支持"),
    ("[GRPO] Sequence-level TIS & MIS", "序列级 TIS & MIS"),
    ("Remove logging.md: trainer-specific metrics documentation", "移除 logging.md：特定于 trainer 的指标文档"),
    # said last, a compound is a state, not a modifier waiting for its noun
    ("[rollout] fix: make agent loop reward worker thread-safe", "让 agent loop 奖励的 worker 线程安全"),
    # a slash pair of nouns the glossary knows, before a noun; before nothing it may be a folder, kept
    ("[trainer] feat: V1 replay buffer eviction/refill handling for stale, DAPO-filtered, and failed rollout groups",
     "过期的、经 DAPO 过滤和失败的 rollout 组的 V1 回放缓冲区淘汰/回填处理"),
    ("[ci] chore: add codeowner for role/engine", "为 role/engine 新增 codeowner"),
    # a phrase the glossary lists whole is not split at its "for" ("在 complete 的 NCCL 广播 wait 中…")
    ("[ckpt] fix: added cuda stream synchronization in NCCL broadcast wait for complete",
     "在 NCCL 广播等待完成中新增 CUDA 流同步"),
    # "the use of X": X 的用法 ("修复 partial_rollout 的正确的 use")
    ("Avoid use of git's core.fsmonitor", "避免 git 的 core.fsmonitor 的用法"),
    # "X on Y": Y 上的 X (verl #7181, importance 8.9, had fallen back to "新功能：涉及 delta_sharded"); "X based on Y":
    # 基于 Y 的 X, not "Y 上的 X 基础"
    ("[megatron] feat: delta_sharded on Megatron-Bridge param mappings (TP+EP, hybrid-Mamba)",
     "Megatron-Bridge 参数映射上的 delta_sharded（TP+EP、hybrid-Mamba）"),
    ("[recipe] feat: DeepSeek-R1-Zero on Ascend NPU", "Ascend NPU 上的 DeepSeek-R1-Zero"),
    ("[rollout] fix: Add LoRA datatype based on rollout model type to the LoRA config",
     "为 LoRA 配置添加基于 rollout 模型类型的 LoRA datatype"),
])
def test_compounds_slash_pairs_and_places(title: str, zh: str) -> None:
    assert translate.title(title) == zh


def test_a_misspelt_prefix_is_no_compound() -> None:
    # verl #7025: "im-compatible" is "incompatible"; "兼容 im 的" would say the opposite
    title = "[ci] chore: temporary disable torchtitan ci due to im-compatible torchversion"
    assert "兼容" not in translate.title(title)


@pytest.mark.parametrize("line, prose", [
    ("完全异步 Policy add Rollout Importance Sampling", True),  # the title's verb was never found
    ("修复 RotaryEmbedding 的 npu disable flash_attn", True),
    ("新增 `add` 命令的补全", False),  # code is a name
    ("为 cargo add 新增补全", False),  # and so is a tool's subcommand
    ("为 add --path 新增补全", False),
    ("为 `cargo` add 新增补全", False),
    ("修复 Dataset 的 remove 方法在空列表时崩溃", False),  # a method, a switch, a call: names
    ("新增 enable 开关", False),
    ("修复 dict 的 add() 调用", False),
    ("基于 stop token 和响应格式化新增 Gemma4 工具解析器", False),  # a term the glossary keeps is no sign
    ("修复 LockManager use OS 感知的 flock shim", True),  # a verb the title opened with, left mid-line
    ("基于 CANN 8.5.2 的 qwen3.5 modify npu Docker 文件", True),
    ("确保 rustup 用法的一致的 behavior regardless", True),  # a word only English grammar needs
    ("不再用 build.warnings=allow 隐藏警告", False),  # a value after "=" is code
])
def test_a_title_verb_left_in_english_marks_the_line_as_english(line: str, prose: bool) -> None:
    assert headline.english_prose(line) is prose


def test_a_name_keeps_its_number_and_a_pinned_version_is_said_once() -> None:
    # trl #5453 "CI Gemma 4 support" read "Gemma 4 个支持"; peft #3377 "Pin kernels version" read "固定 kernel 版本版本"
    assert translate.title("Gemma 4 support") == "支持 Gemma 4"
    assert translate.title("Add 2 tests for the sampler") == "为采样器新增 2 个测试"
    assert translate.title("Pin kernels version") == "固定 kernel 版本"
    assert translate.title("Pin torch") == "固定 torch 版本"
    # "until" left in a line is English a reader must read (peft #3394 "跳过失败 Diffusers tests until v0.40.0")
    assert headline.english_prose(translate.title("Skip failing Diffusers tests until v0.40.0"))


def test_words_new_repositories_title_with_read_in_chinese() -> None:
    # gh (cli/cli) and trl titles that fell back to "新功能：改动 N 个文件" or kept English words
    assert translate.title("Supporting filtering on `gist list`") == "在 `gist list` 上支持过滤"
    assert translate.title("Add entropy based filtering inside the GRPOTrainer") == "在 GRPOTrainer 中新增基于熵的过滤"
    assert translate.title("use rule based reward") == "改用基于规则的奖励"
    # a two-word noun before "based" is not cut in half ("model engine based critic" is not 基于引擎的)
    assert "基于引擎" not in translate.title("enable model engine based critic")
    assert translate.title("impl IntoResponseParts for Redirect") == "对 Redirect 实现 IntoResponseParts"
    # an HTTP response is 响应 (回复 is a reply; hono's "不再压缩 206 Partial Content 回复" read so), as is a model's
    assert translate.title("use Retry-After header for HTTP 429 responses") == "HTTP 429 响应改用 Retry-After 头"
    # "even" left in a line is English a reader must read
    assert headline.english_prose(translate.title("Print the login URL even when opening a browser"))


def test_on_after_a_reaction_names_when_and_on_a_platform_names_where() -> None:
    # verl #7334 read "在引擎后端导入失败上警告" (on the failure, as on a surface)
    assert translate.title("warn on engine backend import failure instead of silent skip") == \
        "在引擎后端导入失败时警告，而非静默的跳过"
    assert translate.title("Don't panic on unknown bins") == "不再在未知的 bins 时触发 panic"
    # a platform, a branch or a name after "on" is a place still
    assert translate.title("warn on ROCm") == "在 ROCm 上警告"
    assert translate.title("fix failing rollout config test on main") == "在 main 上修复失败的 rollout 配置测试"
    assert translate.title("offload to save memory") == "卸载，以节省内存"


def test_a_title_opened_by_correct_corrects_and_front_end_words_read_in_chinese() -> None:
    # "correct" opening a title is the verb: 31 export headlines read "修复正确的错别字" and the like
    assert translate.title("correct typo in script comment") == "修正脚本注释中的错别字"
    assert translate.title("Correct shape") == "修正形状"
    assert translate.title("use the correct dtype") == "改用正确的 dtype"  # mid-title, still the attribute
    # vue's June fell back to "修复：改动 2 个文件，多为新增" on 9 of its 10 key PRs
    assert translate.title("skip async component callbacks after unmount") == "跳过卸载后的异步组件回调"
    assert translate.title("respect data-allow-mismatch on conditional branches") == \
        "在条件分支上遵循 data-allow-mismatch"
    assert translate.title("handle teleport unmount edge case") == "处理 teleport 卸载边界情况"


def test_a_colon_inside_code_does_not_split_the_title() -> None:
    # vue #14902 read "在 `once 的 wrapped 时保留 watch 回调返回值：true`": its code cut in two, a backtick left open
    said = translate.title("preserve watch callback return value when wrapped for `once: true`")
    assert "`once: true`" in said and said.count("`") == 2
    assert translate.title("support `a: b` in config") == "在配置中支持 `a: b`"
    assert translate.title("Align KTO with DPO: Support VLM") == "让 KTO 与 DPO 对齐：支持 VLM"


def test_a_title_that_names_only_a_branch_says_it_merges_that_branch() -> None:
    # hono's year led its highlights with four PRs titled "Next" (its next branch merged into main, no description)
    said = headline.headline("Next", "", "feat", ["adapter"], 27, 1400, 127)
    assert said == "合并 next 分支：27 个文件，+1400/−127 行" and headline.says_size(said)
    said = headline.headline("next (#5154)", "", "feat", [], 41, 2000, 419, "en")
    assert said == "Merge of the next branch: 41 files, +2000/−419 lines" and headline.says_size(said)
    assert headline.headline("Next steps for the sampler", "", "feat", [], 2, 10, 1, "en") != \
        "Merge of the next branch: 2 files, +10/−1 lines"


def test_a_branch_merge_is_told_by_its_headline_in_the_prose_too() -> None:
    from prhub.engine import telling

    entry = {"number": 4735, "title": "Next", "type": "feat", "modules": ["adapter"], "summary": "Next",
             "breaking": False, "breaking_reason": "", "changed_files": 27, "additions": 1433, "deletions": 94,
             "headline": "合并 next 分支：27 个文件，+1433/−94 行"}
    line, facts = telling.pr_told(entry, True)
    assert line == "合并 next 分支：27 个文件，+1433/−94 行"
    assert {f["field"]: f["fact"] for f in facts}["additions"] == "1433"  # the figures stand on the PR's own


def test_words_and_shapes_that_new_repositories_titles_fell_back_on() -> None:
    # renovate's "update dependency X to V" (23 of hono's titles kept "dependency" in English)
    assert translate.title("update dependency esbuild to ^0.25.5") == "将依赖 esbuild 更新到 ^0.25.5"
    assert translate.title("Support for Activated LoRA") == "支持 Activated LoRA"
    assert translate.title("Allow peft_method to be a string") == "允许 peft_method 为字符串"
    assert translate.title("allow users to skip the check") == "允许用户跳过检查"
    # an attribute after its noun is a state, without a dangling 的
    assert translate.title("Fixed nightly tests failing due to unused_variables lint") == \
        "因 unused_variables lint，修复夜间测试失败"
    assert translate.title("Fix PEFT instruction tuning") == "修复 PEFT 指令微调"
    assert translate.title("TST Extend BD-LoRA test suite") == "扩展 BD-LoRA 测试套件"


# Lines the exports printed otherwise before this round (the headline dumps of 2026-12-07: the three shared exports,
# seven new repositories, polars and pydantic-ai), each with what it had read.
@pytest.mark.parametrize(("title", "zh"), [
    # trl #6310 "在 ChatML collator 截断 whole 提示时抛出 clear 错误"; "clear" is the verb where it opens the title
    ("Raise clear error when ChatML collator truncates the whole prompt",
     "在 ChatML collator 截断整个提示时抛出明确的错误"),
    ("Clear the cache on exit", "在退出时清除缓存"),
    # verl #3390 "etp 配置故障 change", trl #1229 "修复故障 change"; the participle "changed" as it was
    ("[`core` / SFTTrainer] Fix breaking change", "修复破坏性变更"),
    ("[rollout, vllm] fix: name change for compilation level", "编译级别的名称改动"),
    ("[CI] feat: only check changed files", "检查修改的文件"),
    # "back": verl #3750 "将 "clip" mode back 重命名为 "mask" 模式", trl #821 "为 DPO 添加 RMSProp back"
    ('[rollout] refactor: rename "clip" mode back to "mask" mode', '将 "clip" 模式改回 "mask" 模式'),
    ("Add RMSProp back to DPO", "为 DPO 恢复 RMSProp"),
    ("fix readme and add back citation", "修复 README 并恢复 citation"),
    ("ci: Downgrade the `release-drafter` ci version back to version 6", "将 `release-drafter` CI 版本降级回版本 6"),
    # "in favor of": trl #2386 "在 `PPOTrainer` 中在 `model` 的 favor 中弃用 `policy`"
    ("Deprecate `policy` in favor of `model` in `PPOTrainer`", "弃用 `policy`，改用 `PPOTrainer` 中的 `model`"),
    ("chore: remove undici in favor of global fetch", "移除 undici，改用全局 fetch"),
    # a lower-case owner in Chinese (verl #7117 "保存基础 model 的代码"), a word the glossary keeps English as written,
    # a code's owner (cargo #15182 "`cargo metadata` 's 输出")
    ("use model's max_position_embeddings for max_model_len", "max_model_len 改用模型的 max_position_embeddings"),
    ("Accessing each build script's `OUT_DIR`", "访问每个构建脚本的 `OUT_DIR`"),
    ("fix: revert the behavior checking lockfile's VCS status", "回滚行为检查 lockfile 的 VCS status"),
    ("chore(toml): disable `toml`'s default features", "禁用 `toml` 的默认特性"),
    # a quantity before "of": okhttp #9242 "清除 lint 警告的 bunch"
    ("Clear a bunch of lint warnings.", "清除一批 lint 警告"),
    ("the number of workers", "worker 的数量"),
    # a thing a step did not reach (polars #28297, #28341 and trl #1534 had fallen back)
    ("fix: Fix cross filter not applied with sink and CSE", "修复在 sink 和 CSE 下 cross 过滤未被应用的问题"),
    ("perf: Do not remove cache if predicates not pushed to all inputs", "不再移除谓词未被推送到所有输入时的缓存"),
    ("Fixed ref model not used in PPO generation", "修复在 PPO 生成中参考模型未被使用的问题"),
    # a verb whose object is a sentence; "where possible"; a trailing adverb
    ("fix: Ensure BinaryView offset+len does not exceed i32::MAX where possible",
     "尽可能确保 BinaryView offset+len 不超出 i32::MAX"),
    ("Ensure that te.pytorch exists", "确保 te.pytorch 存在"),
    ("⚓ [vllm] ensure MASTER_ADDR/MASTER_PORT are set safely", "确保安全地设置 MASTER_ADDR/MASTER_PORT"),
    # "make X a Y" (polars #28345 had read "让 partition_hive opt 参数")
    ("feat: Make partition_hive an opt flag", "将 partition_hive 设为 opt 参数"),
    # a data library's verbs and nouns ("Serve 过期从 object_store DNS 缓存中记录" had led a highlight)
    ("feat: Serve stale records from object_store DNS cache", "从 object_store DNS 缓存提供过期的记录"),
    ("perf: Run projection pushdown after predicate pushdown", "在谓词下推后运行投影下推"),
    ("fix: Incorrect boolean min/max with nulls", "带有空值的错误的布尔值 min/max"),
    ("feat: Add naive out-of-core spilling to Polars", "为 Polars 添加朴素的核外溢写"),
    ("fix(python): Close ResourceWarning leaks in database tests", "在数据库测试中关闭 ResourceWarning 泄漏"),
    ("refactor(rust): Add statistics to spill contexts", "为 spill 上下文添加统计"),  # "spill" is no verb
    # a condition with its own 在 gets no second one (hono #5110 "在在查询模式中转发 …"); a condition opening the
    # title and "when needed" (polars #28319 had fallen back, verl #1651 read "在 needed 时")
    ("fix(method-override): set duplex when forwarding a stream body in query mode",
     "在查询模式中转发 stream body 时设置 duplex"),
    ("feat: When displaying IRExprs, only add parentheses when needed for disambiguation",
     "在显示 IRExprs 时，在消歧需要时新增括号"),
    ("fix: only load reference policy when needed in DAPO", "在 DAPO 中在需要时加载参考策略"),
    # "or" joins two nouns as "and" does (verl #4091, polars #27954); "either", "both", "Let's" (hono #3883 "头或
    # multiValueHeaders 的 either，而非 both", trl #843 "支持 both 旧和新的 …", trl #210 "Let 的支持")
    ("[megatron] fix: Use tokenizer path or model path in config", "在配置中改用分词器路径或模型路径"),
    ("feat: Add suggestions in wrong api usage or mismatched column names",
     "在错误的 API 用法或不匹配列名称中新增建议"),
    ("fix(adapter/aws-lambda): APIGWProxyResult should contain either of headers or multiValueHeaders, not both",
     "APIGWProxyResult 应包含头或 multiValueHeaders，而非两者"),
    ("Support both old and new diffusers import path", "支持旧的和新的 diffusers 导入路径"),
    ("Let's support naive Pipeline Parallelism", "支持朴素的 Pipeline Parallelism"),
    # a trailing ", with support for X" (pydantic-ai #6324, its week's most important PR, read "为 OpenAI、Gemini、
    # Azure 和 xAI 新增带有支持的带有 …")
    ("Add realtime speech-to-speech support with `Agent.realtime()`, with support for OpenAI, Gemini, Azure, and xAI",
     "基于 `Agent.realtime()` 新增实时语音到语音支持，支持 OpenAI、Gemini、Azure 和 xAI"),
    ("[reward] feat: use `load_extern_object` in `get_custom_reward_fn`, supporting pkg path",
     "在 `get_custom_reward_fn` 中改用 `load_extern_object`，支持 pkg 路径"),
    # a purpose after a condition is the whole title's (vue #13928 "清除占位并在解决，以启用 GC 后回退 el", verl #5208)
    ("fix(suspense): clear placeholder and fallback el after resolve to enable GC",
     "清除占位并在解决后回退 el，以启用 GC"),
    ("[trtllm] fix: add synchronization before resume kv_cache to prevent oom in non-leader ranks",
     "在恢复 kv_cache 前新增同步，以防止 non-leader rank 中的 oom"),
    # a title's code mended (axum #3836 "`MethodRouter` 的 s", trl #1862 "`` `setup_chat_format` ``"); "X pointing at
    # Y" (pydantic-ai #4227, a breaking highlight of its year, "默认禁止在本地网络下载 `FileUrl` 的 s 点")
    ("fix(axum): deduplicate methods in the `Allow` header after merging `MethodRouter`s",
     "在合并 `MethodRouter` 后在 `Allow` 头中去重方法"),
    ("Import missing ```setup_chat_format```", "导入缺失的 `setup_chat_format`"),
    ("Warnings pointing to RFC", "指向 RFC 的警告"),
    ("Disallow downloading `FileUrl`s pointing at the local network by default",
     "默认禁止下载指向本地网络的 `FileUrl`"),
    # a described "with" object says which thing (polars #27775, a June highlight, "用矛盾的谓词消除过滤"); a verb that
    # betters or builds a thing takes "with" as its means
    ("perf: Eliminate filters with contradictory predicates", "消除带有矛盾的谓词的过滤"),
    ("Allow HTTP/1.1 Upgrades with empty RequestBody", "允许带有空 RequestBody 的 HTTP/1.1 Upgrades"),
    ("⛰️ Reduce peak vram consumption with efficient selective log_softmax",
     "用高效的 selective log_softmax 减少 peak vram 消耗"),
    ("Refactor the loader with a new cache", "基于新的缓存重构 loader"),
    # general software words ("Harden against 异步阻塞死锁", "改进其 observability")
    ("chore: Harden against async blocking deadlocks", "防范异步阻塞死锁"),
    ("🔭 Fix package discovery configuration in setup.cfg", "修复 setup.cfg 中的包发现配置"),
    ("Flash Attention capitalization fix", "修复 Flash Attention 大小写"),
    # a version target (cargo #14975 had fallen back, hono #4571 "更新到 version 0.27.1"), "check for", "on top of"
    ("upgrade `gix` to the latest release 0.69.", "将 `gix` 升级到 0.69"),
    ("chore: update esbuild to version 0.27.1", "将 esbuild 更新到 0.27.1"),
    ("chore(ci): Check for clippy `correctness`", "检查 clippy `correctness`"),
    ("fix: Check for (shallow) IR node equality on top of hashing in CSPE",
     "除 CSPE 中的哈希外，检查 IR 节点相等性（shallow）"),
    # a link, reference or call to a thing (trl #4502, #81 had fallen back; cargo #14850 "always link to std"); a
    # trailing participle (polars #27793 "指向 AI Policy 正确的损坏的链接")
    ("Fix link to OpenEnv docs", "修复指向 OpenEnv 文档的链接"),
    ('Remove references to "listify_batch"', '移除指向 "listify_batch" 的参考'),
    ("Serialize calls to Dns.Callback", "序列化对 Dns.Callback 的调用"),
    ("fix(build-std): always link to std when testing proc-macros", "在测试 proc-macros 时始终链接到 std"),
    ("docs: Broken link to AI Policy corrected", "修正指向 AI Policy 的损坏的链接"),
    ("Nemotron 3 examples added", "新增 Nemotron 3 示例"),
    # "examples" in a title are mostly code (cargo's "examples dir", tokio's "doc examples"), 示例 as the folder
    ("codec: fix broken length_delimited builder doc examples", "修复损坏的 length_delimited builder 文档示例"),
    # everyday words of a web build tool (vite) and an RL framework (slime) that had fallen back ("修复：改动 N 个文件")
    ("fix: escape ids with multiple null bytes", "转义带有多个空字节的 ID"),
    ("fix: unwatch deleted root directory on Windows", "在 Windows 上取消监听删除的根目录"),
    ("fix(hmr): trigger prune event when last import is removed (#20781)", "在移除最后的导入时触发 prune 事件"),
    ("fix(ssr): throw friendly error when calling `ssrLoadModule` with non-runnable ssr env",
     "在用非可运行 ssr 环境调用 `ssrLoadModule` 时抛出友好的错误"),
    ("docs: fix grammar in Vite 5.1 blog post", "修复 Vite 5.1 博客文章中的语法"),
    ("test: mock vite.dev to avoid flaky failure", "模拟 vite.dev，以避免不稳定的失败"),
    ("fix: avoid circular dependency between body.ts and request.ts", "在 body.ts 和 request.ts 之间避免循环依赖"),
    ("fix: display absolute path in the `missing in PATH` warning", "在 `missing in PATH` 警告中显示绝对路径"),
    ("Do not mutate headers when initialising tableprinter", "不再在初始化 tableprinter 时修改头"),
    ("fix(build): map CSS chunks in chunk import maps (fix #22946)", "在分块导入映射中映射 CSS 分块（修复 #22946）"),
    ("Disk-level delta weight sync", "磁盘级增量权重同步"),
    # "Node 24" is the runtime (trl #4733, peft #3008, slime #1590 read "对节点 24 个兼容性升级 GitHub Actions")
    ("Upgrade GitHub Actions for Node 24 compatibility", "对 Node.js 24 兼容性升级 GitHub Actions"),
    ("ci: run tests on Node 26", "在 Node.js 26 上运行测试"),
    ("fix(legacy): workaround safari 15 error caching bug", "规避 safari 15 错误缓存问题"),  # a name's version
    ("feat: integrate with Vite Task for zero-config build caching", "对零配置构建缓存集成 Vite Task"),
    # "make X do Y" (cargo #15496 had fallen back; vite #23184 read "让 … chunkImportMap work"), a trailing
    # "consistently" (vite #22874 "改用 … 的 consistently"), embeddings, cancellation, drain, yield
    ("Make cargo script ignore workspaces", "让 cargo 脚本忽略 workspace"),
    ("fix(build): make client chunkImportMap work with `sharedPlugins: true`",
     "让客户端 chunkImportMap 兼容 `sharedPlugins: true`"),
    ("refactor(legacy): use `babel-plugin-polyfill-*` consistently", "一致地改用 `babel-plugin-polyfill-*`"),
    ("Drain spawned tasks during agent cancellation", "在智能体取消期间排空派生的任务"),
    ("Support Google embedding models", "支持 Google 嵌入模型"),
    # "fix X being Yed (in Z)" (caddy #7533 read "修复 health 检查中的 `health_port` 的 being 被忽略")
    ("reverseproxy: Fix `health_port` being ignored in health checks",
     "修复在健康检查中 `health_port` 被忽略的问题"),
    ("intercept: fix replace_status being silently dropped", "修复 replace_status 被静默丢弃的问题"),
    ("Fix fmt-c.h not being installed with fmt-c library", "修复在 fmt-c 库下 fmt-c.h 未被安装的问题"),
    # slime's week of 05-25: "Patch X for Y" (had read "修复增量同步的 Patch sglang"), "backward compatibility"
    # (反向兼容性), "X support" says what it supports (trl #5942 "Nemotron 3 Ultra 支持"), a participle after "to"
    # is no purpose (polars #27851 would read "升级，以打过补丁的版本")
    ("Patch sglang 0.5.12.post1 for delta sync", "对增量同步修补 sglang 0.5.12.post1"),
    ("Add backward compatibility to delta weight updation", "为增量权重更新添加向后兼容性"),
    ("Nemotron 3 Ultra support", "支持 Nemotron 3 Ultra"),
    ("docs: Bump to patched version", "升级到打过补丁的版本"),
    # an -ing word after "and" qualifies a noun unless an -ing verb came before it (slime #2250, its week's second
    # PR, read "新增 lightweight rollout 钩子并采样控制"; verl #3012 "支持自定义模型初始化并 FSDP 的合并")
    ("Add lightweight rollout hooks and sampling controls", "新增轻量的 rollout 钩子和采样控制"),
    ("[fsdp, trainer, ckpt] feat: support custom model init and merging for FSDP",
     "为 FSDP 支持自定义模型初始化和合并"),
    ("[ci, trtllm] test: speed up trtllm CI by using smaller models and reducing test parameters",
     "通过使用更小的模型加速 trtllm CI 并减少测试参数"),
    # apache/arrow-rs and gin-gonic/gin, read the first time (their titles had fallen back or kept English)
    ("Prepare for `55.2.0` release", "准备发布 `55.2.0`"),
    ("Update version to 59.2.0, update changelog generation to git-cliff",
     "将版本更新到 59.2.0，将 changelog 生成更新到 git-cliff"),
    ("Reduce copies in Arrow IPC writer", "在 Arrow IPC 写入器中减少拷贝"),
    ("Enable a few more clippy lints", "启用更多 clippy lint"),
    ("fix: streaming not working when tools are enabled", "在启用工具时流式无法正常工作"),
    ("Fix streaming not working when tools are enabled", "修复在启用工具时流式无法正常工作的问题"),
    ("fix(gin): literal colon routes not working with engine.Handler()",
     "在 engine.Handler() 下字面量冒号路由无法正常工作"),
    # a gerund and its object after a verb or as a whole object ("Avoid triggering" had read "使用 … 时的触发")
    ("Avoid triggering DTZ001-006 when using `.astimezone()`", "避免在使用 `.astimezone()` 时触发 DTZ001-006"),
    ("[ty] Avoid treating metaclass declarations as populated values", "避免将 metaclass 声明视为填充的值"),
    ("Add support for reading nested structs", "新增对读取嵌套结构体的支持"),
    ("[training_utils] fix: stop using `math` naming under reward score", "停止在奖励分数下使用 `math` 命名"),
    # "always" is said, before its verb, and "use" after an adverb is 使用 (a switch is 改用)
    ("always use the latest tokenizer", "始终使用最新分词器"),
    # a unit at a time, said before the verb (arrow-rs #10549 had read "在时间扫描…"); "outside Y" where the verb
    # is done, or after a noun; "convert X to Y"
    ("perf(parquet): scan DELTA_BYTE_ARRAY shared prefixes a block at a time", "逐块扫描 DELTA_BYTE_ARRAY 共享的前缀"),
    ("Move `forward_kwargs` outside the generation method", "将 `forward_kwargs` 移到生成方法之外"),
    ("[syntax-errors] `yield`, `yield from`, and `await` outside functions",
     "函数之外的 `yield`、`yield from` 和 `await`"),
    ("perf(parquet): reuse `MaskSelection`'s cached selectors when converting to selectors",
     "在转换为选择器时复用 `MaskSelection` 的缓存选择器"),
    ("feat: support casting  `Time32` to `Int64`", "支持将 `Time32` 转换为 `Int64`"),
    ("Implement PARQUET-2249: Introduce IEEE 754 total order", "实现 PARQUET-2249：引入 IEEE 754 全序"),
    ("formalize the default map field names to match default arrow specification",
     "规范化默认 map 字段名称，以匹配默认 arrow 规范"),
    # a verb the glossary did not know stayed English at the head of a Chinese line ("Diagnose 无效的 … 调用")
    ("[ty] Diagnose invalid descriptor `__get__` calls", "诊断无效的 descriptor `__get__` 调用"),
    ("Add `generation_kwargs` as a property of `GRPOConfig` to support extra generation args",
     "新增 `generation_kwargs` 作为 `GRPOConfig` 的属性，以支持额外的生成参数"),
    ("Align KTO with DPO: Inline kto_loss in _compute_loss", "让 KTO 与 DPO 对齐：在 _compute_loss 中内联 kto_loss"),
])
def test_lines_new_repositories_and_the_exports_had_printed_otherwise(title: str, zh: str) -> None:
    assert translate.title(title) == zh


def test_a_fix_titled_by_its_failure_says_it_ends_it() -> None:
    # gin #4535 "fix(tree): panic in findCaseInsensitivePathRec with RedirectFixedPath" read "…中触发 panic" in zh and
    # "Panic in …" in en, as if the PR added a panic
    title = "fix(tree): panic in findCaseInsensitivePathRec with RedirectFixedPath"
    assert headline.headline(title, "", "fix", ["tree"], 2, 40, 3) == \
        "修复带有 RedirectFixedPath 的 findCaseInsensitivePathRec 中的 panic"
    assert headline.headline(title, "", "fix", ["tree"], 2, 40, 3, "en") == \
        "Fix panic in findCaseInsensitivePathRec with RedirectFixedPath"
    assert translate.title("fix: hang on shutdown", "fix") == "修复关闭时的卡死"
    assert headline.headline("fix: typo in docs", "", "fix", [], 1, 1, 1, "en") == "Fix typo in docs"
    # a panic the fix stops is still said so, and a title that opens with its verb keeps it
    assert translate.title("fix(rustc): Don't panic on unknown bins", "fix") == "不再在未知的 bins 时触发 panic"
    assert headline.headline("fix: use correct variable", "", "fix", [], 1, 1, 1, "en") == "Use correct variable"
    assert headline.headline("[doc] chore: Bug fixes for the qwen3 model", "", "fix", [], 1, 1, 1, "en") == \
        "Bug fixes for the qwen3 model"


def test_a_gerund_inside_a_longer_phrase_is_not_guessed() -> None:
    # which words "reading" takes in "on reading papers with the hf CLI" is a guess (it had read "为带有 hf CLI 的读取
    # 论文上的 Paper Index 添加 tip"): the headline says what the engine knows instead
    title = "Add a tip to the Paper Index on reading papers with the hf CLI"
    assert headline.headline(title, "", "docs", ["docs"], 1, 3, 0) == "文档：改动 1 个文件，增删相当"


def test_what_a_line_no_longer_says() -> None:
    # a gerund the glossary does not list as a noun stays out of a noun phrase (trl #2389)
    assert "估计值" not in translate.title("Suppress warning for estimating tokens in trainers")
    assert "OR" in translate.title("fix(jwt): use `Math.floor` instead of bitwise OR for safe timestamp")  # an operator
    assert "以填充" not in translate.title("😷 Fix SFT masking EOS when equal to PAD")  # PAD is a name, no verb
    # pydantic-ai #7443 read "修正 … 列表并用 wire-probe 测试固定 them"
    assert translate.title("Correct the `ModelSettings` `Supported by:` lists and pin them with a wire-probe test") \
        .endswith("固定它们")
    # a capitalised name is no attribute (verl #1514 "将绝对 Zero 加入", peft #2577 "循环 Convolution Adaptation"), and
    # "what we mean" is English (cargo #15957 read "澄清 what we 均值")
    assert "Absolute Zero" in translate.title("Add Absolute Zero to awesome work list")
    assert "Circular Convolution" in translate.title("FEAT Add C3A (Circular Convolution Adaptation)")
    said = headline.headline("docs(index): Clarify what we mean by omitting features", "", "docs", [], 1, 9, 9)
    assert "均值" not in said, said
    # a hyphenated package is a name, not English around a thin Chinese frame (slime #2251, its week's most important
    # PR, had read "新功能：改动 119 个文件，多为删除"; cargo's cargo-semver-checks bumps "改动：涉及 v0.40.0")
    for english, zh in (("Internalize mbridge and remove megatron-bridge", "内置 mbridge 并移除 megatron-bridge"),
                        ("chore(deps): update cargo-semver-checks to v0.40.0", "将 cargo-semver-checks 更新到 v0.40.0"),
                        ("chore: upgrade markdown-it-image-size", "升级 markdown-it-image-size")):
        assert translate.title(english) == zh and translate.leftover(zh) == 0
    # ... but a prefixed verb, a hyphenated adjective and "need" are English (cargo #16570, trl #2044, verl #6498)
    for english in ("Re-downgrade curl-sys", "make cuda-only tests device-agnostic",
                    "fix: Make Expr.hash on Categorical mapping-independent",
                    "[ci] chore: triton-ascend==3.2.1 need install path in docker"):
        assert translate.leftover(translate.title(english)) > 0, english
    # "make tests pass" is no 传递 (peft #3226), nor "make the assert …" a verb (verl #5735)
    assert "传递" not in translate.title("TST Make GPU tests pass on devices with lots of VRAM")
    assert translate.leftover(translate.title("make the assert user-friendly for `get_tensordict`")) > 0
    # a term the glossary keeps in English ("trainer", "changelog") is no English around a thin frame (verl #5909,
    # cargo #15119 had fallen back to "修复：改动 6 个文件，增删相当")
    for english, zh in (("[trainer,perf] fix: enable profiler for SFT trainer", "为 SFT trainer 启用 profiler"),
                        ("Move the changelog to the cargo book", "将 changelog 移到 cargo book")):
        assert headline.headline(english, "", "fix", [], 6, 10, 10) == zh
    # "X and above" is 及以上 (verl #3072 read "以支持 hf transformer==4.54.0 和 above"); "below 3.14" is English
    assert translate.title("[fsdp] fix: patch fsdp2 to support hf transformer==4.54.0 and above") == \
        "修补 fsdp2，以支持 hf transformer==4.54.0 及以上"
    assert translate.title("Update X for vllm versions 0.13.0 and above") == "为 vllm 版本 0.13.0 及以上更新 X"
    assert translate.leftover(translate.title("Pin hatchling below 1.32 for release builds"))
    # "window" was tried and left out: the glossary's plural lookup read the system, Windows, as 窗口
    assert "Windows" in translate.title("Fix CacheTest on Windows")


def test_stray_backticks_are_mended() -> None:
    # pydantic-ai #7412 "… bugs from `#6676```" had read "`#6676` `` 中的"
    mended = translate.strip
    assert mended("Fix inherited realtime WebRTC and Azure `for_realtime` bugs from `#6676```") == \
        "Fix inherited realtime WebRTC and Azure `for_realtime` bugs from `#6676`"
    assert mended("match the rest of trl/experimental`") == "match the rest of trl/experimental"


def test_a_fallback_headline_names_the_code_its_title_quotes() -> None:
    # polars #28355, its week's most important PR, led the highlights as "修复：改动 9 个文件，多为新增"
    said = headline.headline("fix: Raise error instead of silent wrapping for `select(len())`", "", "fix",
                             ["polars-expr"], 9, 120, 10)
    assert said == "修复：涉及 `select(len())`", said  # code stays code
    # a span that is no name ("%", ".1", "<p>") is skipped; a long expression is named by its identifiers
    assert headline.headline("Fix mdman to not incorrectly strip `<p>` tags", "", "fix", [], 44, 10, 10) == \
        "修复：改动 44 个文件，增删相当"
    assert headline.headline("fix doc: penalty starts when it exceeds `max_response_length - overlong_buffer.len`",
                             "", "fix", [], 2, 3, 3) == "修复：涉及 max_response_length、overlong_buffer.len"
    # a span over 40 characters pairs its own ticks (pydantic-ai #5681 read "涉及 `so request omits`、`, and`")
    assert headline.headline("Fix `GoogleModelSettings.google_cached_content` so request omits `system_instruction`, "
                             "`tools`, and `tool_config`", "", "fix", [], 2, 30, 3) == \
        "修复：涉及 `GoogleModelSettings.google_cached_content`"


def test_a_title_named_like_a_branch_says_its_type_and_then_what_it_does() -> None:
    # slime #1929, its week's seventh PR, read "Feat/minimax m2.5 支持"; verl #1212 "Feat/memory 优化的损失"
    assert headline.headline("Feat/minimax m2.5 support", "", "feat", [], 3, 90, 5) == "支持 minimax m2.5"
    assert headline.headline("Feat/memory optimized loss", "", "feat", [], 3, 90, 5) == "内存优化的损失"
    from prhub.engine.scoring import parse_title

    assert parse_title("Fix/qwen3 5 mtp bridge")[:2] == ("qwen3 5 mtp bridge", "fix")
    assert parse_title("fix/foo.py")[1] is None  # a path is not a branch's name
    assert headline.headline("Feat/minimax m2.5 support", "", "feat", [], 3, 90, 5, lang="en") == "Minimax m2.5 support"


def test_a_headline_that_is_a_bare_verb_falls_back_to_what_the_diff_did() -> None:
    # slime's July named #2183 "cleanup" as "清理" among its key PRs; trl #116 "fix" read "修复"
    assert headline.headline("cleanup", "", "refactor", [], 9, 10, 200) == "重构：改动 9 个文件，多为删除"
    assert headline.headline("fix", "", "fix", [], 1, 5, 5) == "修复：改动 1 个文件，增删相当"
    # "bugfix on X" fixes X (slime #1420 had read "修复修复对 UpdateWeightFromDistributed 的处理")
    assert headline.headline("bugfix on UpdateWeightFromDistributed", "", "fix", [], 1, 5, 5) == \
        "修复 UpdateWeightFromDistributed 的问题"


def test_a_headline_s_first_clause_ends_outside_a_quote() -> None:
    # pydantic-ai #4859 led its year's highlights as "新功能：“output validate/process hooks" (an open quote): the
    # summary quotes the English title, cut at the ";" inside it
    title = "feat(capabilities)!: output validate/process hooks; scope `prepare_tools` to function tools"
    summary = "新功能：“output validate/process hooks; scope `prepare_tools` to function tools”，属于破坏性变更。"
    assert headline.headline(title, summary, "feat", [], 10, 100, 10) == "新功能：涉及 `prepare_tools`"


def test_a_revert_says_the_reverted_title_in_chinese_where_it_can() -> None:
    from prhub.engine import gist

    # cargo #14799 quoted the English title ("回滚 “feat: Add `CARGO_RUSTC_CURRENT_DIR`”"); verl #4259 fell back
    assert gist.doing('Revert "feat: Add `CARGO_RUSTC_CURRENT_DIR`"', "revert") == \
        "回滚“新增 `CARGO_RUSTC_CURRENT_DIR`”"
    assert gist.doing('Revert "[worker] feat: add support for colocate replicas"', "revert") == \
        "回滚“新增对 colocate 副本的支持”"
    # a title the glossary cannot carry stays the author's, quoted
    assert gist.doing('Revert "Frobnicate the widgets"', "revert") == "回滚 “Frobnicate the widgets”"


def test_a_clipped_line_closes_its_quote_and_leaves_no_code_open() -> None:
    from prhub.engine.wording import clip

    # vite's July appendix titled a related group "“don't crash stack-trace source mapping when…：", its quote open
    said = clip("“don't crash stack-trace source mapping when globalThis.Buffer is absent”", 45)
    assert said == "“don't crash stack-trace source mapping when…”", said
    # trl #2510's headline had ended inside code ("重命名为 `…"), which opens code to the end of the page
    said = clip("将 collator `PreferenceCollator` 重命名为 `DataCollatorForPreference`", 40)
    assert said == "将 collator `PreferenceCollator` 重命名为…", said


def test_an_en_headline_of_one_bare_word_says_what_the_diff_did() -> None:
    # slime's "bugfix" and "cleanup", trl's "fix": the en key-PR table had listed "Bugfix", "Cleanup", "Fix"
    said = headline.headline("cleanup", "", "refactor", [], 9, 10, 200, lang="en")
    assert said == "Cleanup: 9 files, +10/−200 lines" and headline.says_size(said)
    assert headline.headline("fix: typo", "", "fix", [], 1, 1, 1, lang="en") == "Typo: 1 file, +1/−1 lines"
    assert headline.says_size("Typo: 1 file, +1/−1 lines")
    assert headline.headline("🎞️ GSPO", "", "feat", [], 4, 300, 2, lang="en") == "GSPO"  # a name names the change
    # a type word's colon needs no space (ms-swift #9898 "fix:MiMo audio input" read "Fix:MiMo audio input")
    assert headline.headline("fix:MiMo audio input", "", "fix", [], 1, 5, 5, lang="en") == "MiMo audio input"


def test_a_headline_that_is_only_a_name_says_its_type_and_a_release_says_so() -> None:
    # ms-swift's week of 08-10 had a highlight that read "#9914 qwen3.8."; trl's "Release: v1.9" read "v1.9"
    assert headline.headline("[model] qwen3.8", "", "feat", ["model"], 3, 90, 5) == "新功能：qwen3.8"
    assert headline.headline("Release: v1.9", "", "chore", [], 2, 2, 2) == "发布 v1.9"
    assert headline.headline("Python Polars 1.43.0", "", "refactor", [], 2, 2, 2) == "发布 Python Polars 1.43.0"
    # "keep X optional" keeps it so (ms-swift #9886 read "保留 MiMo 依赖可选")
    assert translate.title("fix(template): keep MiMo dependencies optional") == "保持 MiMo 依赖可选"


def test_serving_and_runtime_words_of_lmdeploy_and_tokio_titles() -> None:
    # lmdeploy's week of 06-08 listed #4656 and #4645 as "新功能：改动 7 个文件，多为新增" in its key-PR table
    assert translate.title("Fuse gdr preprocess") == "融合 gdr 预处理"
    assert translate.title("Improve engine health monitoring") == "改进引擎健康监控"
    assert translate.title("refactor: simplify multimodal preprocessing expansion") == "简化多模态预处理展开"
    assert translate.title("time: wake `DelayQueue` when cleared") == "在清空时唤醒 `DelayQueue`"  # had read 明确的
    assert translate.title("runtime: wake deferred tasks before entering `block_in_place`") == \
        "在进入 `block_in_place` 前唤醒推迟的任务"
    assert translate.title("sync: document memory ordering guarantees for Semaphore") == "为 Semaphore 说明内存顺序保证"
    # a model's version before "image" names no container (LLaMA-Factory #10478 had read 镜像预处理); a tag's does
    assert translate.title("[fix] Fix MiniCPM-V-4.6 image preprocessing behavior") == \
        "修复 MiniCPM-V-4.6 图像预处理行为"
    assert translate.title("upgrade cuda12.4 image to 12.8") == "将 cuda12.4 镜像升级到 12.8"
    # the comma before "via" closes the object (cli #8824 had read "对命令和 subcommands、列出…")
    assert translate.title("add aliases for the command and subcommands, via help") == \
        "通过帮助为命令和 subcommands 新增别名"
    # "throughout" is English a zh reader would have to read: the headline falls back (trl #654)
    assert headline.english_prose(translate.title("Resolve various typos throughout the docs"))


def test_a_pr_told_only_by_a_name_is_told_by_its_headline() -> None:
    # LLaMA-Factory's April highlights read "模型：#10346 gemma4。" where its key-PR table said "新功能：gemma4"
    from prhub.engine import telling

    entry = {"number": 10346, "title": "[model] gemma4", "type": "feat", "modules": ["model"], "summary": "gemma4",
             "breaking": False, "breaking_reason": "", "changed_files": 6, "additions": 300, "deletions": 2,
             "headline": "新功能：gemma4"}
    assert telling.pr_told(entry, True)[0] == "新功能：gemma4"
    # a summary in Chinese stays the line (the headline may say less)
    told = {**entry, "title": "[model] support gemma4", "summary": "支持 gemma4 的多模态输入",
            "headline": "支持 gemma4"}
    assert telling.pr_told(told, True)[0] == "支持 gemma4 的多模态输入"
    # "low" and "high" are said (LLaMA-Factory #10300 had read "为 low 内存占用权重加载…")
    assert translate.title("[misc] fix high memory usage") == "修复高内存占用"


def test_a_headline_quotes_no_english_title_and_an_adverb_stands_before_its_verb() -> None:
    # lmdeploy's week of 03-23 highlighted "#4393 重构：“Builtin mrope”"; "Builtin" is now said, and a title the
    # translator cannot carry is not quoted in a headline: the type and what the diff did, or the names it gives
    assert headline.headline("Builtin mrope", "", "refactor", [], 30, 700, 682) == "内置 mrope"
    assert headline.headline("Simplify backtrack", "", "refactor", [], 1, 20, 20) == "重构：改动 1 个文件，增删相当"
    assert headline.headline("🎁 `RewardTrainer` refactor", "", "feat", [], 3, 90, 80) == "`RewardTrainer` 重构"
    assert headline.headline("🎁 `RewardTrainer` teardown", "", "feat", [], 3, 90, 80) == "新功能：涉及 `RewardTrainer`"
    # one or two words that name something are that name, unquoted
    assert headline.headline("[XPO] xpo trainer", "", "feat", ["xpo"], 10, 900, 3) == "新功能：xpo trainer"
    # "fully implement X in Y": the adverb before its verb, after where (lmdeploy #4429 had fallen back)
    assert translate.title("feat: fully implement compressed-tensors gs32 support in TurboMind") == \
        "在 TurboMind 中完整实现 compressed-tensors gs32 支持"
    assert translate.title("[hardware] fix: automatically set device for SFT case") == "为 SFT 情况自动设置设备"


def test_zh_prose_quotes_no_english_title_for_a_revert_or_a_member() -> None:
    from prhub.engine import telling
    from prhub.engine.scoring import _Reverted

    # vue's week of 2025-09-22 had "回滚：#13925，回滚 “fix(hmr): prevent `__VUE_HMR_RUNTIME__` from being
    # overwritten by vue runtime in 3rd-party libraries”" in its risks at a glance
    title = "fix(hmr): prevent `__VUE_HMR_RUNTIME__` from being overwritten by vue runtime in 3rd-party libraries"
    assert _Reverted(None, title).named("zh") == "涉及 `__VUE_HMR_RUNTIME__` 的改动"
    assert _Reverted(None, "[style] minor: remove subclass").named("zh") == "“移除 subclass”"
    assert _Reverted(None, title).named("en") == f"“{title}”" and _Reverted(13925, title).named("zh") == "#13925"
    # ms-swift's week of 2026-03-09 highlighted "#8249 新功能：“compat transformers 5.3.0”"
    entry = {"number": 8249, "title": "[compat] compat transformers 5.3.0", "type": "feat", "modules": ["compat"],
             "summary": "新功能：“compat transformers 5.3.0”。", "breaking": False, "breaking_reason": "",
             "changed_files": 3, "additions": 40, "deletions": 2, "headline": "新功能：改动 3 个文件，多为新增"}
    assert telling.pr_told(entry, True)[0] == "新功能：改动 3 个文件，多为新增"


def test_make_x_adj_keeps_what_follows_the_attribute() -> None:
    # "make X more modular" had read "让 X 变为更多" (more as 更多, modular dropped); okhttp #9112 "Make Request.toCurl
    # work more like Chrome's 'copy as cURL'" had read "让 Request.toCurl work 变为更多", its comparison dropped
    assert translate.title("[trainer] refactor: make main_ppo TaskRunner more modular") == \
        "让 main_ppo TaskRunner 变得更模块化"
    assert translate.title("fix(tree): Make output more deterministic") == "让输出变得更确定性"
    assert headline.english_prose(translate.title("Make Request.toCurl work more like Chrome's 'copy as cURL'"))
    assert translate.title("axum-extra: Make axum optional dependency") == "将 axum 设为可选依赖"
    assert translate.title("[reward] fix: make `RateLimitedRewardManager` accept legacy kwargs") == \
        "让 `RateLimitedRewardManager` 接受旧版 kwargs"
    assert translate.title("[recipe] fix: make LangGraph agent example runnable out-of-the-box") == \
        "让 LangGraph 智能体示例变为可运行、开箱即用"
    assert translate.title("[fix] make position_id_per_seconds configurable for Qwen2OmniPlugin") == \
        "让 position_id_per_seconds 对 Qwen2OmniPlugin 可配置"
    # "more" before an attribute is a comparative in a noun phrase too
    assert translate.title("fix(types): more precise inference for chained expressions") == "chained 表达式的更精确推理"
    assert translate.title("make X optional") == "让 X 变为可选"


def test_start_doing_is_to_begin_not_to_launch() -> None:
    # okhttp's week of 2025-10-06 read "#9111 启动 publishing dispatcher 队列事件"
    assert translate.title("Start publishing dispatcher queue events") == "开始发布 dispatcher 队列事件"
    assert translate.title("Start including ECH data in RouteSelector results") == \
        "开始在 RouteSelector 结果中包含 ECH 数据"
    assert translate.title("start vllm server") == "启动 vllm 服务端"  # a thing started is launched


def test_what_a_review_of_the_tenth_session_found() -> None:
    from prhub.engine.scoring import _Reverted

    # "more" counts before things and compares before one ("Add more native completions" had read 更原生补全)
    assert translate.title("feat(tree): Add more native completions") == "新增更多原生补全"
    assert translate.title("More helpful error for invalid cargo-features = []") == \
        "无效的 cargo-features = [] 的更有用的错误"
    # a count of images is no container's tag, a tag in capitals is
    assert translate.title("Fix crash with 2 images") == "修复带有 2 个图像的崩溃"
    assert translate.title("upgrade vLLM-0.8.5 image") == "升级 vLLM-0.8.5 镜像"
    # the adverb goes before the main verb, not before the first word that reads like it
    assert translate.title("safely close connections when closing the pool") == "在关闭池时安全地关闭连接"
    # "for Z" says for whom, not whose (verl #1370 had read "让异步函数的装饰器 register 变为可用")
    assert translate.title("[ray] feat: Making decorator register available for async function") == \
        "让装饰器 register 对异步函数可用"
    # an -ing word the glossary knows as a state is no action ("fix existing tests" had read 修复存在测试)
    assert translate.title("fix existing tests") == "修复现有的测试"
    assert translate.title("start existing services") != "开始存在 services"
    # a revert risk says no Chinese sentence with English grammar left in it
    assert _Reverted(None, "fix(hmr): prevent runtime from being overwritten").named("zh") == "此前的改动"
    # one or two lower-case words that name something stay a name ("flowgrpo trainer", 35 files of verl's)
    assert headline.headline("[5/n][trainer] feat: flowgrpo trainer", "", "feat", ["trainer"], 35, 3000, 9) == \
        "新功能：flowgrpo trainer"
    assert headline.headline("realign values", "", "refactor", [], 1, 3, 3) == "重构：改动 1 个文件，增删相当"


def test_a_headline_that_knows_only_the_diff_says_where_in_the_repository() -> None:
    # verl 07-13's key-PR table listed #6680 (7.4) as "新功能：改动 11 个文件，多为新增": of what part, it did not say
    said = headline.headline("Whatever thing", "", "feat", ["rollout"], 11, 900, 10)
    assert said == "新功能：rollout 模块，改动 11 个文件，多为新增" and headline.DIFF_ONLY.search(said)
    assert headline.headline("Whatever thing", "", "feat", ["misc"], 11, 900, 10) == "新功能：改动 11 个文件，多为新增"
    assert headline.headline("Whatever thing", "", "docs", ["doc"], 1, 9, 10) == "文档：改动 1 个文件，增删相当"


def test_a_title_of_two_sentences_reads_as_two_clauses() -> None:
    # verl #32 had read "让 wandb 可选 dependency. 在现有的脚本中允许额外的参数"
    assert translate.title("[example] fix: make wandb optional dependency. allow extra args in existing scripts") == \
        "将 wandb 设为可选依赖；在现有的脚本中允许额外的参数"
    assert translate.title("Fix crash. Add tests") == "修复崩溃；补充测试"
    # an abbreviation's period ends no sentence
    assert "；" not in translate.title("Misc. clean-up for import resolver")
    assert "；" not in translate.title("support models, e.g. Qwen")


def test_latin_abbreviations_and_w_slash_are_said_in_chinese() -> None:
    # verl #5612 had read "…的处理器（e.g. Qwen3.5）", peft #2551 "对齐 xpu 行为 w/ cuda"
    assert translate.title("[config] fix: sync chat_template from tokenizer to processor for multimodal base models "
                           "(e.g. Qwen3.5)") == "将 chat_template 从分词器同步到多模态基础模型的处理器（例如 Qwen3.5）"
    assert translate.title("align xpu behavior w/ cuda") == "让 xpu 行为与 cuda 对齐"
    assert translate.title("Preserve trivia (i.e. comments) in PLR5501") == "在 PLR5501 中保留 trivia（即注释）"
    assert translate.title("[ty] Use `Box<SystemPath>` etc. in `Files`") == "在 `Files` 中改用 `Box<SystemPath>` 等"


def test_linter_and_type_checker_words_from_ruff() -> None:
    # ruff's titles kept these in English: "减少 FastAPI false positives", "为 ecosystem 检查添加…", "enum 成员访问"
    assert translate.title("Reduce FastAPI false positives in `unused-async` (`RUF029`)") == \
        "在 `unused-async`（`RUF029`）中减少 FastAPI 误报"
    assert translate.title("Support enum member access via enum instances and members") == \
        "通过枚举实例和成员支持枚举成员访问"
    assert translate.title("Exclude broken symlinks in ecosystem checks") == "在生态检查中排除损坏的符号链接"
    assert translate.title("test: Ignore very slow test") == "忽略非常慢速测试"
    # Python's words for code: ruff's titles had kept comprehension, overload, subscript, namespace in English
    assert translate.title("Extend `PERF102` to comprehensions and generators") == "将 `PERF102` 扩展到推导式和生成器"
    assert translate.title("Detect empty implicit namespace packages") == "检测空隐式命名空间包"
    assert translate.title("Improve subscript assignment diagnostics") == "改进下标赋值诊断信息"
    # ... and the words of editors and diagnostics; a preposition left in English sends the line to the fallback
    assert translate.title("Include error location in GitHub Action diagnostic messages") == \
        "在 GitHub Action 诊断信息消息中包含错误位置"
    assert translate.title("Bump minimum tokio version to 1.38") == "将最小 tokio 版本升级到 1.38"
    assert headline.english_prose(translate.title("Refactor whitespace around operators"))


def test_a_version_alone_names_nothing_in_a_fallback() -> None:
    # a zh digest of lmdeploy listed #4605 as "性能：涉及 v0.2.1"
    said = headline.headline("perf(guided-decoding): optimize with async D2H copy and xgrammar v0.2.1", "", "perf",
                             ["serve"], 4, 90, 3)
    assert "v0.2.1" not in said and said == "性能：serve 模块，改动 4 个文件，多为新增"
    # where the title is said whole its version stays in it ("widen" is known now): the name is no fallback
    assert headline.headline("feat(deps): widen `@vitejs/devtools` peer range to v0.5.0", "", "feat", ["deps"], 2, 3,
                             3) == "将 `@vitejs/devtools` 的 peer 范围放宽为 v0.5.0"


def test_a_long_migration_keeps_whole_parts() -> None:
    # LLaMA-Factory's week of 2026-01-05 read "迁移：将公共模块 `model_loader.py` 移到 `model_engine.py`；将公共模块
    # `trainer_utils/__init__.py` 移到，升级前需修改受影响的用法。": the second move cut before its target
    from prhub.engine import narrative

    reason = ("将公共模块 `src/llamafactory/v1/core/model_loader.py` 移到 `src/llamafactory/v1/core/model_engine.py`；"
              "将公共模块 `src/llamafactory/v1/core/trainer_utils/__init__.py` 移到 "
              "`src/llamafactory/v1/utils/__init__.py`")
    pr = {"number": 9721, "title": "[v1] add cli sampler", "breaking_reason": reason, "breaking": True}
    said = narrative._consequence(pr, True, numbered=False)
    assert said == "迁移：将公共模块 `model_loader.py` 移到 `model_engine.py` 等，升级前需修改受影响的用法。", said


def test_non_before_a_word_is_fei() -> None:
    # polars' June read "为 non 原生方案新增外部 `object_store` 支持"
    assert translate.title("Add external object_store support for non-native schemes") == \
        "为非原生方案新增外部 object_store 支持"
    assert translate.title("[ty] Check non-generic overload implementations") == "检查非通用重载实现"


def test_two_bumps_in_one_title_read_as_two() -> None:
    # verl #6215 had fallen back to "CI 流水线，改动 2 个文件，增删相当" (it read "将 trtllm to 1.3.0rc13 和 verl …")
    assert translate.title("[ci] chore: bump trtllm to 1.3.0rc13 and verl to v0.7.1") == \
        "将 trtllm 升级到 1.3.0rc13，将 verl 升级到 v0.7.1"
    assert translate.title("update vllm to 0.9 and fix tests") == "将 vllm 更新到 0.9 并修复测试"  # a bump and a fix


def test_a_feature_titled_by_what_it_brings_is_said_as_adding_it() -> None:
    # verl 2026-06-15's table read "#6790 | 可运行的独立的异步 trainer" (a noun, no verb), 2026-07's month
    # "#7181 Megatron-Bridge 参数映射上的 delta_sharded" (and a space before its "（")
    from prhub.engine import gist

    assert gist.doing("A runnable separate async trainer", "feat") == "新增可运行的独立的异步 trainer"
    assert gist.doing("delta_sharded on Megatron-Bridge param mappings (TP+EP, hybrid-Mamba)", "feat") == \
        "新增 Megatron-Bridge 参数映射上的 delta_sharded（TP+EP、hybrid-Mamba）"
    assert gist.doing("new command `cargo report sessions`", "feat") == "新增命令 `cargo report sessions`"
    # what has a verb already, or says a change of something there, stays as it is
    assert gist.doing("always use robust `get_event_loop`", "feat") == "始终使用 robust `get_event_loop`"
    assert gist.doing("TensorLoRARequest support newer vLLM versions", "feat") == \
        "TensorLoRARequest 支持较新的 vLLM 版本"
    assert not gist.doing("wordle model_id updates", "feat").startswith("新增")
    assert gist.doing("A runnable separate async trainer", "refactor") == "可运行的独立的异步 trainer"


def test_coordinated_with_follows_and_a_series_mark_ends_its_clause() -> None:
    # trl #4792 read "基于 DPO [a/N] 重构 KTO coordinated：移除对 encoder-decoder 的支持"
    assert translate.title("Refactor KTO coordinated with DPO [a/N]: Remove encoder-decoder support") == \
        "参照 DPO 重构 KTO [a/N]：移除对 encoder-decoder 的支持"
    assert translate.title("Refactor vLLM generation [1/N]: Extract vLLM generation") == \
        "重构 vLLM 生成 [1/N]：提取 vLLM 生成"


def test_a_check_that_a_plural_subject_does_something_and_a_change_from_a_to_b() -> None:
    # trl's week of 2026-06-08 fell back to facts for both: "新功能：CI 流水线，主要改动 `chat_template_utils.py`…"
    # (#5988) and "新功能：涉及 `loss_type`、`nll`" (#5997)
    assert translate.title("[CI] Check that training chat templates keep the stop token in the loss mask") == \
        "检查训练对话模板在损失掩码中保留停止 token"
    assert translate.title("Announce upcoming SFT `loss_type` default change from `'nll'` to `'chunked_nll'`") == \
        "预告 SFT `loss_type` 默认值即将从 `'nll'` 改为 `'chunked_nll'`"
    assert translate.title("tokenizer change from v1 to v2") == "分词器从 v1 改为 v2"
    # without "that" no sentence is guessed: a plural noun before a verb may be a list's item
    assert "保留" not in translate.title("Check training chat templates keep")


def test_words_verl_fixes_fell_back_on() -> None:
    # each of these fell back to "修复：涉及 …": a word the glossary lacked (handles, manual, re-wrap, shutdown) or a
    # trailing "instead" the Chinese verb says already (改用)
    assert translate.title("[ci] fix: remove uv usage from A2 vlm_rl_job, use pip instead") == \
        "从 A2 vlm_rl_job 中移除 uv 用法，改用 pip"
    assert translate.title("[trainer] fix: gracefully shutdown trainer with TransferQueue") == \
        "用 TransferQueue 优雅地关闭 trainer"
    assert translate.title("[vllm] fix: use data-parallel rank in vLLM ZMQ handles") == \
        "在 vLLM ZMQ 句柄中改用 data-parallel rank"
    assert translate.title("[veomni, fsdp] fix: skip manual model.to(device) under FSDP2 CPU offload") == \
        "在 FSDP2 CPU offload 下跳过手动的 model.to(device)"
    # "handle" stays a verb: "Make UI tests handle hyperlinks consistently"
    assert "处理" in translate.title("Make UI tests handle hyperlinks consistently")


def test_what_caused_a_failure_and_where_a_class_moved() -> None:
    # trl's week of 2026-02-09 headed eight breaking removals "重构：trainer 模块，主要改动 `xpo_trainer.py`（共 5 个
    # 文件），多为删除"; verl #5866 and trl #4454 fell back to "修复：涉及 vLLM" and "修复：涉及 old_per_token_logps"
    assert translate.title("Remove deprecated XPO after moved to experimental") == "移除已移至实验特性的已弃用的 XPO"
    assert translate.title("Remove deprecated classes moved to experimental") == "移除已移至实验特性的已弃用的类"
    assert translate.title("Fix vLLM synchronization error caused by SGLang skipping resume optimize") == \
        "修复 SGLang 跳过断点续训 optimize 导致的 vLLM 同步错误"
    assert translate.title("fix the GFPO loss calculation error caused by unmodified old_per_token_logps") == \
        "修复 unmodified old_per_token_logps 导致的 GFPO 损失计算错误"
    # the cause belongs to what the purpose prevents, not to what is added
    assert translate.title("Add assert to prevent reward NaN caused by overlong_cfg.len=0") == \
        "新增断言，以防止 overlong_cfg.len=0 导致的奖励 NaN"
    from prhub.engine import gist

    assert gist.doing("occasional CI failures caused by sglang server port conflicts", "fix") == \
        "修复 sglang 服务端端口冲突导致的偶发的 CI 失败"


def test_what_a_fix_could_not_find() -> None:
    # verl #2116 "fix rollout key not found" fell back to "修复：rollout 模块，改动 1 个文件，增删相当"
    assert translate.title("fix rollout key not found") == "修复找不到 rollout 键的问题"
    assert "找不到 404" not in translate.title("update recipe link to fix 404 not found")  # the error's name


def test_a_thing_and_what_it_does_and_aligning_with_one() -> None:
    # verl #2146 fell back to "新功能：工具，主要改动 `schemas.py`（共 11 个文件），多为新增", #4153 to
    # "修复：vllm 模块，…"
    assert translate.title("[tool] feat: Add support for tools that generate multimodal data") == \
        "新增对生成多模态数据的工具的支持"
    assert translate.title("docs: List all trainers that support Liger Kernel") == \
        "列出支持 Liger Kernel 的所有 trainer"
    assert translate.title("[vllm] fix: Change parameter validation to align with vllm validation") == \
        "修改参数校验，以与 vllm 校验对齐"
    # ", which …" is an aside, not which docstring (trl #6390: "修复描述实际的行为的 opposite 的 … docstring、")
    assert "描述实际的行为的" not in translate.title(
        "Fix BEMACallback bias_power docstring, which described the opposite of the actual behavior")


def test_what_is_extracted_goes_somewhere() -> None:
    # cargo #16091, #16195, #16222 fell back to "重构：gctx 模块，主要改动 `error.rs`（共 2 个文件），增删相当"
    assert translate.title("refactor(gctx): extract error to a module") == "将错误提取到模块"
    assert translate.title("refactor: extract ConfigValue to its own module") == "将 ConfigValue 提取到其独立的模块"
    assert translate.title("extract the helper") == "提取辅助函数"


def test_what_a_fix_makes_true_is_said_with_its_modal() -> None:
    # cargo #16638, #16213, #16824 and verl #5771 had fallen back to "修复：涉及 `host.runner`、`cargo run`",
    # "修复：涉及 build.warnings" and "修复：trainer 模块，改动 `tracking.py`，多为新增"
    assert translate.title("fix(host-config): `host.runner` should not apply to `cargo run`") == \
        "`host.runner` 不应作用于 `cargo run`"
    assert translate.title("fix(compile): build.warnings=deny shouldn't block hard warnings") == \
        "build.warnings=deny 不应阻止硬性警告"
    assert translate.title("fix(compile): build.warnings=allow should not hide denied diagnostics") == \
        "build.warnings=allow 不应隐藏被拒绝的诊断信息"
    assert translate.title("[trainer] fix: MLFlow publishing metrics failure should be non-blocking.") == \
        "MLFlow 发布指标失败应是非阻塞的"
    # a fix's "X should be …" is what it makes true, not the bug ("修复 X 为 None 的问题" is)
    assert translate.title("fix: tokenizer should be None", "fix") == "分词器应为 None"
    assert translate.title("fix: tokenizer is None", "fix") == "修复分词器为 None 的问题"
    # told by the title's modal, not by a 应 in the Chinese (响应 holds one)
    assert translate.title("fix: response is None", "fix") == "修复响应为 None 的问题"
    # a longer subject before a modal, an adverb after it, and "can't" still 无法
    assert translate.title("main generation should also use pad/unpad from verl.protocol").startswith("main 生成也应")
    assert translate.title("env table config can't trigger rebuild with `rerun-if-env-changed`").startswith(
        "环境表格配置无法")


def test_how_or_when_to_do_something_is_an_object_not_a_purpose_or_a_condition() -> None:
    # cargo #16851, #17117, #17118 and #16459 had fallen back to "修复：toml 模块，主要改动 `toml/mod.rs`…" and
    # "重构：git 模块，…"
    assert translate.title("fix(toml): Teach users how to pin edition") == "告诉用户如何固定 edition 版本"
    assert translate.title("fix(add): list too-new versions and how to override") == "列出过新的版本以及如何覆盖"
    assert translate.title("fix(resolver): hint how to resolve too-new versions") == "提示如何解决过新的版本"
    assert translate.title("Let git decide when to run gc") == "让 git 决定何时运行 gc"
    assert translate.title("docs: explain how to use the cache") == "解释如何使用缓存"
    assert translate.title("docs(guide): Clarify where to set config") == "澄清在哪里设置配置"
    assert translate.title("skip X when Y is set") == "跳过设置 Y 时的 X"  # a condition still
    # a purpose before a "how to" stays one (verl #2131)
    assert translate.title("add a test to demonstrate how to perform p2p communication") == \
        "新增测试，以演示如何执行 p2p 通信"


def test_a_promotion_and_the_words_trl_and_cargo_fell_back_on() -> None:
    # trl #6175, #6140, #6208 and cargo #16768, #17198, #17331 had fallen back to "新功能：trainer 模块，主要改动
    # `kto/__init__.py`…", "修复：git 模块，…", "重构：解析器，…"
    assert translate.title("Promote KTO to stable API") == "将 KTO 提升为稳定 API"
    assert translate.title("Add entropy regularization to GRPO") == "为 GRPO 添加熵正则化"
    assert translate.title("Add MoE load-balancing auxiliary loss to `DPOTrainer`") == \
        "为 `DPOTrainer` 添加 MoE 负载均衡辅助损失"
    assert translate.title("fix: fetching non-standard git refspecs on non-github repos") == \
        "在 non-github 仓库上获取非标准的 git refspecs"
    assert translate.title("fix: dont apply host-config gating to stable behavior") == \
        "不再将 host-config 门控应用到稳定行为"
    assert translate.title("refactor(resolver): resolve() does not need an optional gctx") == \
        "resolve() 不需要可选 gctx"
    # "needed" after "when" is no verb: verl #1651 keeps its line
    assert translate.title("fix: only load reference policy when needed in DAPO") == "在 DAPO 中在需要时加载参考策略"


def test_a_verb_without_an_object_says_its_condition_first() -> None:
    # cargo #16965, trl #5238, #3543 and verl #819 had fallen back to "新功能：核心，主要改动 `compiler/mod.rs`…",
    # "重构：涉及 vLLM", "修复：涉及 generate_sequences"
    assert translate.title("Rebuild when -Zpublic-dependency changes") == "在 -Zpublic-dependency 改动时重建"
    assert translate.title("[GRPO/RLOO] Tokenize before vLLM generation call") == "在 vLLM 生成调用前分词"
    assert translate.title("[TRLParser] Fail when unknown args are provided in the config file.") == \
        "在配置文件中提供未知的参数时失败"
    assert translate.title("[log] fix: log after generate_sequences") == "在 generate_sequences 后记录"
    # "check if X" asks whether; a second condition is not nested into the first
    assert "时检查" not in translate.title("fix(flock): check if they are marked unsupported in libstd")
    assert "时存在时" not in translate.title(
        "[worker] fix: create a new event loop if none exists when building rollouts")


def test_a_kept_name_of_several_words_is_no_thin_frame() -> None:
    # verl #5561 "model engine support mtp" (importance 8.6) was quoted in English, then fell back to "新功能：megatron
    # 模块，主要改动 `mtp_patch.py`…": "model engine" is a name the glossary keeps, yet its two words, each of which
    # translates, counted as English against a frame of two Chinese characters.
    assert translate.title("model engine support mtp", "feat") == "model engine 支持 mtp"
    assert translate.leftover("model engine 支持 mtp") == 0
    assert gist.doing("model engine support mtp", "feat") == "model engine 支持 mtp"
    assert gist.doing("[worker] fix: Model engine parameter offload", "fix") == "修复 model engine 参数 offload"
    # its words still count where they are not that name
    assert translate.leftover("engine model 修复") == 1 and translate.leftover("model engines 修复") == 1


def test_a_false_report_and_two_things_used_together() -> None:
    # cargo #17071 read "避免 to_confirm 非空时的 false 死锁", trl #6189 "spurious … CI 警告": the deadlock is a
    # false report; trl #5977 and #6042 read "在将 X 与 Y 合并时…", where the two are used together, not merged
    assert translate.title("fix(publish): avoid false deadlock when to_confirm is non-empty") == \
        "避免 to_confirm 非空时误报的死锁"
    assert translate.title("Fix spurious deadlock warning") == "修复虚假的死锁警告"
    assert translate.title("Raise when use_liger_kernel is combined with a PEFT adapter on lm_head") == \
        "在 use_liger_kernel 与 lm_head 上的 PEFT adapter 同时使用时抛出"
    # the active verb still merges
    assert translate.title("merge X with Y") == "将 X 与 Y 合并"


def test_a_kept_name_is_one_word_of_an_english_run() -> None:
    # verl #7224 (importance 9.4) fell back to "新功能：涉及 DeepSeek": "moe weight refit" read as a run of three
    # English words, though "weight refit" is verl's name for loading the trainer's weights into the rollout
    line = translate.title("enhance DeepSeek V4 fp8/fp4 linear and moe weight refit")
    assert line == "增强 DeepSeek V4 fp8/fp4 linear 和 moe weight refit"
    assert not translate.english_prose(line) and translate.leftover(line) == 0
    # a verb left in English between two kept names is still English (verl #5037's "R3 align router replay")
    assert translate.english_prose("修复带有全局层索引的 router replay R3 align router replay 数据")
