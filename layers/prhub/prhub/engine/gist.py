"""The one line per PR, in Chinese, that says what the change does and why it matters, without a model.

Built from what the engine already knows: the change type, the title's verb and object, the modules, the kind
of fix (a silently changed result, a hang, a crash, an OOM), breaking and default changes, and the measured
effect the description gives. Technical names (modules, APIs, models, files) stay as the title writes them;
the words around them are Chinese. The sentence's shape follows what there is to say, so a week's lines vary.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

# The title's leading verb, as Chinese says it. Longest first where one is a prefix of another.
VERBS: tuple[tuple[str, str], ...] = (
    (r"speed(?:s|ed|ing)?\s+up", "加速"), (r"clean(?:s|ed|ing)?(?:\s+up)?", "清理"), (r"set(?:s)?\s+up", "搭建"),
    (r"auto[- ]?set(?:s|ting)?", "自动设置"), (r"modif(?:y|ies|ied|ying)|chang(?:e|es|ed|ing)", "修改"),
    (r"add(?:s|ed|ing)?", "新增"), (r"support(?:s|ed|ing)?", "支持"), (r"introduc(?:e|es|ed|ing)", "引入"),
    (r"implement(?:s|ed|ing)?", "实现"), (r"enabl(?:e|es|ed|ing)", "启用"), (r"allow(?:s|ed|ing)?", "允许"),
    (r"integrat(?:e|es|ed|ing)", "集成"), (r"fix(?:es|ed|ing)?", "修复"), (r"correct(?:s|ed|ing)?", "纠正"),
    (r"resolv(?:e|es|ed|ing)", "解决"), (r"handl(?:e|es|ed|ing)", "处理"), (r"avoid(?:s|ed|ing)?", "避免"),
    (r"prevent(?:s|ed|ing)?", "防止"), (r"remov(?:e|es|ed|ing)", "移除"), (r"drop(?:s|ped|ping)?", "去掉"),
    (r"delet(?:e|es|ed|ing)", "删除"), (r"deprecat(?:e|es|ed|ing)", "弃用"), (r"refactor(?:s|ed|ing)?", "重构"),
    (r"renam(?:e|es|ed|ing)", "重命名"), (r"mov(?:e|es|ed|ing)", "迁移"), (r"migrat(?:e|es|ed|ing)", "迁移"),
    (r"replac(?:e|es|ed|ing)", "替换"), (r"unif(?:y|ies|ied|ying)", "统一"), (r"simplif(?:y|ies|ied|ying)", "简化"),
    (r"bump(?:s|ed|ing)?", "升级"), (r"upgrad(?:e|es|ed|ing)", "升级"), (r"updat(?:e|es|ed|ing)", "更新"),
    (r"pin(?:s|ned|ning)?", "固定"), (r"use(?:s|d)?", "改用"), (r"optimi[sz](?:e|es|ed|ing)", "优化"),
    (r"reduc(?:e|es|ed|ing)", "减少"), (r"improv(?:e|es|ed|ing)", "改进"), (r"mak(?:e|es|ing)", "让"),
    (r"set(?:s|ting)?", "设置"), (r"disabl(?:e|es|ed|ing)", "禁用"), (r"restor(?:e|es|ed|ing)", "恢复"),
    (r"sync(?:s|ed|ing)?", "同步"), (r"pass(?:es|ed|ing)?", "传递"), (r"skip(?:s|ped|ping)?", "跳过"),
    (r"sav(?:e|es|ed|ing)", "保存"), (r"polish(?:es|ed|ing)?", "打磨"), (r"extend(?:s|ed|ing)?", "扩展"),
    (r"revert(?:s|ed|ing)?", "回滚"), (r"accelerat(?:e|es|ed|ing)", "加速"), (r"align(?:s|ed|ing)?", "对齐"),
    (r"expos(?:e|es|ed|ing)", "暴露"), (r"keep(?:s|ing)?", "保持"), (r"emit(?:s|ted|ting)?", "输出"),
    (r"stop(?:s|ped|ping)?", "停止"), (r"return(?:s|ed|ing)?", "返回"), (r"raise(?:s|d)?", "抛出"),
    (r"log(?:s|ged|ging)?", "记录"), (r"rework(?:s|ed|ing)?", "重写"), (r"split(?:s|ting)?", "拆分"),
    (r"exclud(?:e|es|ed|ing)", "排除"), (r"warn(?:s|ed|ing)?", "改为警告"),
    (r"filter(?:s|ed|ing)?", "过滤"), (r"guard(?:s|ed|ing)?", "保护"),
    (r"ensur(?:e|es|ed|ing)", "确保"), (r"respect(?:s|ed|ing)?", "遵循"), (r"initiali[sz](?:e|es|ed|ing)", "初始化"),
    (r"normali[sz](?:e|es|ed|ing)", "归一化"), (r"sort(?:s|ed|ing)?", "排序"), (r"pad(?:s|ded|ding)?", "填充"),
    (r"preserv(?:e|es|ed|ing)", "保留"), (r"build(?:s|ing)?", "构建"), (r"apply(?:ing)?|applies|applied", "应用"),
    (r"check(?:s|ed|ing)?", "检查"), (r"validat(?:e|es|ed|ing)", "校验"), (r"wrap(?:s|ped|ping)?", "封装"),
    (r"load(?:s|ed|ing)?", "加载"), (r"record(?:s|ed|ing)?", "记录"), (r"clamp(?:s|ed|ing)?", "截断"),
    (r"cach(?:e|es|ed|ing)", "缓存"), (r"reus(?:e|es|ed|ing)", "复用"), (r"retr(?:y|ies|ied|ying)", "重试"),
    (r"ignor(?:e|es|ed|ing)", "忽略"), (r"releas(?:e|es|ed|ing)|free(?:s|d|ing)?", "释放"),
    (r"register(?:s|ed|ing)?", "注册"), (r"export(?:s|ed|ing)?", "导出"), (r"convert(?:s|ed|ing)?", "转换"),
    (r"serializ(?:e|es|ed|ing)", "序列化"), (r"comput(?:e|es|ed|ing)|calculat(?:e|es|ed|ing)", "计算"),
    (r"separat(?:e|es|ed|ing)", "拆分"), (r"merg(?:e|es|ed|ing)", "合并"), (r"provid(?:e|es|ed|ing)", "提供"),
    (r"creat(?:e|es|ed|ing)", "创建"), (r"shar(?:e|es|ed|ing)", "共享"), (r"launch(?:es|ed|ing)?", "启动"),
)
VERB = re.compile(r"^(?:" + "|".join(f"({p})" for p, _ in VERBS) + r")\b\s*", re.IGNORECASE)
# Without a verb, the type says what the change does.
TYPE_ACTION = {"feat": "新增", "fix": "修复", "perf": "优化", "refactor": "重构", "docs": "更新文档：",
               "test": "补充测试：", "ci": "调整 CI：", "chore": "维护：", "revert": "回滚"}
# Purpose and condition clauses: "X for Y" reads "X，用于 Y"; "X when Y" reads "Y 时的 X" and so on.
CLAUSES = ((re.compile(r"\s+to\s+(avoid|prevent|fix|reduce|support|enable|speed up|allow)\s+", re.I), "purpose"),
           (re.compile(r"\s+for\s+", re.I), "for"), (re.compile(r"\s+(?:when|if|under)\s+", re.I), "when"),
           (re.compile(r"\s+on\s+(?=(?:ascend|npu|npus|rocm|amd|gpus?|a2|a3|h100|h800|b200|gb200)\b)", re.I), "on"))
PURPOSE = {"avoid": "以避免", "prevent": "以防止", "fix": "以修复", "reduce": "以减少", "support": "以支持",
           "enable": "以启用", "speed up": "以加速", "allow": "以允许"}
# A measured effect: "54 GiB to ~150 MiB", "1.8x", "30% faster".
UNIT = r"(?:x|×|%|ms|s|sec|min|gb|gib|mb|mib|tb|tokens?/s|tok/s|it/s|samples?/s|tflops)"
CHANGE = re.compile(rf"(?:from\s+)?~?(\d+(?:\.\d+)?\s*{UNIT})\s*(?:→|->|to)\s*~?(\d+(?:\.\d+)?\s*{UNIT})(?![a-z])",
                    re.I)
SPEEDUP = re.compile(r"(\d+(?:\.\d+)?\s*(?:x|×))\s*(?:faster|speed-?ups?|higher throughput|throughput)|"
                     r"(?:speed-?ups?|faster|throughput)\D{0,20}?(\d+(?:\.\d+)?\s*(?:x|×|%))(?![a-z])", re.I)
SAVING = re.compile(r"(?:reduc\w*|sav\w*|cut\w*|less|lower\w*|fewer)\D{0,30}?(\d+(?:\.\d+)?\s*%)|"
                    r"(\d+(?:\.\d+)?\s*%)\s*(?:less|lower|fewer|reduction|smaller)", re.I)


@dataclass(frozen=True)
class Facts:
    """What the engine found out about a PR, as the line needs it."""

    number: int
    kind: str  # change type
    description: str  # the title without tags and type prefix
    modules: list[str]
    breaking: bool
    fix_class: str  # silent | stuck | numerics | silent_body | stuck_body | oom | crash | ""
    new_object: str  # what a capability adds, as the title names it ("DeepSeek", "LoRA"), or ""
    default_change: bool
    only: str  # docs | tests | ci | examples | deps | "" (what the files are when they are all one kind)
    body: str  # the cleaned description


WHY_FIX = {
    "silent": ("此前会悄然改变训练结果", "旧行为不报错，但结果是错的"),
    "stuck": ("此前可能让任务卡死", "旧行为会导致挂起"),
    "numerics": ("影响训练算出的数值", "涉及训练中计算的量"),
    "silent_body": ("据描述，此前结果可能有误", "描述指出旧行为会影响结果"),
    "stuck_body": ("据描述，此前可能卡住", "描述指出旧行为会挂起"),
    "oom": ("此前会触发显存溢出（OOM）", "避免 OOM 中断任务"),
    "crash": ("此前会报错中断", "消除一处报错"),
}
# What kind of thing a capability adds, from the word the title names it by: (two ways to say it).
CATEGORIES = (
    (re.compile(r"deepseek|qwen|glm|gemma|llama|mistral|mixtral|gpt-?oss|kimi|minicpm|pi0|apertus|internvl|vlm|vl$|moe",
                re.I), ("扩展了可训练的模型", "让更多模型可以直接训练")),
    (re.compile(r"backend|engine|rollout|server|trainer|worker|critic|reward model", re.I),
     ("扩展了可选的训练或推理组件", "多了一种可选的运行组件")),
    (re.compile(r"algorithm|loss|objective|distillation|grpo|ppo|dapo|gspo|sac|dro|prime|flowrl|correction|masking",
                re.I), ("新增可选的算法或损失", "算法层面多了一个选项")),
    (re.compile(r"weight|checkpoint|sync|transfer|sharded|offload|disaggregat|async|streaming|parallel|pipeline|"
                r"^(?:pp|vpp|cp|ep|tp|dp)$", re.I), ("改进训练与推理之间的权重、检查点或并行机制",
                                                    "扩展了并行、检查点与权重同步的能力")),
    (re.compile(r"lora|fp8|mxfp4|quantiz", re.I), ("扩展了 LoRA 与低精度训练的支持", "低精度与 LoRA 多了一种用法")),
    (re.compile(r"agent|tool|multi-?turn|dataloader", re.I),
     ("扩展了多轮、工具调用与数据流水线", "数据与智能体流程多了一种用法")),
)
WHY_ONLY = {"docs": "只涉及文档", "tests": "只涉及测试", "ci": "只涉及 CI", "examples": "只涉及示例脚本",
            "deps": "只涉及依赖与镜像"}


ADVERB = re.compile(r"^(?:always|now|also|properly|correctly|just|further|explicitly|temporar(?:y|ily)|only)\s+", re.I)
MAKE_DEFAULT = re.compile(r"^mak(?:e|es|ing)\s+(.+?)\s+(?:the\s+)?default$", re.I)
# "TransferQueue - Add zero-copy ...", "vllm: support ...": a component named before what is done to it.
NAMED_FIRST = re.compile(r"^([\w.`/-]+)\s*(?:\s-|:|：)\s+(.+)$")


# A component named before a plain verb ("ascend update ...", "npu disable ..."); words that are no component.
BASE_VERBS = {"add", "support", "update", "bump", "disable", "enable", "fix", "save", "load", "integrate", "use",
              "remove", "set", "skip", "sync", "upgrade", "introduce", "implement", "allow"}
NOT_NAMES = {"temporary", "temporarily", "only", "minor", "partial", "bug", "batch", "small", "quick", "simple"}


def _verb(text: str) -> tuple[str, str] | None:
    match = VERB.match(ADVERB.sub("", text))
    if not match:
        return None
    index = next(i for i, group in enumerate(match.groups()) if group is not None)
    return VERBS[index][1], ADVERB.sub("", text)[match.end():].strip()


def _action(description: str, kind: str) -> tuple[str, str]:
    """(Chinese verb, the rest of the title) for the title's leading verb, else the type's."""
    description = re.split(r"(?<=[a-z0-9)`])\.\s+", description.strip(), maxsplit=1)[0]  # the first sentence
    if default := MAKE_DEFAULT.match(description):
        return "将", f"{default.group(1)} 设为默认"
    if found := _verb(description):
        return found
    if (named := NAMED_FIRST.match(description)) and (found := _verb(named.group(2))):
        return f"{named.group(1)}：{found[0]}", found[1]
    words = description.split(" ", 2)
    if len(words) == 3 and (re.search(r"[A-Z_.]", words[0][1:]) or words[1].lower() in BASE_VERBS) \
            and words[0].lower() not in NOT_NAMES and (found := _verb(f"{words[1]} {words[2]}")):
        return f"让 {words[0]} {found[0]}", found[1]  # "TensorLoRARequest support ...", "verl add rl insight"
    return TYPE_ACTION.get(kind, "改动"), description


def _object(rest: str) -> str:
    """The title's object with its purpose/condition clause in Chinese order; technical words stay."""
    rest = re.sub(r"^(?:the|a|an)\s+", "", rest.strip().rstrip("."), flags=re.I)
    if support := re.match(r"^(?:native\s+)?support\s+(?:for|of)\s+(.+)$", rest, re.I):
        return f"对 {support.group(1)} 的支持"
    for pattern, role in CLAUSES:
        match = pattern.search(rest)
        if not match or match.start() < 3:
            continue
        head, tail = rest[:match.start()].strip(), rest[match.end():].strip()
        if not tail:
            continue
        if role == "purpose":
            return f"{head}，{PURPOSE[match.group(1).lower()]} {tail}"
        if role == "for":
            return f"{head}，用于 {tail}"
        if role == "when":
            return f"{head}（{tail} 时）"
        return f"{head}（{tail} 上）"
    return rest


def effect(body: str) -> str:
    """The measured effect the description states, in a short Chinese phrase, or ''."""
    body = body[:6000]  # results are stated early; the patterns stay cheap on huge descriptions
    if match := CHANGE.search(body):
        return f"实测 {match.group(1)} → {match.group(2)}"
    if match := SPEEDUP.search(body):
        return f"实测提速 {match.group(1) or match.group(2)}"
    if match := SAVING.search(body):
        return f"实测减少 {match.group(1) or match.group(2)}"
    return ""


def doing(description: str, kind: str) -> str:
    """What a PR does, in Chinese around the title's technical words ("启用 Async RL，用于 trtllm rollout")."""
    verb, rest = _action(description, kind)
    what = _object(rest) if rest else description
    joiner = "" if verb.endswith("：") or what.startswith("对 ") else " "
    return f"{verb}{joiner}{what}".strip()


def zh_line(facts: Facts) -> str:
    """One Chinese sentence: what the PR does, then why it matters (or what it measured)."""
    action = doing(facts.description, facts.kind)
    alt = facts.number % 2
    measured = effect(facts.body)
    if facts.kind == "revert":
        return f"{action}，撤销此前的改动。"
    if facts.only in WHY_ONLY:
        return f"{action}（{WHY_ONLY[facts.only]}）。"
    parts: list[str] = []
    if facts.fix_class:
        parts.append(WHY_FIX[facts.fix_class][alt])
    if facts.breaking:
        parts.append("属于破坏性变更，升级时需调整用法" if alt else "会破坏现有用法，升级前需留意")
    elif facts.default_change:
        parts.append("默认行为随之改变")
    if facts.new_object and not facts.fix_class:
        area = "、".join(facts.modules[:2])
        category = next((words for pattern, words in CATEGORIES if pattern.search(facts.new_object)), "")
        if category:
            parts.append(f"{category[alt]}" + (f"（{area}）" if area and not alt else ""))
    if measured:
        parts.append(measured)
    if not parts:
        area = "、".join(facts.modules[:2])
        return f"{action}（{area}）。" if area else f"{action}。"
    if facts.fix_class and alt:  # lead with why for some fixes: "此前会悄然改变训练结果：修复 ..."
        return f"{parts[0]}：{action}" + (f"；{'，'.join(parts[1:])}" if parts[1:] else "") + "。"
    return f"{action}，{'，'.join(parts)}。"
